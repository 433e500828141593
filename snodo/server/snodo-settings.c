/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "snodo-settings.h"
#include "snodo-invocation.h"
#include "snodo-resource.h"
#include "snodo-tool.h"

#include "snodo-base-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

/*
 * A GSettings served as resources (introspection/settings.md): each key the
 * resource `settings://SCHEMA-ID/KEY`, its value as JSON by the mapping of
 * introspection/actions.md, and with SNODO_SETTINGS_FLAGS_WRITABLE the tool
 * `SCHEMA-ID.set-KEY`. The binding follows the settings' `changed` signal
 * for as long as the server lives: it is kept on the server (object data),
 * and holds the settings. Used from the server's main context.
 */

/* What one resource or tool needs; owned by it. */
typedef struct
{
  GSettings          *settings;  /* owned */
  GSettingsSchemaKey *key;       /* owned */
  char               *name;      /* the key's name */
} SettingsKey;

typedef struct
{
  SnodoServer     *server;      /* unowned: the server owns the binding */
  GSettings       *settings;    /* owned */
  GSettingsSchema *schema;      /* owned */
  GHashTable      *uris;        /* key → its resource's URI, for the offered keys */
  GHashTable      *tools;       /* the names of the setter tools offered */
  gulong           changed_id;
} SettingsBinding;

static void
settings_key_free (gpointer data)
{
  SettingsKey *key = data;

  g_object_unref (key->settings);
  g_settings_schema_key_unref (key->key);
  g_free (key->name);
  g_free (key);
}

static SettingsKey *
settings_key_new (SettingsBinding *binding,
                  const char      *name)
{
  SettingsKey *key = g_new0 (SettingsKey, 1);

  key->settings = g_object_ref (binding->settings);
  key->key = g_settings_schema_get_key (binding->schema, name);
  key->name = g_strdup (name);
  return key;
}

static void
settings_binding_free (gpointer data)
{
  SettingsBinding *binding = data;

  g_clear_signal_handler (&binding->changed_id, binding->settings);
  g_object_unref (binding->settings);
  g_settings_schema_unref (binding->schema);
  g_hash_table_unref (binding->uris);
  g_hash_table_unref (binding->tools);
  g_free (binding);
}

