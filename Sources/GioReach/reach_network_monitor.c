/* A GNetworkMonitor backed by the reach daemon: what GLib programs (unattended-upgrades,
 * PackageKit, GNOME Software, Flatpak) ask about the network comes from reach's path — metered
 * on cellular and tethered phones, which GLib's netlink monitor never says.
 *
 * Loaded by GIO from its module directory (or GIO_EXTRA_MODULES). Initialisation reads the
 * daemon's current path over its socket; when no daemon answers within a short timeout it
 * fails, and GLib falls back to the next monitor (netlink). Afterwards changes arrive on the
 * daemon's path event stream, read asynchronously in the main context that created the
 * monitor: no thread of its own, and get_network_metered() is answered from memory.
 *
 * When the stream ends (the daemon stopped or restarts), the last answer is not kept: until the
 * daemon answers again, the monitor says what GLib's own netlink monitor says (and logs so
 * with g_debug), and it tries the daemon again every second, so a daemon back is heard within
 * a second. */

#include "reach_network_monitor.h"
#include "reach_path_line.h"

#include <gio/gunixsocketaddress.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Below NetworkManager's backend (30), so NetworkManager still answers where it runs, and
 * above GLib's netlink (20) and systemd (25) ones. */
#define REACH_MONITOR_PRIORITY 27
/* Local socket: a daemon that takes longer than this to answer, in all, is treated as absent
 * (a peer that trickles a byte at a time cannot stretch it: the bound is on the whole wait). */
#define REACH_TIMEOUT_SECONDS 1
#define REACH_MAX_HEADER (16 * 1024)
#define REACH_MAX_LINE (1024 * 1024)
#define REACH_MAX_BODY (256 * 1024)
/* While the daemon is away: one connect() a second, so a daemon back is heard within one. */
#define REACH_RETRY_SECONDS 1

struct _ReachNetworkMonitor {
  GObject parent_instance;
  gchar *socket_path;
  GMainContext *context;
  GSocketClient *client;
  GSocketConnection *connection;
  GCancellable *cancellable;
  /* Bytes of the header or of a line not yet complete. */
  GString *pending;
  gboolean in_header;
  guint8 buffer[4096];
  GSource *retry;
  /* GLib's own monitor, answering while the daemon does not (NULL until first needed). */
  GNetworkMonitor *fallback;
  gulong fallback_handler;
  /* Path documents taken since the monitor was made. */
  guint paths_seen;
  ReachPathState state;
};

enum { PROP_0, PROP_NETWORK_AVAILABLE, PROP_NETWORK_METERED, PROP_CONNECTIVITY };

static void reach_network_monitor_iface_init (GNetworkMonitorInterface *iface);
static void reach_network_monitor_initable_iface_init (GInitableIface *iface);
static void reach_connect_async (ReachNetworkMonitor *self);
static void reach_stop_falling_back (ReachNetworkMonitor *self);

G_DEFINE_DYNAMIC_TYPE_EXTENDED (ReachNetworkMonitor, reach_network_monitor, G_TYPE_OBJECT, 0,
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_INITABLE, reach_network_monitor_initable_iface_init)
                                G_IMPLEMENT_INTERFACE_DYNAMIC (G_TYPE_NETWORK_MONITOR, reach_network_monitor_iface_init))

/* ---- Finding the daemon ------------------------------------------------------------------ */

static gboolean
reach_is_socket (const gchar *path)
{
  struct stat info;
  return stat (path, &info) == 0 && S_ISSOCK (info.st_mode);
}

/* As `reach queue` finds its daemon (REACH_SOCKET, else root's /run/reach/reach.sock or the
 * user's $XDG_RUNTIME_DIR/reach/reach.sock), then, for a user without a daemon of their own,
 * the system daemon's read-only path socket. */
gchar *
reach_find_socket (void)
{
  const gchar *forced = g_getenv ("REACH_SOCKET");
  if (forced != NULL && forced[0] == '/')
    return g_strdup (forced);
  if (geteuid () == 0)
    return g_strdup ("/run/reach/reach.sock");
  const gchar *runtime = g_getenv ("XDG_RUNTIME_DIR");
  if (runtime != NULL && runtime[0] == '/')
    {
      gchar *own = g_build_filename (runtime, "reach", "reach.sock", NULL);
      if (reach_is_socket (own))
        return own;
      g_free (own);
    }
  return g_strdup ("/run/reach/path.sock");
}

/* ---- HTTP over the socket ------------------------------------------------------------------ */

