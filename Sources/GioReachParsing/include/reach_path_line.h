/* Parsing what the reach daemon sends the GIO module: a path document per line, and the
 * answer for one destination. Kept apart from the GObject code so a fuzz target can drive it. */
#ifndef REACH_PATH_LINE_H
#define REACH_PATH_LINE_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* What GNetworkMonitor reports, as read from one path document. */
typedef struct {
  gboolean available;
  gboolean metered;
  GNetworkConnectivity connectivity;
} ReachPathState;

/* Reads one line of /v1/path/events (a path document, not NUL-terminated): TRUE and `state`
 * for a well-formed one; FALSE for anything else (the line is then ignored). */
gboolean reach_path_line_parse (const gchar *line, gsize length, ReachPathState *state);

/* Reads /v1/route's answer: 1 reachable, 0 not, -1 not an answer. */
gint reach_route_line_parse (const gchar *body, gsize length);

G_END_DECLS

#endif
