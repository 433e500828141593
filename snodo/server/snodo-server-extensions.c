/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-description.h"
#include "snodo-invocation.h"
#include "snodo-resource.h"
#include "snodo-server.h"
#include "snodo-server-methods.h"
#include "snodo-tool.h"
#include "snodo-wire-private.h"

/*
 * The part of SnodoServer's API that advertises extensions (the
 * "extensions" capability; the catalog keeps them and
 * snodo-server-methods.c puts them in the initialize and server/discover
 * results), and the MCP Apps helper built on it: a tool linked to a ui://
 * resource that serves the application's HTML. Used from the main context
 * the server was made in.
 */

/**
 * snodo_server_add_extension:
 * @self: a server
 * @name: the extension's identifier, such as `io.modelcontextprotocol/ui`
 *   or `com.example/my-extension`
 * @settings: (nullable): the extension's settings, a JSON object, or %NULL
 *   for none (`{}`)
 * @error: return location for an error
 *
 * Advertises an extension of MCP: the server's capabilities gain
 * `"extensions": {name: settings}`, in the result of `initialize` (every
 * protocol version of that era) and of `server/discover` (2026-07-28).
 * Extensions are advertised in the order they were added. A copy of
 * @settings is kept.
 *
 * Clients learn of an extension when they ask for the capabilities: MCP has
 * no notification of a change of capabilities, so an extension added or
 * removed while clients are connected is seen by the next `initialize` or
 * `server/discover`, and by no client that asked before.
 *
 * Registering an extension only advertises it; what the extension means is
 * up to the application (or to the helper that registered it, such as
 * [method@Snodo.Server.add_app]). Whether a client supports an extension
 * is in the `extensions` of its capabilities
 * ([method@Snodo.Invocation.dup_client_capabilities]).
 *
 * Returns: %TRUE if the extension was added; %FALSE if @name is not an
 *   identifier (a prefix of dot-separated labels, a slash and a name), or
 *   is taken, or @settings is not an object
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_extension (SnodoServer  *self,
                            const char   *name,
                            JsonNode     *settings,
                            GError      **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return snodo_catalog_add_extension (snodo_server_get_catalog (self), name, settings, error);
}

/**
 * snodo_server_remove_extension:
 * @self: a server
 * @name: the extension's identifier
 *
 * Stops advertising an extension (see [method@Snodo.Server.add_extension]
 * for when clients see it).
 *
 * Returns: %TRUE if an extension of that name was removed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_extension (SnodoServer *self,
                               const char  *name)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  return snodo_catalog_remove_extension (snodo_server_get_catalog (self), name);
}

/**
 * snodo_server_get_extension:
 * @self: a server
 * @name: the extension's identifier
 *
 * Gets the settings of an extension the server advertises.
 *
 * Returns: (transfer none) (nullable): the settings, a sealed JSON object,
 *   or %NULL if the extension is not advertised
 *
 * Since: 0.1
 */
JsonNode *
snodo_server_get_extension (SnodoServer *self,
                            const char  *name)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  return snodo_catalog_get_extension (snodo_server_get_catalog (self), name);
}

/* ---- MCP Apps ------------------------------------------------------------ */

/* What the read of a view answers with. */
typedef struct
{
  char     *html;
  /* The content's _meta ({"ui": …}), or NULL. Sealed. */
  JsonNode *meta;
} AppView;

static void
app_view_free (gpointer data)
{
  AppView *view = data;

  g_free (view->html);
  g_clear_pointer (&view->meta, json_node_unref);
  g_free (view);
}

static void
app_view_read_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  AppView *view = user_data;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object = json_object_new ();
  JsonArray *contents = json_array_new ();
  JsonObject *content = json_object_new ();

  json_object_set_string_member (content, "uri", snodo_invocation_get_uri (invocation));
  json_object_set_string_member (content, "mimeType", SNODO_APP_MIME_TYPE);
  json_object_set_string_member (content, "text", view->html);
  if (view->meta != NULL)
    json_object_set_member (content, "_meta", json_node_copy (view->meta));
  json_array_add_object_element (contents, content);
  json_object_set_array_member (object, "contents", contents);
  result = snodo_json_node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