static void
reach_string_free (GString *text)
{
  g_string_free (text, TRUE);
}

/* The index just past the header's blank line in `text`, or -1 while it is incomplete. */
static gssize
reach_header_end (const GString *text)
{
  const gchar *end = g_strstr_len (text->str, text->len, "\r\n\r\n");
  return end == NULL ? -1 : (end - text->str) + 4;
}

/* A status line of 200 (the rest of the header is not needed). */
static gboolean
reach_header_is_ok (const gchar *header, gsize length)
{
  return length >= 12 && (strncmp (header, "HTTP/1.0 200", 12) == 0 || strncmp (header, "HTTP/1.1 200", 12) == 0);
}

/* Whether the peer of `connection` is root or this user (SO_PEERCRED, which the peer cannot
 * fake): anyone else may have put a socket where ours should be (an XDG_RUNTIME_DIR on a shared
 * directory) to hear what we ask and answer what it likes. Nothing is sent before this. */
static gboolean
reach_peer_is_trusted (GSocketConnection *connection, GError **error)
{
  GCredentials *credentials = g_socket_get_credentials (g_socket_connection_get_socket (connection), error);
  if (credentials == NULL)
    return FALSE;
  uid_t uid = g_credentials_get_unix_user (credentials, NULL);
  g_object_unref (credentials);
  if (uid == 0 || uid == geteuid ())
    return TRUE;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED, "the socket's peer is uid %u, neither root nor this user", (guint) uid);
  return FALSE;
}

static GSocketConnection *
reach_connect (GSocketClient *client, const gchar *path, GCancellable *cancellable, GError **error)
{
  GSocketAddress *address = g_unix_socket_address_new (path);
  GSocketConnection *connection = g_socket_client_connect (client, G_SOCKET_CONNECTABLE (address), cancellable, error);
  g_object_unref (address);
  GError *untrusted = NULL;
  if (connection != NULL && !reach_peer_is_trusted (connection, &untrusted))
    {
      g_debug ("reach: not using %s: %s", path, untrusted->message);
      g_propagate_error (error, untrusted);
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      g_clear_object (&connection);
    }
  return connection;
}

/* Reads what is there within the overall `deadline` (monotonic µs): -1 with `error` set once it
 * has passed, whatever the peer trickles meanwhile. */
static gssize
reach_read_before (GSocketConnection *connection, gint64 deadline, guint8 *buffer, gsize size, GCancellable *cancellable,
                   GError **error)
{
  gint64 left = deadline - g_get_monotonic_time ();
  if (left <= 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT, "the reach daemon did not answer within %d s", REACH_TIMEOUT_SECONDS);
      return -1;
    }
  GSocket *socket = g_socket_connection_get_socket (connection);
  if (!g_socket_condition_timed_wait (socket, G_IO_IN, left, cancellable, error))
    return -1;
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (connection));
  return g_input_stream_read (in, buffer, size, cancellable, error);
}

static gboolean
reach_send_request (GSocketConnection *connection, const gchar *target, GCancellable *cancellable, GError **error)
{
  /* HTTP/1.0: the daemon ends the body by closing, so no chunked encoding to undo. */
  gchar *request = g_strdup_printf ("GET %s HTTP/1.0\r\nHost: reach\r\n\r\n", target);
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  gboolean sent = g_output_stream_write_all (out, request, strlen (request), NULL, cancellable, error);
  g_free (request);
  return sent;
}

/* GET `target`, the whole answer's body (at most REACH_MAX_BODY) on 200; blocking, bounded by
 * the client's timeout. */
static GString *
reach_get (const gchar *socket_path, const gchar *target, GCancellable *cancellable, GError **error)
{
  GSocketClient *client = g_socket_client_new ();
  g_socket_client_set_timeout (client, REACH_TIMEOUT_SECONDS);
  GSocketConnection *connection = reach_connect (client, socket_path, cancellable, error);
  g_object_unref (client);
  if (connection == NULL)
    return NULL;
  GString *answer = NULL;
  if (reach_send_request (connection, target, cancellable, error))
    {
      answer = g_string_new (NULL);
      gint64 deadline = g_get_monotonic_time () + REACH_TIMEOUT_SECONDS * G_USEC_PER_SEC;
      guint8 chunk[4096];
      gssize count;
      while ((count = reach_read_before (connection, deadline, chunk, sizeof chunk, cancellable, error)) > 0)
        {
          if (answer->len + count > REACH_MAX_BODY)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, "the reach daemon's answer is too long");
              count = -1;
              break;
            }
          g_string_append_len (answer, (const gchar *) chunk, count);
        }
      gssize body = reach_header_end (answer);
      if (count < 0)
        g_clear_pointer (&answer, reach_string_free);
      else if (body < 0 || !reach_header_is_ok (answer->str, answer->len))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "the reach daemon did not answer %s with 200", target);
          g_clear_pointer (&answer, reach_string_free);
        }
      else
        g_string_erase (answer, 0, body);
    }
  g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
  g_object_unref (connection);
  return answer;
}

