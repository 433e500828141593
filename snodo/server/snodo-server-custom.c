/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-wire-private.h"

/*
 * What an application adds to the protocol: methods of its own (requests
 * and notifications outside MCP's names), served like MCP's methods by the
 * dispatch of snodo-server.c (admission, deadlines, hooks, one answer), and
 * what serverInfo says of the server beyond its name, version and title,
 * with the MCP Registry's server.json made from it.
 */

struct _SnodoCustomMethod
{
  /* What the dispatch sees: name is the entry's own. */
  SnodoMethod            method;
  char                  *name;
  /* The params' schema, sealed, or NULL. */
  JsonNode              *params_schema;
  SnodoToolFunc          func;
  SnodoNotificationFunc  notification_func;
  gpointer               user_data;
  GDestroyNotify         destroy;
};

static void
snodo_custom_method_free (SnodoCustomMethod *self)
{
  if (self->destroy != NULL)
    self->destroy (self->user_data);
  g_clear_pointer (&self->params_schema, json_node_unref);
  g_free (self->name);
  g_free (self);
}

/* The first segments of MCP's own method names, now and in the versions
 * Snodo knows. */
static const char * const mcp_namespaces[] = {
  "initialize", "ping", "notifications", "tools", "resources", "prompts", "completion", "logging",
  "sampling", "roots", "elicitation", "tasks", "server", "subscriptions", "skills", NULL,
};

static gboolean
segment_is_valid (const char *segment,
                  gsize       len)
{
  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      char c = segment[i];

      if (!g_ascii_isalnum (c) && c != '.' && c != '_' && c != '-')
        return FALSE;
    }
  return TRUE;
}

/* Whether @name may be an application's method: `vendor/name` (segments
 * of letters, digits, '.', '_' and '-', at least two), not in one of MCP's
 * namespaces nor under a reserved prefix (a first segment whose second
 * label is "modelcontextprotocol" or "mcp"). */
static gboolean
check_method_name (const char  *name,
                   GError     **error)
{
  const char *slash = strchr (name, '/');
  const char *p = name;
  g_autofree char *first = NULL;
  g_auto(GStrv) labels = NULL;

  if (slash == NULL)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The method name “%s” has no prefix (vendor/name)"), name);
      return FALSE;
    }
  while (TRUE)
    {
      const char *end = strchr (p, '/');
      gsize len = end != NULL ? (gsize) (end - p) : strlen (p);

      if (!segment_is_valid (p, len))
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                       _("The method name “%s” is not of the form vendor/name"), name);
          return FALSE;
        }
      if (end == NULL)
        break;
      p = end + 1;
    }

  first = g_strndup (name, slash - name);
  labels = g_strsplit (first, ".", -1);
  if (g_strv_contains (mcp_namespaces, first) ||
      (labels[0] != NULL && labels[1] != NULL &&
       (g_str_equal (labels[1], "modelcontextprotocol") || g_str_equal (labels[1], "mcp"))))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("The method name “%s” belongs to MCP"), name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
snodo_server_add_custom (SnodoServer           *self,
                         gboolean               notification,
                         gboolean               builtin,
                         const char            *method,
                         JsonNode              *params_schema,
                         SnodoToolFunc          func,
                         SnodoNotificationFunc  notification_func,
                         gpointer               user_data,
                         GDestroyNotify         destroy,
                         GError               **error)
{
  SnodoServerCustom *custom = snodo_server_get_custom (self);
  GHashTable **table = notification ? &custom->notifications : &custom->requests;
  SnodoCustomMethod *entry;
  gboolean taken;

  if (!builtin && !check_method_name (method, error))
    goto fail;
  if (params_schema != NULL)
    {
      if (!JSON_NODE_HOLDS_OBJECT (params_schema))
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The params schema of “%s” is not an object"), method);
          goto fail;
        }
      /* Checked once, so that a broken schema is an error now rather than
       * -32602 on every request. */
      {
        g_autoptr(JsonObject) empty = json_object_new ();
        g_autoptr(GError) local_error = NULL;

        if (!snodo_schema_validate_object (params_schema, empty, &local_error) &&
            g_error_matches (local_error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA))
          {
            g_propagate_error (error, g_steal_pointer (&local_error));
            goto fail;
          }
      }
    }

  g_mutex_lock (&custom->lock);
  taken = *table != NULL && g_hash_table_contains (*table, method);
  if (!taken)
    {
      if (*table == NULL)
        *table = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                        (GDestroyNotify) snodo_custom_method_free);
      entry = g_new0 (SnodoCustomMethod, 1);
      entry->name = g_strdup (method);
      entry->method.name = entry->name;
      entry->method.id = SNODO_N_METHODS;
      entry->method.flags = SNODO_METHOD_FLAGS_HANDLER;
      entry->method.needs = SNODO_NEEDS_NOTHING;
      if (params_schema != NULL)
        {
          entry->params_schema = json_node_copy (params_schema);
          json_node_seal (entry->params_schema);
        }
      entry->func = func;
      entry->notification_func = notification_func;
      entry->user_data = user_data;
      entry->destroy = destroy;
      g_hash_table_insert (*table, entry->name, entry);
    }
  g_mutex_unlock (&custom->lock);

  if (taken)
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("The method “%s” is already added"), method);
      goto fail;
    }
  return TRUE;

