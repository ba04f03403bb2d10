/* The reach daemon's GNetworkMonitor, for GIO's `gio-network-monitor` extension point. */
#ifndef REACH_NETWORK_MONITOR_H
#define REACH_NETWORK_MONITOR_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define REACH_TYPE_NETWORK_MONITOR (reach_network_monitor_get_type ())
G_DECLARE_FINAL_TYPE (ReachNetworkMonitor, reach_network_monitor, REACH, NETWORK_MONITOR, GObject)

/* The socket the monitor reads the path from: REACH_SOCKET, else the caller's own daemon's
 * (as `reach queue` finds it), else the system daemon's read-only /run/reach/path.sock. */
gchar *reach_find_socket (void);

G_END_DECLS

#endif
