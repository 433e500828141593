/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-server.h"
#include "snodo-invocation-private.h"
#include "snodo-private.h"

/**
 * SnodoServer:
 *
 * An MCP server: the registry of what an application offers (tools) and the
 * protocol logic that serves it on any transport.
 *
 * A server is independent of transports: give it to a
 * [class@Snodo.StdioTransport] (or several) to serve it. Every request is
 * admitted through the transport's [class@Snodo.Executor]; a tool's handler
 * runs on the main context (the default, right for handlers written in
 * Python or JavaScript, which answer asynchronously) or, for a C handler
 * that blocks, on a worker thread (see [property@Snodo.Tool:run-in-thread]).
 *
 * The protocol version of each request is decided in one place from the
 * message and its headers (`mcp-protocol-version`), the same way for every
 * transport.
 *
 * ```c
 * g_autoptr(SnodoServer) server = snodo_server_new ("my-app", "1.0");
 * g_autoptr(SnodoTool) tool = snodo_tool_new ("echo", "Returns its text");
 *
 * snodo_server_add_tool (server, tool, echo_cb, NULL, NULL, NULL);
 * ```
 *
 * The registry is used from the main context the server was made in.
 *
 * Since: 1.0
 */

typedef struct
{
  gatomicrefcount  ref_count;
  SnodoTool       *tool;
  SnodoToolFunc    func;
  gpointer         user_data;
  GDestroyNotify   destroy;
} ToolEntry;

struct _SnodoServer
{
  GObject     parent_instance;

  char       *name;
  char       *version;
  char       *title;
  char       *instructions;

  /* name -> ToolEntry (owned). */
  GHashTable *tools;
  /* ToolEntry, in the order they were added: tools/list is deterministic. */
  GPtrArray  *tool_order;

  /* Resources, templates, prompts and completion. Owned. */
  SnodoCatalog *catalog;
};

G_DEFINE_FINAL_TYPE (SnodoServer, snodo_server, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_NAME,
  PROP_VERSION,
  PROP_TITLE,
  PROP_INSTRUCTIONS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static ToolEntry *
tool_entry_ref (ToolEntry *entry)
{
  g_atomic_ref_count_inc (&entry->ref_count);
  return entry;
}

static void
tool_entry_unref (ToolEntry *entry)
{
  if (!g_atomic_ref_count_dec (&entry->ref_count))
    return;
  if (entry->destroy != NULL)
    entry->destroy (entry->user_data);
  g_clear_object (&entry->tool);
  g_free (entry);
}

static JsonNode *
node_take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

/* Answers at once, without admitted work: dialect errors, unknown methods,
 * overload. */
static void
snodo_server_send_error (SnodoConnection *connection,
                         JsonNode        *id,
                         int              code,
                         const char      *message)
{
  g_autoptr(GBytes) line = snodo_frame_encode_error (id, code, message, NULL);

  snodo_connection_send (connection, line, NULL, NULL);
}

static const char *
get_string_member (JsonObject *object,
                   const char *name)
{
  JsonNode *node;

  if (object == NULL)
    return NULL;
  node = json_object_get_member (object, name);
  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) ||
      json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static JsonObject *
snodo_server_dup_info (SnodoServer *self)
{
  JsonObject *info = json_object_new ();

  json_object_set_string_member (info, "name", self->name);
  json_object_set_string_member (info, "version", self->version);
  if (self->title != NULL)
    json_object_set_string_member (info, "title", self->title);
  return info;
}

static JsonObject *
snodo_server_dup_capabilities (SnodoServer *self)
{
  JsonObject *capabilities = json_object_new ();
  JsonObject *tools = json_object_new ();

  json_object_set_boolean_member (tools, "listChanged", TRUE);
  json_object_set_object_member (capabilities, "tools", tools);
  snodo_catalog_add_capabilities (self->catalog, capabilities);
  return capabilities;
}

/* initialize: echo the requested version when it is served, else answer
 * with the latest one served; the client decides whether to go on. */
void
snodo_server_method_initialize (SnodoServer     *self,
                                SnodoInvocation *invocation)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  SnodoConnection *connection = snodo_invocation_get_connection (invocation);
  const char *requested = get_string_member (params, "protocolVersion");
  SnodoProtocolVersion version;
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object;

  if (requested == NULL)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR,
                                             SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"protocolVersion\" must be a string"));
      return;
    }

  version = snodo_protocol_version_from_string (requested);
  if (snodo_dialect_for_version (version) == NULL)
    version = SNODO_PROTOCOL_VERSION_2025_11_25;

  object = json_object_new ();
  json_object_set_string_member (object, "protocolVersion", snodo_protocol_version_to_string (version));
  json_object_set_object_member (object, "capabilities", snodo_server_dup_capabilities (self));
  json_object_set_object_member (object, "serverInfo", snodo_server_dup_info (self));
  if (self->instructions != NULL)
    json_object_set_string_member (object, "instructions", self->instructions);
  result = node_take_object (object);

  connection->legacy_version = version;
  snodo_connection_negotiated (connection, version);

  snodo_invocation_return_result (invocation, result);
}