/* ---- The state and its changes ---------------------------------------------------------- */

static void
reach_apply (ReachNetworkMonitor *self, const ReachPathState *state)
{
  gboolean available_changed = state->available != self->state.available;
  gboolean metered_changed = state->metered != self->state.metered;
  gboolean connectivity_changed = state->connectivity != self->state.connectivity;
  self->state = *state;
  if (!available_changed && !metered_changed && !connectivity_changed)
    return;
  g_object_freeze_notify (G_OBJECT (self));
  if (available_changed)
    g_object_notify (G_OBJECT (self), "network-available");
  if (metered_changed)
    g_object_notify (G_OBJECT (self), "network-metered");
  if (connectivity_changed)
    g_object_notify (G_OBJECT (self), "connectivity");
  g_object_thaw_notify (G_OBJECT (self));
  g_signal_emit_by_name (self, "network-changed", self->state.available);
}

/* Takes bytes of the stream: the header first, then one path document per line. False when
 * the stream is unusable (not 200, or a header or line beyond its bound). */
static gboolean
reach_take (ReachNetworkMonitor *self, const gchar *bytes, gsize count)
{
  g_string_append_len (self->pending, bytes, count);
  if (self->in_header)
    {
      gssize end = reach_header_end (self->pending);
      if (end < 0)
        return self->pending->len <= REACH_MAX_HEADER;
      if (!reach_header_is_ok (self->pending->str, self->pending->len))
        return FALSE;
      g_string_erase (self->pending, 0, end);
      self->in_header = FALSE;
    }
  gchar *newline;
  while ((newline = memchr (self->pending->str, '\n', self->pending->len)) != NULL)
    {
      gsize length = newline - self->pending->str;
      ReachPathState state;
      if (reach_path_line_parse (self->pending->str, length, &state))
        {
          self->paths_seen++;
          reach_stop_falling_back (self);
          reach_apply (self, &state);
        }
      g_string_erase (self->pending, 0, length + 1);
    }
  return self->pending->len <= REACH_MAX_LINE;
}

/* ---- While the daemon is away: GLib's own monitor ------------------------------------------ */

/* GLib's netlink monitor (else its base one), made as GIO makes them; NULL when neither exists. */
static GNetworkMonitor *
reach_glib_monitor (GMainContext *context)
{
  GIOExtensionPoint *point = g_io_extension_point_lookup (G_NETWORK_MONITOR_EXTENSION_POINT_NAME);
  const gchar *names[] = { "netlink", "base" };
  for (gsize i = 0; point != NULL && i < G_N_ELEMENTS (names); i++)
    {
      GIOExtension *extension = g_io_extension_point_get_extension_by_name (point, names[i]);
      if (extension == NULL)
        continue;
      g_main_context_push_thread_default (context);
      GNetworkMonitor *monitor = g_initable_new (g_io_extension_get_type (extension), NULL, NULL, NULL);
      g_main_context_pop_thread_default (context);
      if (monitor != NULL)
        return monitor;
    }
  return NULL;
}

static void
reach_take_fallback_state (ReachNetworkMonitor *self)
{
  ReachPathState state = {
    .available = g_network_monitor_get_network_available (self->fallback),
    .metered = g_network_monitor_get_network_metered (self->fallback),
    .connectivity = g_network_monitor_get_connectivity (self->fallback),
  };
  reach_apply (self, &state);
}

static void
reach_fallback_changed (GNetworkMonitor *fallback, gboolean available, gpointer data)
{
  reach_take_fallback_state (data);
}