static gboolean
is_string_array (JsonNode *node)
{
  JsonArray *array;

  if (!JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  array = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (array); i++)
    if (!snodo_json_node_is_string (json_array_get_element (array, i)))
      return FALSE;
  return TRUE;
}

/* Checks one member of the @ui given to snodo_server_add_app(); NULL if it
 * is fine, else why not. */
static const char *
check_ui_member (const char *name,
                 JsonNode   *value)
{
  if (g_str_equal (name, "csp"))
    {
      static const char * const lists[] = { "connectDomains", "resourceDomains", "frameDomains",
                                            "baseUriDomains", NULL };

      if (!JSON_NODE_HOLDS_OBJECT (value))
        return _("“csp” must be an object");
      for (guint i = 0; lists[i] != NULL; i++)
        {
          JsonNode *list = json_object_get_member (json_node_get_object (value), lists[i]);

          if (list != NULL && !is_string_array (list))
            return _("the domains of “csp” must be arrays of strings");
        }
      return NULL;
    }
  if (g_str_equal (name, "permissions"))
    {
      JsonObjectIter iter;
      const char *permission;
      JsonNode *member;

      if (!JSON_NODE_HOLDS_OBJECT (value))
        return _("“permissions” must be an object");
      json_object_iter_init (&iter, json_node_get_object (value));
      while (json_object_iter_next (&iter, &permission, &member))
        if (!JSON_NODE_HOLDS_OBJECT (member))
          return _("every permission must be an object, such as “camera”: {}");
      return NULL;
    }
  if (g_str_equal (name, "domain"))
    return snodo_json_node_is_string (value) ? NULL : _("“domain” must be a string");
  if (g_str_equal (name, "prefersBorder"))
    return JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN ?
           NULL : _("“prefersBorder” must be true or false");
  if (g_str_equal (name, "visibility"))
    {
      JsonArray *array;
      gboolean seen_model = FALSE, seen_app = FALSE;

      if (!is_string_array (value) || json_array_get_length (json_node_get_array (value)) == 0)
        return _("“visibility” must be a non-empty array of “model” and “app”");
      array = json_node_get_array (value);
      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          const char *who = json_array_get_string_element (array, i);
          gboolean *seen = g_str_equal (who, "model") ? &seen_model : g_str_equal (who, "app") ? &seen_app : NULL;

          if (seen == NULL || *seen)
            return _("“visibility” must be a non-empty array of “model” and “app”");
          *seen = TRUE;
        }
      return NULL;
    }
  return _("it may only have “csp”, “permissions”, “domain”, “prefersBorder” and “visibility”");
}

/* A copy of @meta (a JSON object, or NULL) whose "ui" member (made if
 * missing, left out if it stays empty) has the members of @ui named in
 * @names. NULL, with @error set, if @meta has a "ui" that is not an
 * object. */
static JsonNode *
merge_ui (JsonNode           *meta,
          JsonObject         *ui,
          const char * const *names,
          const char         *owner,
          GError            **error)
{
  g_autoptr(JsonObject) merged = json_object_new ();
  JsonObject *merged_ui;
  JsonNode *old_ui = NULL;

  if (meta != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (meta));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        json_object_set_member (merged, name, json_node_copy (member));
      old_ui = json_object_get_member (merged, "ui");
    }
  if (old_ui != NULL && !JSON_NODE_HOLDS_OBJECT (old_ui))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The _meta of “%s” has a “ui” that is not an object"), owner);
      return NULL;
    }

  merged_ui = json_object_new ();
  if (old_ui != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, json_node_get_object (old_ui));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        json_object_set_member (merged_ui, name, json_node_copy (member));
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      JsonNode *value = ui != NULL ? json_object_get_member (ui, names[i]) : NULL;

      if (value != NULL)
        json_object_set_member (merged_ui, names[i], json_node_copy (value));
    }
  if (json_object_get_size (merged_ui) > 0)
    json_object_set_object_member (merged, "ui", merged_ui);
  else
    {
      json_object_remove_member (merged, "ui");
      json_object_unref (merged_ui);
    }
  return snodo_json_node_take_object (g_steal_pointer (&merged));
}

