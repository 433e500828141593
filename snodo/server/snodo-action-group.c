/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "snodo-action-group.h"
#include "snodo-invocation.h"
#include "snodo-resource.h"
#include "snodo-tool.h"

#include "snodo-base-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

/*
 * A GActionGroup served as tools (introspection/actions.md): each allowed,
 * enabled action whose parameter type has a JSON Schema is a tool, and each
 * allowed stateful action's state a resource. The binding follows the
 * group's signals for as long as the server lives: it is kept on the server
 * (object data), and holds the group. Used from the server's main context,
 * where the group's signals must be emitted too.
 */

/* What one tool needs to activate its action; owned by the tool. */
typedef struct
{
  GActionGroup *group;          /* owned */
  char         *action;         /* the action's name in @group */
  GVariantType *parameter_type; /* owned, nullable: the action's, or the described type of a `v` */
  gboolean      wrap_variant;   /* the action takes `v`: @parameter_type's value is boxed */
} ActionTool;

typedef struct
{
  SnodoServer  *server;         /* unowned: the server owns the binding */
  GActionGroup *group;          /* owned */
  char         *prefix;         /* nullable */
  GStrv         allowed;        /* nullable: every action */
  GVariant     *hints;          /* nullable, a{sa{sv}} */
  GHashTable   *labels;         /* tool name → label of a menu item naming it */
  GHashTable   *offered;        /* action → its tool's name, while it is a tool */
  GHashTable   *states;         /* action → its state resource's URI */
  gulong        handlers[4];
} ActionBinding;

static void
action_tool_free (gpointer data)
{
  ActionTool *tool = data;

  g_object_unref (tool->group);
  g_free (tool->action);
  if (tool->parameter_type != NULL)
    g_variant_type_free (tool->parameter_type);
  g_free (tool);
}

static void
action_binding_free (gpointer data)
{
  ActionBinding *binding = data;

  for (guint i = 0; i < G_N_ELEMENTS (binding->handlers); i++)
    g_clear_signal_handler (&binding->handlers[i], binding->group);
  g_object_unref (binding->group);
  g_free (binding->prefix);
  g_strfreev (binding->allowed);
  g_clear_pointer (&binding->hints, g_variant_unref);
  g_hash_table_unref (binding->labels);
  g_hash_table_unref (binding->offered);
  g_hash_table_unref (binding->states);
  g_free (binding);
}

static char *
action_binding_tool_name (ActionBinding *binding,
                          const char    *action)
{
  if (binding->prefix != NULL)
    return g_strconcat (binding->prefix, ".", action, NULL);
  return g_strdup (action);
}

static gboolean
action_binding_allows (ActionBinding *binding,
                       const char    *action)
{
  return binding->allowed == NULL || g_strv_contains ((const char * const *) binding->allowed, action);
}

/* The string @key of the hints of @action, or NULL. */
static char *
action_binding_hint (ActionBinding *binding,
                     const char    *action,
                     const char    *key)
{
  g_autoptr(GVariant) entry = NULL;
  char *text = NULL;

  if (binding->hints == NULL)
    return NULL;
  entry = g_variant_lookup_value (binding->hints, action, G_VARIANT_TYPE_VARDICT);
  if (entry != NULL)
    g_variant_lookup (entry, key, "s", &text);
  return text;
}

/* Collects the labels of @menu's items (and of its sections and
 * submenus) by the action they name. */