/* The daemon is gone: answer with GLib's monitor, not with the daemon's last answer. */
static void
reach_fall_back (ReachNetworkMonitor *self)
{
  if (self->fallback_handler != 0)
    return;
  if (self->fallback == NULL)
    self->fallback = reach_glib_monitor (self->context);
  if (self->fallback == NULL)
    {
      g_debug ("reach: no reach daemon at %s and no GLib monitor to ask: keeping the last answer", self->socket_path);
      return;
    }
  g_debug ("reach: no reach daemon at %s: answering from %s until it is back", self->socket_path, G_OBJECT_TYPE_NAME (self->fallback));
  self->fallback_handler = g_signal_connect (self->fallback, "network-changed", G_CALLBACK (reach_fallback_changed), self);
  reach_take_fallback_state (self);
}

/* The daemon answers again: its paths alone count. */
static void
reach_stop_falling_back (ReachNetworkMonitor *self)
{
  if (self->fallback_handler == 0)
    return;
  g_signal_handler_disconnect (self->fallback, self->fallback_handler);
  self->fallback_handler = 0;
  g_debug ("reach: the reach daemon at %s answers again", self->socket_path);
}

/* ---- The event stream, asynchronously ---------------------------------------------------- */

static void reach_read_next (ReachNetworkMonitor *self);

static gboolean
reach_retry_fired (gpointer data)
{
  ReachNetworkMonitor *self = data;
  g_clear_pointer (&self->retry, g_source_unref);
  reach_connect_async (self);
  return G_SOURCE_REMOVE;
}

/* The stream ended (the daemon stopped or restarts): GLib's monitor answers meanwhile, and the
 * stream is opened again a second later (a timer, not a seconds timer: those are batched and
 * may fire up to a second late). */
static void
reach_lost (ReachNetworkMonitor *self)
{
  if (self->connection != NULL)
    {
      g_io_stream_close (G_IO_STREAM (self->connection), NULL, NULL);
      g_clear_object (&self->connection);
    }
  reach_fall_back (self);
  if (self->retry != NULL)
    return;
  self->retry = g_timeout_source_new (REACH_RETRY_SECONDS * 1000);
  g_source_set_callback (self->retry, reach_retry_fired, self, NULL);
  g_source_attach (self->retry, self->context);
}

static void
reach_read_done (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  gssize count = g_input_stream_read_finish (G_INPUT_STREAM (source), result, &error);
  if (count < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      /* The monitor is being finalized: it must not be touched. */
      g_error_free (error);
      return;
    }
  g_clear_error (&error);
  ReachNetworkMonitor *self = data;
  if (count <= 0 || !reach_take (self, (const gchar *) self->buffer, count))
    {
      reach_lost (self);
      return;
    }
  reach_read_next (self);
}

/* Every asynchronous call is made with the monitor's context as the thread default, so its
 * callback runs there whichever context dispatched the one before. */
static void
reach_read_next (ReachNetworkMonitor *self)
{
  GInputStream *in = g_io_stream_get_input_stream (G_IO_STREAM (self->connection));
  g_main_context_push_thread_default (self->context);
  g_input_stream_read_async (in, self->buffer, sizeof self->buffer, G_PRIORITY_DEFAULT, self->cancellable, reach_read_done, self);
  g_main_context_pop_thread_default (self->context);
}

/* Takes `connection` for the event stream: no timeout on its socket from now on (changes may
 * be hours apart). */
static void
reach_adopt (ReachNetworkMonitor *self, GSocketConnection *connection)
{
  self->connection = connection;
  g_socket_set_timeout (g_socket_connection_get_socket (connection), 0);
}

static void
reach_request_sent (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  gboolean sent = g_output_stream_write_all_finish (G_OUTPUT_STREAM (source), result, NULL, &error);
  if (!sent && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      return;
    }
  g_clear_error (&error);
  ReachNetworkMonitor *self = data;
  if (!sent)
    {
      reach_lost (self);
      return;
    }
  reach_read_next (self);
}

static const gchar reach_events_request[] = "GET /v1/path/events HTTP/1.0\r\nHost: reach\r\n\r\n";

static void
reach_connected (GObject *source, GAsyncResult *result, gpointer data)
{
  GError *error = NULL;
  GSocketConnection *connection = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, &error);
  if (connection == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_error_free (error);
      return;
    }
  g_clear_error (&error);
  ReachNetworkMonitor *self = data;
  if (connection != NULL && !reach_peer_is_trusted (connection, &error))
    {
      g_debug ("reach: not using %s: %s", self->socket_path, error->message);
      g_clear_error (&error);
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      g_clear_object (&connection);
    }
  if (connection == NULL)
    {
      reach_lost (self);
      return;
    }
  g_string_truncate (self->pending, 0);
  self->in_header = TRUE;
  reach_adopt (self, connection);
  GOutputStream *out = g_io_stream_get_output_stream (G_IO_STREAM (connection));
  g_main_context_push_thread_default (self->context);
  g_output_stream_write_all_async (out, reach_events_request, strlen (reach_events_request), G_PRIORITY_DEFAULT, self->cancellable,
                                   reach_request_sent, self);
  g_main_context_pop_thread_default (self->context);
}