void
snodo_server_method_ping (SnodoServer     *self,
                          SnodoInvocation *invocation)
{
  g_autoptr(JsonNode) result = node_take_object (json_object_new ());

  snodo_invocation_return_result (invocation, result);
}

static JsonObject *
tool_to_json (SnodoTool *tool)
{
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "name", snodo_tool_get_name (tool));
  if (snodo_tool_get_title (tool) != NULL)
    json_object_set_string_member (object, "title", snodo_tool_get_title (tool));
  if (snodo_tool_get_description (tool) != NULL)
    json_object_set_string_member (object, "description", snodo_tool_get_description (tool));
  json_object_set_member (object, "inputSchema", json_node_copy (snodo_tool_get_input_schema (tool)));
  if (snodo_tool_get_output_schema (tool) != NULL)
    json_object_set_member (object, "outputSchema", json_node_copy (snodo_tool_get_output_schema (tool)));
  if (snodo_tool_get_annotations (tool) != NULL)
    json_object_set_member (object, "annotations", json_node_copy (snodo_tool_get_annotations (tool)));
  return object;
}

void
snodo_server_method_tools_list (SnodoServer     *self,
                                SnodoInvocation *invocation)
{
  g_autoptr(JsonNode) result = NULL;
  JsonObject *object = json_object_new ();
  JsonArray *tools = json_array_new ();

  for (guint i = 0; i < self->tool_order->len; i++)
    {
      ToolEntry *entry = g_ptr_array_index (self->tool_order, i);

      json_array_add_object_element (tools, tool_to_json (entry->tool));
    }
  json_object_set_array_member (object, "tools", tools);
  result = node_take_object (object);
  snodo_invocation_return_result (invocation, result);
}

typedef struct
{
  SnodoInvocation   *invocation;
  const SnodoMethod *method;
  ToolEntry         *tool;
} Call;

static void
call_free (Call *call)
{
  g_clear_object (&call->invocation);
  g_clear_pointer (&call->tool, tool_entry_unref);
  g_free (call);
}

static void
snodo_server_run_cb (SnodoWork *work,
                     gpointer   user_data)
{
  Call *call = user_data;

  snodo_invocation_set_work (call->invocation, work);

  /* The handler gets its own reference, which answering takes away. */
  if (call->tool != NULL)
    call->tool->func (g_object_ref (call->invocation), call->tool->user_data);
  else
    call->method->func (snodo_invocation_get_server (call->invocation),
                        g_object_ref (call->invocation));
}