static void
action_binding_read_menu (GHashTable *labels,
                          GMenuModel *menu,
                          guint       depth)
{
  if (depth > 16)
    return;
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *action = NULL;
      g_autofree char *label = NULL;
      g_autoptr(GMenuLinkIter) links = NULL;
      const char *link_name;
      GMenuModel *link;

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &action) &&
          g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label) &&
          !g_hash_table_contains (labels, action))
        {
          /* Mnemonics are for keyboards, not for models. */
          g_autoptr(GString) plain = g_string_new (NULL);

          for (const char *c = label; *c != '\0'; c++)
            if (*c != '_' || c[1] == '_')
              g_string_append_c (plain, *c == '_' ? *++c : *c);
          g_hash_table_insert (labels, g_steal_pointer (&action), g_string_free (g_steal_pointer (&plain), FALSE));
        }
      links = g_menu_model_iterate_item_links (menu, i);
      while (g_menu_link_iter_get_next (links, &link_name, &link))
        {
          action_binding_read_menu (labels, link, depth + 1);
          g_object_unref (link);
        }
    }
}

static void
action_binding_activate_cb (SnodoInvocation *invocation,
                            gpointer         user_data)
{
  ActionTool *tool = user_data;
  g_autoptr(GVariant) parameter = NULL;
  gboolean enabled = FALSE;

  if (!g_action_group_query_action (tool->group, tool->action, &enabled, NULL, NULL, NULL, NULL) || !enabled)
    {
      g_autofree char *message = g_strdup_printf (_("Action “%s” is not enabled"), tool->action);

      snodo_invocation_return_tool_error (invocation, message);
      return;
    }
  if (tool->parameter_type != NULL)
    {
      JsonObject *arguments = snodo_invocation_get_arguments (invocation);
      JsonNode *node = arguments != NULL ? json_object_get_member (arguments, "parameter") : NULL;
      g_autoptr(GError) error = NULL;

      if (node == NULL)
        {
          snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                                                 _("/parameter: is required"));
          return;
        }
      parameter = snodo_variant_from_json (tool->parameter_type, node, "/parameter", &error);
      if (parameter == NULL)
        {
          snodo_invocation_return_gerror (invocation, error);
          return;
        }
      if (tool->wrap_variant)
        {
          GVariant *boxed = g_variant_ref_sink (g_variant_new_variant (parameter));

          g_variant_unref (parameter);
          parameter = boxed;
        }
    }
  g_action_group_activate_action (tool->group, tool->action, parameter);
  snodo_invocation_return_text (invocation, "");
}