static void
reach_connect_async (ReachNetworkMonitor *self)
{
  GSocketAddress *address = g_unix_socket_address_new (self->socket_path);
  g_main_context_push_thread_default (self->context);
  g_socket_client_connect_async (self->client, G_SOCKET_CONNECTABLE (address), self->cancellable, reach_connected, self);
  g_main_context_pop_thread_default (self->context);
  g_object_unref (address);
}

/* ---- GInitable ------------------------------------------------------------------------------ */

/* Opens the event stream and reads the current path, blocking for at most the timeout; fails
 * (so GLib takes its own monitor) when no daemon answers with a path. */
static gboolean
reach_network_monitor_initable_init (GInitable *initable, GCancellable *cancellable, GError **error)
{
  ReachNetworkMonitor *self = REACH_NETWORK_MONITOR (initable);
  self->socket_path = reach_find_socket ();
  self->context = g_main_context_ref_thread_default ();
  GSocketConnection *connection = reach_connect (self->client, self->socket_path, cancellable, error);
  if (connection == NULL)
    return FALSE;
  gboolean have_path = FALSE;
  if (reach_send_request (connection, "/v1/path/events", cancellable, error))
    {
      gint64 deadline = g_get_monotonic_time () + REACH_TIMEOUT_SECONDS * G_USEC_PER_SEC;
      self->in_header = TRUE;
      while (!have_path)
        {
          gssize count = reach_read_before (connection, deadline, self->buffer, sizeof self->buffer, cancellable, error);
          if (count <= 0 || !reach_take (self, (const gchar *) self->buffer, count))
            break;
          have_path = self->paths_seen > 0;
        }
    }
  if (!have_path)
    {
      if (error != NULL && *error == NULL)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "no path from the reach daemon at %s", self->socket_path);
      g_io_stream_close (G_IO_STREAM (connection), NULL, NULL);
      g_object_unref (connection);
      return FALSE;
    }
  reach_adopt (self, connection);
  reach_read_next (self);
  return TRUE;
}

static void
reach_network_monitor_initable_iface_init (GInitableIface *iface)
{
  iface->init = reach_network_monitor_initable_init;
}

/* ---- can_reach ---------------------------------------------------------------------------- */

/* The host a connectable names: a name or an address literal; NULL for other kinds. */
static gchar *
reach_connectable_host (GSocketConnectable *connectable)
{
  if (G_IS_NETWORK_ADDRESS (connectable))
    return g_strdup (g_network_address_get_hostname (G_NETWORK_ADDRESS (connectable)));
  if (G_IS_NETWORK_SERVICE (connectable))
    return g_strdup (g_network_service_get_domain (G_NETWORK_SERVICE (connectable)));
  if (G_IS_INET_SOCKET_ADDRESS (connectable))
    return g_inet_address_to_string (g_inet_socket_address_get_address (G_INET_SOCKET_ADDRESS (connectable)));
  return NULL;
}

static gboolean
reach_network_monitor_can_reach (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable, GError **error)
{
  ReachNetworkMonitor *self = REACH_NETWORK_MONITOR (monitor);
  gchar *host = reach_connectable_host (connectable);
  gint reachable = -1;
  if (host != NULL)
    {
      gchar *escaped = g_uri_escape_string (host, NULL, FALSE);
      gchar *target = g_strdup_printf ("/v1/route?host=%s", escaped);
      GString *body = reach_get (self->socket_path, target, cancellable, NULL);
      if (body != NULL)
        reachable = reach_route_line_parse (body->str, body->len);
      if (body != NULL)
        g_string_free (body, TRUE);
      g_free (target);
      g_free (escaped);
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_free (host);
      return FALSE;
    }
  /* Without the daemon's answer (another kind of address, or a daemon restarting) the path says. */
  if (reachable == -1)
    reachable = self->state.available;
  if (!reachable)
    g_set_error (error, G_IO_ERROR, self->state.available ? G_IO_ERROR_HOST_UNREACHABLE : G_IO_ERROR_NETWORK_UNREACHABLE,
                 "%s is not reachable (reach)", host != NULL ? host : "the destination");
  g_free (host);
  return reachable;
}