static void
settings_binding_read_cb (SnodoInvocation *invocation,
                          gpointer         user_data)
{
  SettingsKey *key = user_data;
  g_autoptr(GVariant) value = g_settings_get_value (key->settings, key->name);
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  json = snodo_variant_to_json (value, &error);
  if (json == NULL)
    {
      g_prefix_error (&error, _("Setting “%s”: "), key->name);
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  text = json_to_string (json, FALSE);
  snodo_invocation_return_resource_text (invocation, snodo_invocation_get_uri (invocation),
                                         "application/json", text);
}

static void
settings_binding_set_cb (SnodoInvocation *invocation,
                         gpointer         user_data)
{
  SettingsKey *key = user_data;
  const GVariantType *type = g_settings_schema_key_get_value_type (key->key);
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  JsonNode *node = arguments != NULL ? json_object_get_member (arguments, "value") : NULL;
  g_autoptr(GVariant) value = NULL;
  g_autoptr(GError) error = NULL;

  if (node == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Setting “%s”: /value: is required"), key->name);

      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
      return;
    }
  value = snodo_variant_from_json (type, node, "/value", &error);
  if (value == NULL)
    {
      g_prefix_error (&error, _("Setting “%s”: "), key->name);
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  if (!g_settings_schema_key_range_check (key->key, value))
    {
      g_autofree char *text = g_variant_print (value, FALSE);
      g_autofree char *message = g_strdup_printf (_("Setting “%s”: %s is not one of the values it takes"),
                                                  key->name, text);

      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
      return;
    }
  if (!g_settings_is_writable (key->settings, key->name) ||
      !g_settings_set_value (key->settings, key->name, value))
    {
      g_autofree char *message = g_strdup_printf (_("Setting “%s” is not writable"), key->name);

      snodo_invocation_return_tool_error (invocation, message);
      return;
    }
  snodo_invocation_return_text (invocation, "");
}

/* The JSON Schema of @key's values: its type's, narrowed to its range or
 * choices, described by its summary, with its default. */
static JsonNode *
settings_binding_value_schema (GSettingsSchemaKey  *key,
                               GError             **error)
{
  g_autoptr(GVariant) range = g_settings_schema_key_get_range (key);
  g_autoptr(GVariant) detail = NULL;
  g_autoptr(GVariant) fallback = g_settings_schema_key_get_default_value (key);
  const char *kind = NULL;
  const char *summary = g_settings_schema_key_get_summary (key);
  JsonNode *schema;
  JsonObject *object;
  JsonNode *json;

  schema = snodo_variant_type_to_schema (g_settings_schema_key_get_value_type (key), error);
  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    return schema;
  object = json_node_get_object (schema);
  g_variant_get (range, "(&sv)", &kind, &detail);
  if (g_str_equal (kind, "enum") || g_str_equal (kind, "flags"))
    {
      JsonArray *choices = json_array_new ();
      GVariantIter iter;
      const char *choice;

      g_variant_iter_init (&iter, detail);
      while (g_variant_iter_next (&iter, "&s", &choice))
        json_array_add_string_element (choices, choice);
      if (g_str_equal (kind, "enum"))
        json_object_set_array_member (object, "enum", choices);
      else
        {
          JsonObject *items = json_object_new ();

          json_object_set_string_member (items, "type", "string");
          json_object_set_array_member (items, "enum", choices);
          json_object_set_object_member (object, "items", items);
          json_object_set_boolean_member (object, "uniqueItems", TRUE);
        }
    }
  else if (g_str_equal (kind, "range"))
    {
      g_autoptr(GVariant) low = g_variant_get_child_value (detail, 0);
      g_autoptr(GVariant) high = g_variant_get_child_value (detail, 1);
      g_autoptr(JsonNode) minimum = snodo_variant_to_json (low, NULL);
      g_autoptr(JsonNode) maximum = snodo_variant_to_json (high, NULL);

      if (minimum != NULL && maximum != NULL)
        {
          json_object_set_member (object, "minimum", g_steal_pointer (&minimum));
          json_object_set_member (object, "maximum", g_steal_pointer (&maximum));
        }
    }
  if (summary != NULL)
    json_object_set_string_member (object, "description", summary);
  json = snodo_variant_to_json (fallback, NULL);
  if (json != NULL)
    json_object_set_member (object, "default", json);
  return schema;
}

/* Offers @name as a tool that sets it, if its type has a JSON Schema. */
static gboolean
settings_binding_offer_setter (SettingsBinding  *binding,
                               const char       *name,
                               GError          **error)
{
  g_autoptr(GSettingsSchemaKey) key = g_settings_schema_get_key (binding->schema, name);
  g_autoptr(SnodoTool) tool = NULL;
  g_autofree char *tool_name = NULL;
  g_autofree char *description = NULL;
  const char *summary = g_settings_schema_key_get_summary (key);
  const char *about = g_settings_schema_key_get_description (key);
  JsonObject *input = NULL;
  JsonObject *properties;
  JsonArray *required;
  JsonNode *value;

  value = settings_binding_value_schema (key, error);
  if (value == NULL)
    {
      g_prefix_error (error, _("Setting “%s”: "), name);
      return FALSE;
    }
  input = json_object_new ();
  properties = json_object_new ();
  required = json_array_new ();
  json_object_set_string_member (input, "type", "object");
  json_object_set_member (properties, "value", value);
  json_object_set_object_member (input, "properties", properties);
  json_array_add_string_element (required, "value");
  json_object_set_array_member (input, "required", required);
  json_object_set_boolean_member (input, "additionalProperties", FALSE);

  tool_name = g_strconcat (g_settings_schema_get_id (binding->schema), ".set-", name, NULL);
  description = g_strdup_printf (_("Sets the setting “%s”%s%s%s%s"), name,
                                 summary != NULL ? ": " : "", summary != NULL ? summary : "",
                                 about != NULL ? "\n\n" : "", about != NULL ? about : "");
  tool = snodo_tool_new (tool_name, description);
  if (summary != NULL)
    snodo_tool_set_title (tool, summary);
  {
    g_autoptr(JsonNode) schema = snodo_json_node_take_object (input);

    if (!snodo_tool_set_input_schema (tool, schema, error))
      return FALSE;
  }
  if (!snodo_server_add_tool (binding->server, tool, settings_binding_set_cb,
                              settings_key_new (binding, name), settings_key_free, error))
    return FALSE;
  g_hash_table_add (binding->tools, g_steal_pointer (&tool_name));
  return TRUE;
}

static gboolean
settings_binding_offer (SettingsBinding     *binding,
                        const char          *name,
                        SnodoSettingsFlags   flags,
                        GError             **error)
{
  g_autoptr(GSettingsSchemaKey) key = NULL;
  g_autoptr(SnodoResource) resource = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *uri = NULL;
  const char *summary;
  const char *about;

  if (!g_settings_schema_has_key (binding->schema, name))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED, _("The schema “%s” has no key “%s”"),
                   g_settings_schema_get_id (binding->schema), name);
      return FALSE;
    }
  key = g_settings_schema_get_key (binding->schema, name);
  summary = g_settings_schema_key_get_summary (key);
  about = g_settings_schema_key_get_description (key);
  uri = g_strconcat ("settings://", g_settings_schema_get_id (binding->schema), "/", name, NULL);
  resource = snodo_resource_new (uri, name);
  if (summary != NULL)
    snodo_resource_set_title (resource, summary);
  if (about != NULL || summary != NULL)
    snodo_resource_set_description (resource, about != NULL ? about : summary);
  snodo_resource_set_mime_type (resource, "application/json");
  if (!snodo_server_add_resource (binding->server, resource, settings_binding_read_cb,
                                  settings_key_new (binding, name), settings_key_free, error))
    return FALSE;
  g_hash_table_insert (binding->uris, g_strdup (name), g_strdup (uri));
  if ((flags & SNODO_SETTINGS_FLAGS_WRITABLE) != 0 && !settings_binding_offer_setter (binding, name, &local))
    {
      /* A type without a schema: read, not set. */
      if (!g_error_matches (local, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA))
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      g_debug ("Setting “%s” is not offered as a tool: %s", name, local->message);
    }
  return TRUE;
}