static void
snodo_server_dispatch_request (SnodoServer     *self,
                               SnodoConnection *connection,
                               SnodoFrame      *frame,
                               GHashTable      *headers,
                               gsize            cost)
{
  g_autoptr(GError) error = NULL;
  const SnodoDialect *dialect;
  const SnodoMethod *method;
  Call *call;
  SnodoWorkKind kind = SNODO_WORK_KIND_ASYNC;

  dialect = snodo_dialect_select (self, connection, frame, headers, &error);
  if (dialect == NULL)
    {
      snodo_server_send_error (connection, frame->id, error->code, error->message);
      return;
    }

  method = snodo_dialect_lookup (dialect, frame->method);
  if (method == NULL)
    {
      g_autofree char *message = g_strdup_printf (_("Method not found: %s"), frame->method);

      snodo_server_send_error (connection, frame->id, SNODO_RPC_ERROR_METHOD_NOT_FOUND, message);
      return;
    }

  call = g_new0 (Call, 1);
  call->method = method;
  call->invocation = snodo_invocation_new (self, connection, dialect, frame->message,
                                           frame->id, frame->method, frame->params);

  if (method->flags & SNODO_METHOD_FLAGS_TOOL_CALL)
    {
      const char *name = get_string_member (frame->params, "name");
      JsonNode *arguments = frame->params ? json_object_get_member (frame->params, "arguments") : NULL;
      g_autofree char *message = NULL;

      if (name == NULL)
        message = g_strdup (_("Invalid params: \"name\" must be a string"));
      else if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments))
        message = g_strdup (_("Invalid params: \"arguments\" must be an object"));
      else if ((call->tool = g_hash_table_lookup (self->tools, name)) == NULL)
        message = g_strdup_printf (_("Unknown tool: %s"), name);

      if (message != NULL)
        {
          snodo_server_send_error (connection, frame->id, SNODO_RPC_ERROR_INVALID_PARAMS, message);
          call_free (call);
          return;
        }

      tool_entry_ref (call->tool);
      snodo_invocation_set_name (call->invocation, name);
      snodo_invocation_set_tool_call (call->invocation, TRUE);
      if (snodo_tool_get_run_in_thread (call->tool->tool))
        kind = SNODO_WORK_KIND_BLOCKING;
    }

  if (!snodo_executor_submit (connection->executor, connection->owner, frame->key, kind, cost,
                              snodo_server_run_cb, call, (GDestroyNotify) call_free, &error))
    {
      /* A refused submission leaves the call to us. */
      call_free (call);

      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY))
        {
          g_autofree char *message = g_strdup (_("Invalid request: the id is already in use by a request in progress"));

          snodo_server_send_error (connection, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST, message);
        }
      else
        {
          g_autofree char *message = g_strdup_printf (_("Server overloaded: %s"), error->message);

          snodo_server_send_error (connection, frame->id, SNODO_RPC_ERROR_SERVER_OVERLOADED, message);
        }
    }
}

void
snodo_server_dispatch (SnodoServer     *self,
                       SnodoConnection *connection,
                       SnodoFrame      *frame,
                       GHashTable      *headers,
                       gsize            cost)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  switch (frame->kind)
    {
    case SNODO_FRAME_REQUEST:
      snodo_server_dispatch_request (self, connection, frame, headers, cost);
      break;

    case SNODO_FRAME_NOTIFICATION:
      if (g_str_equal (frame->method, "notifications/initialized"))
        connection->initialized = TRUE;
      /* notifications/cancelled is acted on by the transport; others are
       * not answered, whatever they are. */
      break;

    case SNODO_FRAME_RESPONSE:
      g_debug ("Ignored a response: this server sends no requests");
      break;

    case SNODO_FRAME_IGNORE:
    case SNODO_FRAME_ERROR:
    case SNODO_FRAME_DROP:
    default:
      g_return_if_reached ();
    }
}

void
snodo_server_connection_ended (SnodoServer     *self,
                               SnodoConnection *connection,
                               gboolean         graceful)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
}