static void
reach_can_reach_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  if (reach_network_monitor_can_reach (G_NETWORK_MONITOR (source), G_SOCKET_CONNECTABLE (data), cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
reach_network_monitor_can_reach_async (GNetworkMonitor *monitor, GSocketConnectable *connectable, GCancellable *cancellable,
                                       GAsyncReadyCallback callback, gpointer data)
{
  GTask *task = g_task_new (monitor, cancellable, callback, data);
  g_task_set_source_tag (task, reach_network_monitor_can_reach_async);
  g_task_set_task_data (task, g_object_ref (connectable), g_object_unref);
  g_task_run_in_thread (task, reach_can_reach_thread);
  g_object_unref (task);
}

static gboolean
reach_network_monitor_can_reach_finish (GNetworkMonitor *monitor, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, monitor), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

static void
reach_network_monitor_iface_init (GNetworkMonitorInterface *iface)
{
  iface->can_reach = reach_network_monitor_can_reach;
  iface->can_reach_async = reach_network_monitor_can_reach_async;
  iface->can_reach_finish = reach_network_monitor_can_reach_finish;
}

/* ---- GObject ---------------------------------------------------------------------------- */

static void
reach_network_monitor_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  ReachNetworkMonitor *self = REACH_NETWORK_MONITOR (object);
  switch (prop_id)
    {
    case PROP_NETWORK_AVAILABLE:
      g_value_set_boolean (value, self->state.available);
      break;
    case PROP_NETWORK_METERED:
      g_value_set_boolean (value, self->state.metered);
      break;
    case PROP_CONNECTIVITY:
      g_value_set_enum (value, self->state.connectivity);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
reach_network_monitor_init (ReachNetworkMonitor *self)
{
  self->client = g_socket_client_new ();
  g_socket_client_set_timeout (self->client, REACH_TIMEOUT_SECONDS);
  self->cancellable = g_cancellable_new ();
  self->pending = g_string_new (NULL);
  self->state.available = TRUE;
  self->state.connectivity = G_NETWORK_CONNECTIVITY_FULL;
}

static void
reach_network_monitor_finalize (GObject *object)
{
  ReachNetworkMonitor *self = REACH_NETWORK_MONITOR (object);
  g_cancellable_cancel (self->cancellable);
  if (self->retry != NULL)
    {
      g_source_destroy (self->retry);
      g_source_unref (self->retry);
    }
  if (self->connection != NULL)
    {
      g_io_stream_close (G_IO_STREAM (self->connection), NULL, NULL);
      g_object_unref (self->connection);
    }
  if (self->fallback_handler != 0)
    g_signal_handler_disconnect (self->fallback, self->fallback_handler);
  g_clear_object (&self->fallback);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->client);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_string_free (self->pending, TRUE);
  g_free (self->socket_path);
  G_OBJECT_CLASS (reach_network_monitor_parent_class)->finalize (object);
}

static void
reach_network_monitor_class_init (ReachNetworkMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  object_class->get_property = reach_network_monitor_get_property;
  object_class->finalize = reach_network_monitor_finalize;
  g_object_class_override_property (object_class, PROP_NETWORK_AVAILABLE, "network-available");
  g_object_class_override_property (object_class, PROP_NETWORK_METERED, "network-metered");
  g_object_class_override_property (object_class, PROP_CONNECTIVITY, "connectivity");
}

static void
reach_network_monitor_class_finalize (ReachNetworkMonitorClass *klass)
{
}

/* ---- The module ----------------------------------------------------------------------------- */

G_MODULE_EXPORT void
g_io_module_load (GIOModule *module)
{
  /* GObject types cannot be unregistered: the module stays loaded once its type exists. */
  g_type_module_use (G_TYPE_MODULE (module));
  reach_network_monitor_register_type (G_TYPE_MODULE (module));
  g_io_extension_point_implement (G_NETWORK_MONITOR_EXTENSION_POINT_NAME, REACH_TYPE_NETWORK_MONITOR, "reach", REACH_MONITOR_PRIORITY);
}

G_MODULE_EXPORT void
g_io_module_unload (GIOModule *module)
{
}

G_MODULE_EXPORT char **
g_io_module_query (void)
{
  char *extension_points[] = { (char *) G_NETWORK_MONITOR_EXTENSION_POINT_NAME, NULL };
  return g_strdupv (extension_points);
}