static void
settings_binding_changed_cb (GSettings  *settings,
                             const char *name,
                             gpointer    user_data)
{
  SettingsBinding *binding = user_data;
  const char *uri = g_hash_table_lookup (binding->uris, name);

  if (uri != NULL)
    snodo_server_notify_resource_updated (binding->server, uri);
}

static int
settings_binding_compare (const void *a,
                          const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* Takes back what @binding offered before a refusal. */
static void
settings_binding_withdraw (SettingsBinding *binding)
{
  GHashTableIter iter;
  gpointer name;
  gpointer uri;

  g_hash_table_iter_init (&iter, binding->uris);
  while (g_hash_table_iter_next (&iter, NULL, &uri))
    snodo_server_remove_resource (binding->server, uri);
  g_hash_table_iter_init (&iter, binding->tools);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    snodo_server_remove_tool (binding->server, name);
}

/**
 * snodo_server_add_settings:
 * @self: a server
 * @settings: the settings to offer
 * @keys: (nullable) (array zero-terminated=1): the keys to offer, or %NULL
 *   for all the keys of the settings' schema
 * @flags: whether the keys can be set too
 * @error: return location for an error
 *
 * Offers the keys of @settings by the "Settings as resources" page: each
 * key is the resource `settings://SCHEMA-ID/KEY`, of MIME type
 * `application/json`, whose text is the key's value as JSON (mapped like
 * the state of an action), whose title is the key's summary and whose
 * description its description. The server follows @settings for as long
 * as it lives: when a key changes, whoever changed it, clients that
 * subscribed to it are sent `notifications/resources/updated`, in every
 * protocol version.
 *
 * With %SNODO_SETTINGS_FLAGS_WRITABLE each key is also the tool
 * `SCHEMA-ID.set-KEY`, whose input is `{"value": …}`: the key's type as
 * JSON Schema, narrowed to its range or its enumeration's or flags'
 * choices, described by its summary. A call sets the key; a value outside
 * its range is refused with error -32602, and a key that is not writable
 * (locked down) with a failed tool result, both naming the key.
 *
 * Keys of a type that has no JSON Schema (holding a `v` or an `h`) are
 * offered as resources but not as tools.
 *
 * Returns: %TRUE if the keys are offered; %FALSE if a key named in @keys
 *   is not in the schema, or a resource or tool of the same name is
 *   already offered (nothing is offered then)
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_settings (SnodoServer         *self,
                           GSettings           *settings,
                           const char * const  *keys,
                           SnodoSettingsFlags   flags,
                           GError             **error)
{
  SettingsBinding *binding;
  g_auto(GStrv) names = NULL;
  g_autofree char *data_key = NULL;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (G_IS_SETTINGS (settings), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  binding = g_new0 (SettingsBinding, 1);
  binding->server = self;
  binding->settings = g_object_ref (settings);
  g_object_get (settings, "settings-schema", &binding->schema, NULL);
  binding->uris = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  binding->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  if (keys != NULL)
    names = g_strdupv ((char **) keys);
  else
    {
      names = g_settings_schema_list_keys (binding->schema);
      /* Listed in the order of their names, not of a hash table. */
      qsort (names, g_strv_length (names), sizeof (char *), settings_binding_compare);
    }
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;

      if (settings_binding_offer (binding, names[i], flags, &local))
        continue;
      settings_binding_withdraw (binding);
      settings_binding_free (binding);
      g_propagate_error (error, g_steal_pointer (&local));
      return FALSE;
    }

  binding->changed_id = g_signal_connect (settings, "changed", G_CALLBACK (settings_binding_changed_cb), binding);
  data_key = g_strdup_printf ("snodo-settings-%p", (gpointer) binding);
  g_object_set_data_full (G_OBJECT (self), data_key, binding, settings_binding_free);
  return TRUE;
}