static void
snodo_server_finalize (GObject *object)
{
  SnodoServer *self = SNODO_SERVER (object);

  g_clear_pointer (&self->catalog, snodo_catalog_free);
  g_clear_pointer (&self->tools, g_hash_table_unref);
  g_clear_pointer (&self->tool_order, g_ptr_array_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->version, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->instructions, g_free);

  G_OBJECT_CLASS (snodo_server_parent_class)->finalize (object);
}

static void
snodo_server_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  SnodoServer *self = SNODO_SERVER (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_value_set_string (value, self->name);
      break;
    case PROP_VERSION:
      g_value_set_string (value, self->version);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_INSTRUCTIONS:
      g_value_set_string (value, self->instructions);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_server_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  SnodoServer *self = SNODO_SERVER (object);

  switch (prop_id)
    {
    case PROP_NAME:
      g_free (self->name);
      self->name = g_value_dup_string (value);
      break;
    case PROP_VERSION:
      g_free (self->version);
      self->version = g_value_dup_string (value);
      break;
    case PROP_TITLE:
      snodo_server_set_title (self, g_value_get_string (value));
      break;
    case PROP_INSTRUCTIONS:
      snodo_server_set_instructions (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_server_class_init (SnodoServerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_server_finalize;
  object_class->get_property = snodo_server_get_property;
  object_class->set_property = snodo_server_set_property;

  /**
   * SnodoServer:name: (getter get_name)
   *
   * The server's name, sent to clients in `serverInfo`.
   *
   * Since: 1.0
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "snodo",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:version: (getter get_version)
   *
   * The server's version, sent to clients in `serverInfo`.
   *
   * Since: 1.0
   */
  properties[PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, "0",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:title: (getter get_title) (setter set_title)
   *
   * A human-readable name for the server, or %NULL.
   *
   * Since: 1.0
   */
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:instructions: (getter get_instructions) (setter set_instructions)
   *
   * How to use the server, for the model to read, or %NULL.
   *
   * Since: 1.0
   */
  properties[PROP_INSTRUCTIONS] =
    g_param_spec_string ("instructions", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_server_init (SnodoServer *self)
{
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) tool_entry_unref);
  self->tool_order = g_ptr_array_new ();
  self->catalog = snodo_catalog_new (self);
}

SnodoCatalog *
snodo_server_get_catalog (SnodoServer *self)
{
  return self->catalog;
}

/**
 * snodo_server_new:
 * @name: the server's name
 * @version: the server's version
 *
 * Makes a server with no tools.
 *
 * Returns: (transfer full): a new server
 *
 * Since: 1.0
 */
SnodoServer *
snodo_server_new (const char *name,
                  const char *version)
{
  g_return_val_if_fail (name != NULL, NULL);
  g_return_val_if_fail (version != NULL, NULL);

  return g_object_new (SNODO_TYPE_SERVER,
                       "name", name,
                       "version", version,
                       NULL);
}

/**
 * snodo_server_get_name:
 * @self: a server
 *
 * Gets the server's name.
 *
 * Returns: (transfer none): the name
 *
 * Since: 1.0
 */
const char *
snodo_server_get_name (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  return self->name;
}

/**
 * snodo_server_get_version:
 * @self: a server
 *
 * Gets the server's version.
 *
 * Returns: (transfer none): the version
 *
 * Since: 1.0
 */
const char *
snodo_server_get_version (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  return self->version;
}

/**
 * snodo_server_get_title:
 * @self: a server
 *
 * Gets the server's human-readable name.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 1.0
 */
const char *
snodo_server_get_title (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  return self->title;
}

/**
 * snodo_server_set_title:
 * @self: a server
 * @title: (nullable): the title
 *
 * Sets the server's human-readable name.
 *
 * Since: 1.0
 */
void
snodo_server_set_title (SnodoServer *self,
                        const char  *title)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  if (g_strcmp0 (self->title, title) == 0)
    return;
  g_free (self->title);
  self->title = g_strdup (title);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TITLE]);
}

/**
 * snodo_server_get_instructions:
 * @self: a server
 *
 * Gets the instructions sent to clients.
 *
 * Returns: (transfer none) (nullable): the instructions
 *
 * Since: 1.0
 */
const char *
snodo_server_get_instructions (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  return self->instructions;
}

/**
 * snodo_server_set_instructions:
 * @self: a server
 * @instructions: (nullable): how to use the server
 *
 * Sets the instructions sent to clients when they connect.
 *
 * Since: 1.0
 */
void
snodo_server_set_instructions (SnodoServer *self,
                               const char  *instructions)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  if (g_strcmp0 (self->instructions, instructions) == 0)
    return;
  g_free (self->instructions);
  self->instructions = g_strdup (instructions);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INSTRUCTIONS]);
}

