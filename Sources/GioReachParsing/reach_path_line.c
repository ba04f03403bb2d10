/* A path document's status, cost and connectivity, and a route answer, from the reach
 * daemon's JSON (json-glib parses it; every field is checked for its type). */

#include "reach_path_line.h"

#include <json-glib/json-glib.h>
#include <string.h>

/* The largest document accepted: a path with many interfaces is a few KiB. */
#define REACH_MAX_DOCUMENT (1024 * 1024)
/* The deepest nesting accepted: a path document nests four levels. json-glib's parser recurses
 * once per level, so a line of 200,000 '[' from a hostile peer would overflow the stack. */
#define REACH_MAX_DEPTH 32

/* Whether `text` nests arrays and objects at most REACH_MAX_DEPTH deep (brackets inside strings
 * do not count), checked before json-glib sees it. */
static gboolean
reach_nesting_is_bounded (const gchar *text, gsize length)
{
  guint depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = 0; i < length; i++)
    {
      gchar c = text[i];
      if (in_string)
        {
          if (c == '\\')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++depth > REACH_MAX_DEPTH)
            return FALSE;
        }
      else if ((c == ']' || c == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

static JsonParser *
reach_parse_object (const gchar *text, gsize length, JsonObject **object)
{
  if (length == 0 || length > REACH_MAX_DOCUMENT || !reach_nesting_is_bounded (text, length))
    return NULL;
  JsonParser *parser = json_parser_new_immutable ();
  if (!json_parser_load_from_data (parser, text, (gssize) length, NULL))
    {
      g_object_unref (parser);
      return NULL;
    }
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_object_unref (parser);
      return NULL;
    }
  *object = json_node_get_object (root);
  return parser;
}

static const gchar *
reach_string_member (JsonObject *object, const gchar *name)
{
  JsonNode *node = json_object_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

/* 1 or 0 for a boolean member, -1 when it is missing or not a boolean. */
static gint
reach_boolean_member (JsonObject *object, const gchar *name)
{
  JsonNode *node = json_object_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_BOOLEAN)
    return -1;
  return json_node_get_boolean (node) ? 1 : 0;
}

/* reach's connectivity in GLib's words. Without probing (`unknown`) GLib's own rule: full when
 * a network is available. */
static GNetworkConnectivity
reach_connectivity (const gchar *text, gboolean available)
{
  if (!available || g_strcmp0 (text, "none") == 0 || g_strcmp0 (text, "local") == 0)
    return G_NETWORK_CONNECTIVITY_LOCAL;
  if (g_strcmp0 (text, "limited") == 0 || g_strcmp0 (text, "partial") == 0)
    return G_NETWORK_CONNECTIVITY_LIMITED;
  if (g_strcmp0 (text, "portal") == 0)
    return G_NETWORK_CONNECTIVITY_PORTAL;
  return G_NETWORK_CONNECTIVITY_FULL;
}

gboolean
reach_path_line_parse (const gchar *line, gsize length, ReachPathState *state)
{
  JsonObject *object = NULL;
  JsonParser *parser = reach_parse_object (line, length, &object);
  if (parser == NULL)
    return FALSE;
  const gchar *status = reach_string_member (object, "status");
  gint expensive = reach_boolean_member (object, "expensive");
  gboolean parsed = status != NULL && expensive != -1;
  if (parsed)
    {
      state->available = strcmp (status, "unreachable") != 0;
      /* A constrained path (Low Data Mode) is metered to GLib's readers as well. */
      state->metered = expensive == 1 || reach_boolean_member (object, "constrained") == 1;
      state->connectivity = reach_connectivity (reach_string_member (object, "connectivity"), state->available);
    }
  g_object_unref (parser);
  return parsed;
}

gint
reach_route_line_parse (const gchar *body, gsize length)
{
  JsonObject *object = NULL;
  JsonParser *parser = reach_parse_object (body, length, &object);
  if (parser == NULL)
    return -1;
  gint reachable = reach_boolean_member (object, "reachable");
  g_object_unref (parser);
  return reachable;
}