fail:
  if (destroy != NULL)
    destroy (user_data);
  return FALSE;
}

/**
 * snodo_server_add_method:
 * @self: a server
 * @method: the method's name, `vendor/name`
 * @params_schema: (nullable): a JSON Schema its params must fit, or %NULL
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the server goes, or at once
 *   when the method cannot be added
 * @error: return location for a #GError
 *
 * Serves a request method of the application's own, in every protocol
 * version, as the server serves MCP's: admitted by the transport's
 * executor, under the handler timeout, seen by the request hooks, answered
 * once through its [class@Snodo.Invocation] (with
 * [method@Snodo.Invocation.return_result] or an error).
 *
 * The name has a prefix of the application's, `vendor/name` (segments of
 * letters, digits, `.`, `_` and `-`). MCP's names (`tools/…`,
 * `notifications/…`, `ping`…) and the prefixes MCP reserves
 * (`io.modelcontextprotocol/…`) cannot be taken. A request whose params
 * (without `_meta`) do not fit @params_schema is answered `-32602` without
 * reaching @func. A method that was not added is still answered `-32601`.
 *
 * Returns: whether the method was added
 */
gboolean
snodo_server_add_method (SnodoServer    *self,
                         const char     *method,
                         JsonNode       *params_schema,
                         SnodoToolFunc   func,
                         gpointer        user_data,
                         GDestroyNotify  destroy,
                         GError        **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (method != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return snodo_server_add_custom (self, FALSE, FALSE, method, params_schema, func, NULL, user_data, destroy, error);
}

/* A method of an extension the library serves itself, such as skills/list:
 * served as an application's, though its name is MCP's. */
gboolean
snodo_server_add_builtin_method (SnodoServer    *self,
                                 const char     *method,
                                 JsonNode       *params_schema,
                                 SnodoToolFunc   func,
                                 gpointer        user_data,
                                 GDestroyNotify  destroy,
                                 GError        **error)
{
  return snodo_server_add_custom (self, FALSE, TRUE, method, params_schema, func, NULL, user_data, destroy, error);
}

/**
 * snodo_server_add_notification_handler:
 * @self: a server
 * @method: the notification's name, `vendor/name`
 * @params_schema: (nullable): a JSON Schema its params must fit, or %NULL
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data when the server goes, or at once
 *   when the handler cannot be added
 * @error: return location for a #GError
 *
 * Hands the notifications of a method of the application's own to @func,
 * on the server's main context, as they come. Names follow the rules of
 * [method@Snodo.Server.add_method]. A notification is never answered: one
 * whose params do not fit @params_schema, or of a method no handler was
 * added for, is dropped.
 *
 * Returns: whether the handler was added
 */
gboolean
snodo_server_add_notification_handler (SnodoServer           *self,
                                       const char            *method,
                                       JsonNode              *params_schema,
                                       SnodoNotificationFunc  func,
                                       gpointer               user_data,
                                       GDestroyNotify         destroy,
                                       GError               **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (method != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  return snodo_server_add_custom (self, TRUE, FALSE, method, params_schema, NULL, func, user_data, destroy, error);
}

void
snodo_server_custom_clear (SnodoServerCustom *custom)
{
  g_clear_pointer (&custom->requests, g_hash_table_unref);
  g_clear_pointer (&custom->notifications, g_hash_table_unref);
}

static SnodoCustomMethod *
lookup (SnodoServerCustom *custom,
        GHashTable        *table,
        const char        *name)
{
  SnodoCustomMethod *entry;

  if (table == NULL)
    return NULL;
  g_mutex_lock (&custom->lock);
  entry = g_hash_table_lookup (table, name);
  g_mutex_unlock (&custom->lock);
  return entry;
}

SnodoCustomMethod *
snodo_server_lookup_custom_method (SnodoServer *self,
                                   const char  *name)
{
  SnodoServerCustom *custom = snodo_server_get_custom (self);

  return lookup (custom, custom->requests, name);
}

const SnodoMethod *
snodo_custom_method_get_method (SnodoCustomMethod *method)
{
  return &method->method;
}

/* Whether @params (without _meta) fit the method's schema. */
static gboolean
params_fit (SnodoCustomMethod  *method,
            JsonObject         *params,
            GError            **error)
{
  g_autoptr(JsonObject) plain = json_object_new ();
  g_autoptr(GError) local_error = NULL;

  if (method->params_schema == NULL)
    return TRUE;
  if (params != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init_ordered (&iter, params);
      while (json_object_iter_next_ordered (&iter, &name, &member))
        if (!g_str_equal (name, SNODO_META))
          json_object_set_member (plain, name, json_node_copy (member));
    }
  if (!snodo_schema_validate_object (method->params_schema, plain, &local_error))
    {
      g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                   _("Invalid params: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
snodo_custom_method_check_params (SnodoCustomMethod  *method,
                                  SnodoInvocation    *invocation,
                                  GError            **error)
{
  JsonNode *params = snodo_invocation_get_params (invocation);

  return params_fit (method, params != NULL && JSON_NODE_HOLDS_OBJECT (params) ? json_node_get_object (params) : NULL,
                     error);
}

void
snodo_custom_method_run (SnodoCustomMethod *method,
                         SnodoInvocation   *invocation)
{
  method->func (invocation, method->user_data);
}

void
snodo_server_dispatch_custom_notification (SnodoServer *self,
                                           SnodoFrame  *frame)
{
  SnodoServerCustom *custom = snodo_server_get_custom (self);
  SnodoCustomMethod *method = lookup (custom, custom->notifications, frame->method);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) empty = NULL;
  JsonObject *params;

  if (method == NULL)
    return;
  params = snodo_frame_get_params (frame);
  if (!params_fit (method, params, &error))
    {
      g_debug ("Dropped the notification %s: %s", frame->method, error->message);
      return;
    }
  if (params == NULL)
    params = empty = json_object_new ();
  method->notification_func (self, frame->method, params, method->user_data);
}

/**
 * snodo_invocation_notify:
 * @self: an invocation
 * @method: the notification's method
 * @params: (nullable): its params, or %NULL for none
 *
 * Sends a notification to the client while the request is being answered,
 * related to it (on HTTP, on the request's stream), in every protocol
 * version: for example one of the application's own, which a
 * [class@Snodo.Client] emits as [signal@Snodo.Client::notification].
 *
 * Returns: %FALSE if the request was already answered, so nothing was sent
 */
gboolean
snodo_invocation_notify (SnodoInvocation *self,
                         const char      *method,
                         JsonObject      *params)
{
  g_autoptr(GBytes) line = NULL;
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (method != NULL, FALSE);

  if (snodo_invocation_get_answered (self))
    return FALSE;
  node = json_node_init_object (json_node_alloc (), params != NULL ? params : json_object_new ());
  if (params == NULL)
    json_object_unref (json_node_get_object (node));
  line = snodo_frame_encode_notification (method, node);
  snodo_connection_send_related (snodo_invocation_get_connection (self), snodo_invocation_get_key (self), line,
                                 NULL, NULL);
  return TRUE;
}

/* Identity. */

void
snodo_server_identity_clear (SnodoServerIdentity *identity)
{
  g_clear_pointer (&identity->description, g_free);
  g_clear_pointer (&identity->website_url, g_free);
  g_clear_pointer (&identity->icons, json_node_unref);
}

void
snodo_server_identity_add_to_info (SnodoServerIdentity *identity,
                                   JsonObject          *info)
{
  if (identity->description != NULL)
    json_object_set_string_member (info, "description", identity->description);
  if (identity->icons != NULL)
    json_object_set_member (info, "icons", json_node_copy (identity->icons));
  if (identity->website_url != NULL)
    json_object_set_string_member (info, "websiteUrl", identity->website_url);
}

/**
 * snodo_server_get_description:
 * @self: a server
 *
 * Gets the description of serverInfo.
 *
 * Returns: (nullable): what serverInfo says the server does
 */
const char *
snodo_server_get_description (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);

  return snodo_server_get_identity (self)->description;
}

/**
 * snodo_server_set_description:
 * @self: a server
 * @description: (nullable): what the server does, in a sentence
 *
 * Sets the `description` of serverInfo, in every protocol version, and of
 * [method@Snodo.Server.dup_server_json].
 */
void
snodo_server_set_description (SnodoServer *self,
                              const char  *description)
{
  SnodoServerIdentity *identity;

  g_return_if_fail (SNODO_IS_SERVER (self));

  identity = snodo_server_get_identity (self);
  g_free (identity->description);
  identity->description = g_strdup (description);
  snodo_server_clear_stamp (self);
}

/**
 * snodo_server_get_website_url:
 * @self: a server
 *
 * Gets the website URL of serverInfo.
 *
 * Returns: (nullable): the server's website
 */
const char *
snodo_server_get_website_url (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);

  return snodo_server_get_identity (self)->website_url;
}

/**
 * snodo_server_set_website_url:
 * @self: a server
 * @website_url: (nullable): the URL of the server's website
 *
 * Sets the `websiteUrl` of serverInfo, in every protocol version, and of
 * [method@Snodo.Server.dup_server_json].
 */
void
snodo_server_set_website_url (SnodoServer *self,
                              const char  *website_url)
{
  SnodoServerIdentity *identity;

  g_return_if_fail (SNODO_IS_SERVER (self));

  identity = snodo_server_get_identity (self);
  g_free (identity->website_url);
  identity->website_url = g_strdup (website_url);
  snodo_server_clear_stamp (self);
}

/**
 * snodo_server_get_icons:
 * @self: a server
 *
 * Gets the icons of serverInfo.
 *
 * Returns: (nullable) (transfer none): the server's icons, an array
 */
JsonNode *
snodo_server_get_icons (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);

  return snodo_server_get_identity (self)->icons;
}

/**
 * snodo_server_set_icons:
 * @self: a server
 * @icons: (nullable): an array of MCP Icon objects (`src`, and optionally
 *   `mimeType`, `sizes`, `theme`)
 *
 * Sets the `icons` of serverInfo, in every protocol version, and of
 * [method@Snodo.Server.dup_server_json].
 */
void
snodo_server_set_icons (SnodoServer *self,
                        JsonNode    *icons)
{
  SnodoServerIdentity *identity;

  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (icons == NULL || JSON_NODE_HOLDS_ARRAY (icons));

  identity = snodo_server_get_identity (self);
  g_clear_pointer (&identity->icons, json_node_unref);
  if (icons != NULL)
    {
      identity->icons = json_node_copy (icons);
      json_node_seal (identity->icons);
    }
  snodo_server_clear_stamp (self);
}

#define SNODO_SERVER_JSON_SCHEMA "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

/**
 * snodo_server_dup_server_json:
 * @self: a server
 * @registry_name: the server's name in the MCP Registry, reverse-DNS with
 *   one slash (`io.github.example/my-server`)
 * @error: return location for a #GError
 *
 * Describes the server in the MCP Registry's `server.json` format (schema
 * 2025-12-11): its name, title, description, version, website and icons.
 * The description is required there: without one the server's title, or
 * its name, is used. The application adds how to get or reach the server
 * (`packages` or `remotes`) to the object before publishing it.
 *
 * Returns: (transfer full): the server.json object, or %NULL when
 *   @registry_name is not of the registry's form
 */
JsonNode *
snodo_server_dup_server_json (SnodoServer *self,
                              const char  *registry_name,
                              GError     **error)
{
  SnodoServerIdentity *identity;
  const char *slash;
  const char *description;
  JsonObject *object;
  JsonNode *node;

  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  g_return_val_if_fail (registry_name != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  identity = snodo_server_get_identity (self);
  slash = strchr (registry_name, '/');
  if (slash == NULL || slash == registry_name || slash[1] == '\0' || strchr (slash + 1, '/') != NULL ||
      strlen (registry_name) > 200 || !segment_is_valid (registry_name, slash - registry_name) ||
      !segment_is_valid (slash + 1, strlen (slash + 1)))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The registry name “%s” is not of the form namespace/name"), registry_name);
      return NULL;
    }

  description = identity->description;
  if (description == NULL)
    description = snodo_server_get_title (self) != NULL ? snodo_server_get_title (self) : snodo_server_get_name (self);

  object = json_object_new ();
  json_object_set_string_member (object, "$schema", SNODO_SERVER_JSON_SCHEMA);
  json_object_set_string_member (object, "name", registry_name);
  if (snodo_server_get_title (self) != NULL)
    json_object_set_string_member (object, "title", snodo_server_get_title (self));
  /* At most 100 characters there. */
  if (g_utf8_strlen (description, -1) > 100)
    {
      g_autofree char *cut = g_utf8_substring (description, 0, 99);
      g_autofree char *text = g_strconcat (cut, "…", NULL);

      json_object_set_string_member (object, "description", text);
    }
  else
    json_object_set_string_member (object, "description", description);
  json_object_set_string_member (object, "version", snodo_server_get_version (self));
  if (identity->website_url != NULL)
    json_object_set_string_member (object, "websiteUrl", identity->website_url);
  if (identity->icons != NULL)
    json_object_set_member (object, "icons", json_node_copy (identity->icons));

  node = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return node;
}