/**
 * snodo_server_add_app:
 * @self: a server
 * @tool: the tool whose results the view shows; added to @self before or
 *   after, with [method@Snodo.Server.add_tool]
 * @resource: the view's description: a resource whose URI has the scheme
 *   `ui:`, such as `ui://my-app/chart`, and whose MIME type is unset or
 *   `text/html;profile=mcp-app`
 * @html: the view, an HTML document, served as the resource's text
 * @ui: (nullable): the view's settings, a JSON object of the `_meta.ui`
 *   members of MCP Apps: `csp` (an object of the arrays of origins
 *   `connectDomains`, `resourceDomains`, `frameDomains` and
 *   `baseUriDomains`), `permissions` (an object such as `{"camera": {},
 *   "clipboardWrite": {}}`), `domain` (a string, as the host documents
 *   it), `prefersBorder` (a boolean) and `visibility` (an array of
 *   `"model"` and `"app"`), or %NULL for none
 * @error: return location for an error
 *
 * Gives @tool a view, as the MCP Apps extension (`io.modelcontextprotocol/ui`)
 * describes it: a client that supports the extension renders the tool's
 * results in @html, in a sandboxed frame; other clients use the tool as any
 * other, so its results should still say what they mean in text.
 *
 * - @resource is given the MIME type `text/html;profile=mcp-app`, and
 *   `csp`, `permissions`, `domain` and `prefersBorder` of @ui in its
 *   `_meta.ui`; it is added to @self, and every read of it answers @html
 *   with that `_meta` as well, where hosts read it.
 * - @tool's `_meta.ui` gets `resourceUri`, the URI of @resource, and the
 *   `visibility` of @ui if it has one (`["app"]` keeps the tool from the
 *   model, for what only the view calls). If @tool is already offered by
 *   @self, clients are told that the list of tools changed.
 * - The extension `io.modelcontextprotocol/ui` is advertised, with no
 *   settings, unless it already is (see
 *   [method@Snodo.Server.add_extension]).
 *
 * What the `_meta` of @tool and @resource already holds is kept; the
 * members above are set in it. A client tells whether it supports views in
 * its capabilities: `extensions["io.modelcontextprotocol/ui"].mimeTypes`.
 *
 * ```c
 * g_autoptr(SnodoTool) tool = snodo_tool_new ("clock", "Tells the time");
 * g_autoptr(SnodoResource) view = snodo_resource_new ("ui://my-app/clock", "clock-view");
 *
 * snodo_server_add_tool (server, tool, clock_cb, NULL, NULL, NULL);
 * snodo_server_add_app (server, tool, view, "<!DOCTYPE html><html>…</html>", NULL, &error);
 * ```
 *
 * In Python, @ui is a dict:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * tool = Snodo.Tool.new('clock', 'Tells the time')
 * server.add_tool(tool, lambda invocation: invocation.return_text('12:00'))
 * view = Snodo.Resource.new('ui://my-app/clock', 'clock-view')
 * html = '<!DOCTYPE html><html><body>The time</body></html>'
 * server.add_app(tool, view, html, {'prefersBorder': True,
 *                                   'csp': {'connectDomains': ['https://api.example.com']}})
 *
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * loop = GLib.MainLoop()
 * transport.connect('closed', lambda *_: loop.quit())
 * transport.start()
 * loop.run()
 * ```
 *
 * Returns: %TRUE if the view was added; %FALSE if @ui or the `_meta.ui`
 *   of @tool or @resource is not valid, the URI of @resource is not a
 *   `ui:` URI, its MIME type is another, or it cannot be added (see
 *   [method@Snodo.Server.add_resource]); then nothing changed
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_app (SnodoServer    *self,
                      SnodoTool      *tool,
                      SnodoResource  *resource,
                      const char     *html,
                      JsonNode       *ui,
                      GError        **error)
{
  static const char * const resource_members[] = { "csp", "permissions", "domain", "prefersBorder", NULL };
  static const char * const tool_members[] = { "resourceUri", "visibility", NULL };
  SnodoDescription *tool_description;
  SnodoDescription *resource_description;
  g_autoptr(JsonNode) old_resource_meta = NULL;
  g_autoptr(JsonNode) resource_meta = NULL;
  g_autoptr(JsonNode) tool_meta = NULL;
  g_autoptr(JsonObject) tool_ui = NULL;
  g_autofree char *old_mime_type = NULL;
  const char *uri;
  const char *scheme;
  AppView *view;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_TOOL (tool), FALSE);
  g_return_val_if_fail (SNODO_IS_RESOURCE (resource), FALSE);
  g_return_val_if_fail (html != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  tool_description = SNODO_DESCRIPTION (tool);
  resource_description = SNODO_DESCRIPTION (resource);
  uri = snodo_resource_get_uri (resource);
  scheme = uri != NULL ? g_uri_peek_scheme (uri) : NULL;
  if (g_strcmp0 (scheme, "ui") != 0)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The view of an MCP App must be a resource of a “ui://” URI, not “%s”"),
                   uri != NULL ? uri : "");
      return FALSE;
    }
  if (snodo_resource_get_mime_type (resource) != NULL &&
      !g_str_equal (snodo_resource_get_mime_type (resource), SNODO_APP_MIME_TYPE))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The view “%s” of an MCP App must have the MIME type %s, not “%s”"),
                   uri, SNODO_APP_MIME_TYPE, snodo_resource_get_mime_type (resource));
      return FALSE;
    }
  if (ui != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      if (!JSON_NODE_HOLDS_OBJECT (ui))
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The settings of the view “%s” are not valid: they must be a JSON object"), uri);
          return FALSE;
        }
      json_object_iter_init (&iter, json_node_get_object (ui));
      while (json_object_iter_next (&iter, &name, &member))
        {
          const char *why = check_ui_member (name, member);

          if (why != NULL)
            {
              g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The settings of the view “%s” are not valid: %s"), uri, why);
              return FALSE;
            }
        }
    }

  /* What the tool and the resource will be, before anything changes. */
  tool_ui = json_object_new ();
  json_object_set_string_member (tool_ui, "resourceUri", uri);
  if (ui != NULL && json_object_has_member (json_node_get_object (ui), "visibility"))
    json_object_set_member (tool_ui, "visibility",
                            json_node_copy (json_object_get_member (json_node_get_object (ui), "visibility")));
  tool_meta = merge_ui (snodo_description_get_meta (tool_description), tool_ui, tool_members,
                        snodo_tool_get_name (tool) != NULL ? snodo_tool_get_name (tool) : "", error);
  if (tool_meta == NULL)
    return FALSE;
  resource_meta = merge_ui (snodo_description_get_meta (resource_description),
                            ui != NULL ? json_node_get_object (ui) : NULL, resource_members, uri, error);
  if (resource_meta == NULL)
    return FALSE;

  /* The resource, served with its _meta.ui; put back as it was if it is
   * refused. */
  old_resource_meta = snodo_description_get_meta (resource_description) != NULL ?
                      json_node_ref (snodo_description_get_meta (resource_description)) : NULL;
  old_mime_type = g_strdup (snodo_resource_get_mime_type (resource));
  snodo_resource_set_mime_type (resource, SNODO_APP_MIME_TYPE);
  snodo_description_set_meta (resource_description,
                              json_object_get_size (json_node_get_object (resource_meta)) > 0 ? resource_meta : NULL);

  view = g_new0 (AppView, 1);
  view->html = g_strdup (html);
  if (json_object_has_member (json_node_get_object (resource_meta), "ui"))
    {
      JsonObject *content_meta = json_object_new ();

      json_object_set_member (content_meta, "ui",
                              json_node_copy (json_object_get_member (json_node_get_object (resource_meta), "ui")));
      view->meta = snodo_json_node_take_object (content_meta);
      json_node_seal (view->meta);
    }
  if (!snodo_server_add_resource (self, resource, app_view_read_cb, view, app_view_free, error))
    {
      snodo_description_set_meta (resource_description, old_resource_meta);
      snodo_resource_set_mime_type (resource, old_mime_type);
      return FALSE;
    }

  snodo_description_set_meta (tool_description, tool_meta);
  if (snodo_tool_get_name (tool) != NULL && snodo_server_lookup_tool (self, snodo_tool_get_name (tool)) == tool)
    snodo_server_notify_tools_changed (self);
  if (snodo_server_get_extension (self, SNODO_APP_EXTENSION) == NULL &&
      !snodo_server_add_extension (self, SNODO_APP_EXTENSION, NULL, error))
    g_return_val_if_reached (FALSE);
  return TRUE;
}