static gboolean
tool_name_is_valid (const char *name)
{
  gsize len = strlen (name);

  if (len == 0 || len > 128)
    return FALSE;
  for (const char *p = name; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '_' && *p != '.' && *p != '-')
      return FALSE;
  return TRUE;
}

/**
 * snodo_server_add_tool:
 * @self: a server
 * @tool: the tool's description
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the tool is removed and its
 *   last call has finished
 * @error: return location for an error
 *
 * Offers a tool. Each call runs @func with a [class@Snodo.Invocation] to
 * answer; see [property@Snodo.Tool:run-in-thread] for where it runs.
 *
 * Returns: %TRUE if the tool was added; %FALSE if its name is not valid or
 *   is taken
 *
 * Since: 1.0
 */
gboolean
snodo_server_add_tool (SnodoServer    *self,
                       SnodoTool      *tool,
                       SnodoToolFunc   func,
                       gpointer        user_data,
                       GDestroyNotify  destroy,
                       GError        **error)
{
  const char *name;
  ToolEntry *entry;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_TOOL (tool), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  name = snodo_tool_get_name (tool);
  if (!tool_name_is_valid (name))
    {
      if (destroy != NULL)
        destroy (user_data);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("“%s” is not a valid tool name: use 1 to 128 of A-Z, a-z, 0-9, “_”, “.” and “-”"),
                   name);
      return FALSE;
    }
  if (g_hash_table_contains (self->tools, name))
    {
      if (destroy != NULL)
        destroy (user_data);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED,
                   _("A tool named “%s” is already registered"), name);
      return FALSE;
    }

  entry = g_new0 (ToolEntry, 1);
  g_atomic_ref_count_init (&entry->ref_count);
  entry->tool = g_object_ref (tool);
  entry->func = func;
  entry->user_data = user_data;
  entry->destroy = destroy;

  g_hash_table_insert (self->tools, g_strdup (name), entry);
  g_ptr_array_add (self->tool_order, entry);
  return TRUE;
}

/**
 * snodo_server_remove_tool:
 * @self: a server
 * @name: the tool's name
 *
 * Stops offering a tool. Calls in progress finish.
 *
 * Returns: %TRUE if a tool of that name was removed
 *
 * Since: 1.0
 */
gboolean
snodo_server_remove_tool (SnodoServer *self,
                          const char  *name)
{
  ToolEntry *entry;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  entry = g_hash_table_lookup (self->tools, name);
  if (entry == NULL)
    return FALSE;
  g_ptr_array_remove (self->tool_order, entry);
  g_hash_table_remove (self->tools, name);
  return TRUE;
}

/**
 * snodo_server_lookup_tool:
 * @self: a server
 * @name: the tool's name
 *
 * Looks up a registered tool.
 *
 * Returns: (transfer none) (nullable): the tool, or %NULL
 *
 * Since: 1.0
 */
SnodoTool *
snodo_server_lookup_tool (SnodoServer *self,
                          const char  *name)
{
  ToolEntry *entry;

  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  g_return_val_if_fail (name != NULL, NULL);

  entry = g_hash_table_lookup (self->tools, name);
  return entry != NULL ? entry->tool : NULL;
}