static void
action_binding_read_state_cb (SnodoInvocation *invocation,
                              gpointer         user_data)
{
  ActionTool *tool = user_data;
  g_autoptr(GVariant) state = g_action_group_get_action_state (tool->group, tool->action);
  g_autoptr(JsonNode) json = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;

  if (state == NULL)
    {
      snodo_invocation_return_resource_not_found (invocation);
      return;
    }
  json = snodo_variant_to_json (state, &error);
  if (json == NULL)
    {
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  text = json_to_string (json, FALSE);
  snodo_invocation_return_resource_text (invocation, snodo_invocation_get_uri (invocation),
                                         "application/json", text);
}

static ActionTool *
action_tool_new (ActionBinding *binding,
                 const char    *action)
{
  ActionTool *tool = g_new0 (ActionTool, 1);

  tool->group = g_object_ref (binding->group);
  tool->action = g_strdup (action);
  return tool;
}

/* The input schema of @action, whose parameter type is @type (nullable),
 * and in @tool the type its argument is read as. */
static JsonNode *
action_binding_input_schema (ActionBinding       *binding,
                             const char          *action,
                             const GVariantType  *type,
                             ActionTool          *tool,
                             GError             **error)
{
  JsonObject *object = json_object_new ();
  JsonObject *properties = json_object_new ();

  json_object_set_string_member (object, "type", "object");
  json_object_set_object_member (object, "properties", properties);
  json_object_set_boolean_member (object, "additionalProperties", FALSE);
  if (type != NULL)
    {
      g_autofree char *described = NULL;
      g_autofree char *about = action_binding_hint (binding, action, "parameter-description");
      JsonArray *required = json_array_new ();
      JsonNode *schema;

      tool->parameter_type = g_variant_type_copy (type);
      if (g_variant_type_equal (type, G_VARIANT_TYPE_VARIANT) &&
          (described = action_binding_hint (binding, action, "parameter-type")) != NULL)
        {
          if (!g_variant_type_string_is_valid (described))
            {
              g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The parameter type “%s” of action “%s” is not a GVariant type"), described, action);
              json_object_unref (object);
              json_array_unref (required);
              return NULL;
            }
          g_variant_type_free (tool->parameter_type);
          tool->parameter_type = g_variant_type_new (described);
          tool->wrap_variant = TRUE;
        }
      schema = snodo_variant_type_to_schema (tool->parameter_type, error);
      if (schema == NULL)
        {
          g_prefix_error (error, _("Action “%s”: "), action);
          json_object_unref (object);
          json_array_unref (required);
          return NULL;
        }
      if (about != NULL && JSON_NODE_HOLDS_OBJECT (schema))
        json_object_set_string_member (json_node_get_object (schema), "description", about);
      json_object_set_member (properties, "parameter", schema);
      json_array_add_string_element (required, "parameter");
      json_object_set_array_member (object, "required", required);
    }
  return snodo_json_node_take_object (object);
}

/* Offers @action as a tool if it is allowed, enabled and has a schema. */
static gboolean
action_binding_offer (ActionBinding  *binding,
                      const char     *action,
                      GError        **error)
{
  g_autoptr(GVariantType) parameter_type = NULL;
  g_autoptr(SnodoTool) tool = NULL;
  g_autoptr(JsonNode) schema = NULL;
  g_autofree char *name = NULL;
  g_autofree char *title = NULL;
  g_autofree char *description = NULL;
  const GVariantType *type = NULL;
  ActionTool *data;
  gboolean enabled = FALSE;

  if (!action_binding_allows (binding, action) || g_hash_table_contains (binding->offered, action))
    return TRUE;
  if (!g_action_group_query_action (binding->group, action, &enabled, &type, NULL, NULL, NULL) || !enabled)
    return TRUE;

  name = action_binding_tool_name (binding, action);
  data = action_tool_new (binding, action);
  schema = action_binding_input_schema (binding, action, type, data, error);
  if (schema == NULL)
    {
      action_tool_free (data);
      return FALSE;
    }
  title = action_binding_hint (binding, action, "title");
  if (title == NULL)
    title = g_strdup (g_hash_table_lookup (binding->labels, name));
  description = action_binding_hint (binding, action, "description");
  if (description == NULL)
    description = g_strdup_printf (_("Activates the action “%s”%s%s"), name,
                                   title != NULL ? ": " : "", title != NULL ? title : "");
  tool = snodo_tool_new (name, description);
  if (title != NULL)
    snodo_tool_set_title (tool, title);
  if (!snodo_tool_set_input_schema (tool, schema, error))
    {
      action_tool_free (data);
      return FALSE;
    }
  if (!snodo_server_add_tool (binding->server, tool, action_binding_activate_cb, data, action_tool_free, error))
    return FALSE;
  g_hash_table_insert (binding->offered, g_strdup (action), g_steal_pointer (&name));
  return TRUE;
}

static void
action_binding_withdraw (ActionBinding *binding,
                         const char    *action)
{
  const char *name = g_hash_table_lookup (binding->offered, action);

  if (name == NULL)
    return;
  snodo_server_remove_tool (binding->server, name);
  g_hash_table_remove (binding->offered, action);
}

/* Offers the state of @action as a resource if it is allowed and has one. */
static gboolean
action_binding_offer_state (ActionBinding  *binding,
                            const char     *action,
                            GError        **error)
{
  g_autoptr(GVariant) state = NULL;
  g_autoptr(SnodoResource) resource = NULL;
  g_autofree char *name = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *title = NULL;

  if (!action_binding_allows (binding, action) || g_hash_table_contains (binding->states, action))
    return TRUE;
  state = g_action_group_get_action_state (binding->group, action);
  if (state == NULL)
    return TRUE;

  name = action_binding_tool_name (binding, action);
  uri = g_strconcat ("action:", name, NULL);
  resource = snodo_resource_new (uri, name);
  title = action_binding_hint (binding, action, "title");
  if (title == NULL)
    title = g_strdup (g_hash_table_lookup (binding->labels, name));
  if (title != NULL)
    snodo_resource_set_title (resource, title);
  snodo_resource_set_description (resource, _("The state of the action, as JSON"));
  snodo_resource_set_mime_type (resource, "application/json");
  if (!snodo_server_add_resource (binding->server, resource, action_binding_read_state_cb,
                                  action_tool_new (binding, action), action_tool_free, error))
    return FALSE;
  g_hash_table_insert (binding->states, g_strdup (action), g_steal_pointer (&uri));
  return TRUE;
}

static int
action_binding_compare (const void *a,
                        const void *b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

static void
action_binding_report (const char   *action,
                       const GError *error)
{
  g_debug ("Action “%s” is not offered: %s", action, error->message);
}

static void
action_binding_added_cb (GActionGroup *group,
                         const char   *action,
                         gpointer      user_data)
{
  ActionBinding *binding = user_data;
  g_autoptr(GError) error = NULL;

  if (!action_binding_offer (binding, action, &error))
    action_binding_report (action, error);
  g_clear_error (&error);
  if (!action_binding_offer_state (binding, action, &error))
    action_binding_report (action, error);
}

static void
action_binding_removed_cb (GActionGroup *group,
                           const char   *action,
                           gpointer      user_data)
{
  ActionBinding *binding = user_data;
  const char *uri = g_hash_table_lookup (binding->states, action);

  action_binding_withdraw (binding, action);
  if (uri != NULL)
    {
      snodo_server_remove_resource (binding->server, uri);
      g_hash_table_remove (binding->states, action);
    }
}

static void
action_binding_enabled_changed_cb (GActionGroup *group,
                                   const char   *action,
                                   gboolean      enabled,
                                   gpointer      user_data)
{
  ActionBinding *binding = user_data;
  g_autoptr(GError) error = NULL;

  if (!enabled)
    action_binding_withdraw (binding, action);
  else if (!action_binding_offer (binding, action, &error))
    action_binding_report (action, error);
}

static void
action_binding_state_changed_cb (GActionGroup *group,
                                 const char   *action,
                                 GVariant     *state,
                                 gpointer      user_data)
{
  ActionBinding *binding = user_data;
  const char *uri = g_hash_table_lookup (binding->states, action);

  if (uri != NULL)
    snodo_server_notify_resource_updated (binding->server, uri);
}

/**
 * snodo_server_add_action_group:
 * @self: a server
 * @group: the actions to offer: an application's, a window's, or a
 *   [class@Gio.DBusActionGroup] of another running application
 * @prefix: (nullable): what the tools' names start with, followed by a dot
 *   (`app` makes the action `quit` the tool `app.quit`), or %NULL for the
 *   bare action names
 * @allowed: (nullable) (array zero-terminated=1): the names of the actions
 *   to offer, or %NULL for all of them
 * @hints: (nullable): descriptions, of type `a{sa{sv}}`: by action name,
 *   `title`, `description` and `parameter-description` (strings), and
 *   `parameter-type` (a GVariant type string) for an action that takes a
 *   `v`
 * @menu: (nullable): a menu whose items' labels title the actions they
 *   name (by the tool's name, so `app.quit` with the prefix `app`)
 * @error: return location for an error
 *
 * Offers the actions of @group as tools, by the table of the "Actions as
 * tools" page: each allowed, enabled action is a tool whose input is `{}`
 * for an action without a parameter and `{"parameter": …}` otherwise, its
 * parameter type mapped to JSON Schema. A call converts the argument to a
 * GVariant of exactly the action's parameter type (a value that does not
 * fit is refused with error -32602 naming its place) and activates the
 * action in the application it belongs to.
 *
 * The server follows @group for as long as it lives: actions added,
 * removed, enabled or disabled are added or removed as tools, and clients
 * are told that the list changed. The state of each allowed stateful action
 * is the resource `action:` followed by the tool's name, its value as JSON,
 * and subscribers are told when it changes.
 *
 * Actions of a parameter type that has no JSON Schema (`h`, maybes of
 * maybes, and `v` unless @hints gives its `parameter-type`) are not
 * offered; naming one in @allowed is an error.
 *
 * Returns: %TRUE if the actions are offered; %FALSE if an action named in
 *   @allowed could not be, or @hints is not of type `a{sa{sv}}`
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_action_group (SnodoServer         *self,
                               GActionGroup        *group,
                               const char          *prefix,
                               const char * const  *allowed,
                               GVariant            *hints,
                               GMenuModel          *menu,
                               GError             **error)
{
  ActionBinding *binding;
  g_auto(GStrv) actions = NULL;
  g_autofree char *key = NULL;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (G_IS_ACTION_GROUP (group), FALSE);
  g_return_val_if_fail (menu == NULL || G_IS_MENU_MODEL (menu), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (hints != NULL && !g_variant_is_of_type (hints, G_VARIANT_TYPE ("a{sa{sv}}")))
    {
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("The hints are of type “%s”, not “a{sa{sv}}”"), g_variant_get_type_string (hints));
      return FALSE;
    }

  binding = g_new0 (ActionBinding, 1);
  binding->server = self;
  binding->group = g_object_ref (group);
  binding->prefix = g_strdup (prefix);
  binding->allowed = g_strdupv ((char **) allowed);
  binding->hints = hints != NULL ? g_variant_ref_sink (hints) : NULL;
  binding->labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  binding->offered = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  binding->states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  if (menu != NULL)
    action_binding_read_menu (binding->labels, menu, 0);

  actions = g_action_group_list_actions (group);
  /* Listed in the order of their names, not of a hash table. */
  qsort (actions, g_strv_length (actions), sizeof (char *), action_binding_compare);
  for (guint i = 0; actions[i] != NULL; i++)
    {
      g_autoptr(GError) local = NULL;

      if (!action_binding_offer (binding, actions[i], &local) ||
          !action_binding_offer_state (binding, actions[i], &local))
        {
          if (allowed != NULL)
            {
              /* Take back what was offered before the refusal. */
              GHashTableIter iter;
              gpointer action;

              g_hash_table_iter_init (&iter, binding->offered);
              while (g_hash_table_iter_next (&iter, &action, NULL))
                snodo_server_remove_tool (self, g_hash_table_lookup (binding->offered, action));
              g_hash_table_iter_init (&iter, binding->states);
              while (g_hash_table_iter_next (&iter, NULL, &action))
                snodo_server_remove_resource (self, action);
              action_binding_free (binding);
              g_propagate_error (error, g_steal_pointer (&local));
              return FALSE;
            }
          action_binding_report (actions[i], local);
        }
    }

  binding->handlers[0] = g_signal_connect (group, "action-added",
                                           G_CALLBACK (action_binding_added_cb), binding);
  binding->handlers[1] = g_signal_connect (group, "action-removed",
                                           G_CALLBACK (action_binding_removed_cb), binding);
  binding->handlers[2] = g_signal_connect (group, "action-enabled-changed",
                                           G_CALLBACK (action_binding_enabled_changed_cb), binding);
  binding->handlers[3] = g_signal_connect (group, "action-state-changed",
                                           G_CALLBACK (action_binding_state_changed_cb), binding);

  key = g_strdup_printf ("snodo-action-group-%p-%s", (gpointer) binding, prefix != NULL ? prefix : "");
  g_object_set_data_full (G_OBJECT (self), key, binding, action_binding_free);
  return TRUE;
}
