/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-tool.h"
#include "snodo-base-private.h"
#include "snodo-description.h"
#include "snodo-enum-types.h"
#include "snodo-error.h"
#include "snodo-wire-private.h"

/**
 * SnodoTool:
 *
 * The description of a tool a [class@Snodo.Server] offers: its name, title,
 * description, the JSON Schema of its arguments and of its structured
 * result, and its annotations. The handler is given to
 * [method@Snodo.Server.add_tool].
 *
 * A tool's description must not change while it is registered; to change
 * it, remove the tool and add it again (clients are told of the change).
 *
 * ```c
 * g_autoptr(SnodoTool) tool = snodo_tool_new ("echo", "Returns its text");
 *
 * snodo_tool_set_input_schema_from_string (tool,
 *     "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}",
 *     NULL);
 * snodo_server_add_tool (server, tool, echo_cb, NULL, NULL, NULL);
 * ```
 *
 * From Python, a tool is usually a plain function: its type hints give the
 * input schema, its docstring the description, and what it returns is the
 * result (see the Python and JavaScript page):
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 *
 * @server.tool()
 * def add(a: float, b: float) -> float:
 *     """Adds two numbers."""
 *     return a + b
 *
 *
 * server.run()
 * ```
 *
 * and from JavaScript, a function given the arguments, with the input as
 * fields:
 *
 * ```js
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * server.tool({name: 'add', description: 'Adds two numbers', input: {a: 'number', b: 'number'}},
 *     ({a, b}) => a + b);
 * server.run();
 * ```
 *
 * The explicit form, in Python:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * tool = Snodo.Tool.new('add', 'Adds two numbers')
 * tool.set_input_schema({'type': 'object',
 *                        'properties': {'a': {'type': 'number'}, 'b': {'type': 'number'}},
 *                        'required': ['a', 'b']})
 *
 * def add(invocation):
 *     arguments = invocation.get_arguments()
 *     total = arguments['a'] + arguments['b']
 *     invocation.return_text('%g' % total)
 *
 * server.add_tool(tool, add)
 *
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * loop = GLib.MainLoop()
 * transport.connect('closed', lambda *_: loop.quit())
 * transport.start()
 * loop.run()
 * ```
 *
 * and in JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
 * const tool = Snodo.Tool.new('add', 'Adds two numbers');
 * tool.set_input_schema({type: 'object',
 *                        properties: {a: {type: 'number'}, b: {type: 'number'}},
 *                        required: ['a', 'b']});
 * server.add_tool(tool, invocation => {
 *     const {a, b} = invocation.get_arguments();
 *     invocation.return_text(`${a + b}`);
 * });
 *
 * const transport = Snodo.StdioTransport.new_for_stdio(server);
 * const loop = new GLib.MainLoop(null, false);
 * transport.connect('closed', () => loop.quit());
 * transport.start();
 * loop.run();
 * ```
 *
 * Since: 0.1
 */

struct _SnodoTool
{
  SnodoDescription  parent_instance;

  /* Sealed JSON objects; input_schema is never NULL. */
  JsonNode         *input_schema;
  JsonNode         *output_schema;
  JsonNode         *annotations;
  gboolean          run_in_thread;
  int               handler_timeout;
  SnodoTaskSupport  task_support;
};

G_DEFINE_FINAL_TYPE (SnodoTool, snodo_tool, SNODO_TYPE_DESCRIPTION)

enum {
  PROP_0,
  PROP_INPUT_SCHEMA,
  PROP_OUTPUT_SCHEMA,
  PROP_ANNOTATIONS,
  PROP_RUN_IN_THREAD,
  PROP_HANDLER_TIMEOUT,
  PROP_TASK_SUPPORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
check_schema (JsonNode  *schema,
              gboolean   require_object_type,
              GError   **error)
{
  JsonObject *object;
  JsonNode *type;

  if (schema == NULL || !JSON_NODE_HOLDS_OBJECT (schema))
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A JSON Schema must be a JSON object"));
      return FALSE;
    }
  if (!require_object_type)
    return TRUE;

  object = json_node_get_object (schema);
  type = json_object_get_member (object, "type");
  if (type == NULL || !JSON_NODE_HOLDS_VALUE (type) ||
      json_node_get_value_type (type) != G_TYPE_STRING ||
      !g_str_equal (json_node_get_string (type), "object"))
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The schema of a tool's arguments must have \"type\": \"object\""));
      return FALSE;
    }
  return TRUE;
}

static JsonNode *
sealed_copy (JsonNode *node)
{
  JsonNode *copy = json_node_copy (node);

  json_node_seal (copy);
  return copy;
}

static void
snodo_tool_finalize (GObject *object)
{
  SnodoTool *self = SNODO_TOOL (object);

  g_clear_pointer (&self->input_schema, json_node_unref);
  g_clear_pointer (&self->output_schema, json_node_unref);
  g_clear_pointer (&self->annotations, json_node_unref);

  G_OBJECT_CLASS (snodo_tool_parent_class)->finalize (object);
}

static void
snodo_tool_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  SnodoTool *self = SNODO_TOOL (object);

  switch (prop_id)
    {
    case PROP_INPUT_SCHEMA:
      g_value_set_boxed (value, self->input_schema);
      break;
    case PROP_OUTPUT_SCHEMA:
      g_value_set_boxed (value, self->output_schema);
      break;
    case PROP_ANNOTATIONS:
      g_value_set_boxed (value, self->annotations);
      break;
    case PROP_TASK_SUPPORT:
      g_value_set_enum (value, self->task_support);
      break;
    case PROP_RUN_IN_THREAD:
      g_value_set_boolean (value, self->run_in_thread);
      break;
    case PROP_HANDLER_TIMEOUT:
      g_value_set_int (value, self->handler_timeout);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_tool_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  SnodoTool *self = SNODO_TOOL (object);
  g_autoptr(GError) error = NULL;

  switch (prop_id)
    {
    case PROP_INPUT_SCHEMA:
      if (g_value_get_boxed (value) != NULL &&
          !snodo_tool_set_input_schema (self, g_value_get_boxed (value), &error))
        g_warning ("%s", error->message);
      break;
    case PROP_OUTPUT_SCHEMA:
      if (!snodo_tool_set_output_schema (self, g_value_get_boxed (value), &error))
        g_warning ("%s", error->message);
      break;
    case PROP_ANNOTATIONS:
      snodo_tool_set_annotations (self, g_value_get_boxed (value));
      break;
    case PROP_TASK_SUPPORT:
      snodo_tool_set_task_support (self, g_value_get_enum (value));
      break;
    case PROP_RUN_IN_THREAD:
      snodo_tool_set_run_in_thread (self, g_value_get_boolean (value));
      break;
    case PROP_HANDLER_TIMEOUT:
      snodo_tool_set_handler_timeout (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
snodo_tool_class_init (SnodoToolClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_tool_finalize;
  object_class->get_property = snodo_tool_get_property;
  object_class->set_property = snodo_tool_set_property;

  /**
   * SnodoTool:input-schema: (getter get_input_schema)
   *
   * The JSON Schema of the tool's arguments: an object with
   * `"type": "object"`. The default accepts any object.
   *
   * Arguments are checked against it before the handler runs (the keywords
   * tool schemas use: type, properties, required, additionalProperties,
   * items, enum, const, the bounds, allOf/anyOf/oneOf/not; others such as
   * `$ref` and `pattern` are not checked). Arguments that do not fit are
   * answered with a failed tool result naming the place and the reason,
   * without calling the handler.
   *
   * Since: 0.1
   */
  properties[PROP_INPUT_SCHEMA] =
    g_param_spec_boxed ("input-schema", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoTool:output-schema: (getter get_output_schema)
   *
   * The JSON Schema of the tool's `structuredContent`, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_OUTPUT_SCHEMA] =
    g_param_spec_boxed ("output-schema", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoTool:annotations: (getter get_annotations) (setter set_annotations)
   *
   * Hints about the tool's behaviour (`readOnlyHint`, `destructiveHint`,
   * `idempotentHint`, `openWorldHint`, `title`), as a JSON object, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_ANNOTATIONS] =
    g_param_spec_boxed ("annotations", NULL, NULL, JSON_TYPE_NODE,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoTool:run-in-thread: (getter get_run_in_thread) (setter set_run_in_thread)
   *
   * Whether the handler runs on one of the executor's worker threads,
   * where it may block. Only for handlers written in C (or another language
   * whose callbacks may run on any thread); handlers in Python or
   * JavaScript run on the main context and must not block. %FALSE by default.
   *
   * Since: 0.1
   */
  properties[PROP_RUN_IN_THREAD] =
    g_param_spec_boolean ("run-in-thread", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoTool:handler-timeout: (getter get_handler_timeout) (setter set_handler_timeout)
   *
   * How long, in milliseconds, the tool's handler may take to answer a
   * call: 0 for no limit, or -1, the default, for the server's
   * [property@Snodo.Server:handler-timeout]. When the time is up, the
   * client gets error -32603, the invocation's cancellable fires and a late
   * answer is dropped quietly.
   *
   * Since: 0.1
   */
  properties[PROP_HANDLER_TIMEOUT] =
    g_param_spec_int ("handler-timeout", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoTool:task-support: (getter get_task_support) (setter set_task_support)
   *
   * Whether calls of the tool run as tasks, when the server serves tasks
   * ([method@Snodo.Server.enable_tasks]): the same handler serves a plain
   * call and a task. %SNODO_TASK_SUPPORT_FORBIDDEN by default.
   *
   * Since: 0.1
   */
  properties[PROP_TASK_SUPPORT] =
    g_param_spec_enum ("task-support", NULL, NULL, SNODO_TYPE_TASK_SUPPORT, SNODO_TASK_SUPPORT_FORBIDDEN,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_tool_init (SnodoTool *self)
{
  JsonObject *schema = json_object_new ();

  self->handler_timeout = -1;
  json_object_set_string_member (schema, "type", "object");
  self->input_schema = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (self->input_schema, schema);
  json_node_seal (self->input_schema);
}

/**
 * snodo_tool_new:
 * @name: the tool's name
 * @description: (nullable): what the tool does
 *
 * Makes the description of a tool whose arguments may be any object.
 *
 * Returns: (transfer full): a new tool
 *
 * Since: 0.1
 */
SnodoTool *
snodo_tool_new (const char *name,
                const char *description)
{
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (SNODO_TYPE_TOOL,
                       "name", name,
                       "description", description,
                       NULL);
}

/**
 * snodo_tool_get_name:
 * @self: a tool
 *
 * Gets the tool's name.
 *
 * Returns: (transfer none): the name
 *
 * Since: 0.1
 */
const char *
snodo_tool_get_name (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return snodo_description_get_name (SNODO_DESCRIPTION (self));
}

/**
 * snodo_tool_get_title:
 * @self: a tool
 *
 * Gets the tool's human-readable title.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 0.1
 */
const char *
snodo_tool_get_title (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return snodo_description_get_title (SNODO_DESCRIPTION (self));
}

/**
 * snodo_tool_set_title:
 * @self: a tool
 * @title: (nullable): the title
 *
 * Sets the tool's human-readable title.
 *
 * Since: 0.1
 */
void
snodo_tool_set_title (SnodoTool  *self,
                      const char *title)
{
  g_return_if_fail (SNODO_IS_TOOL (self));

  snodo_description_set_title (SNODO_DESCRIPTION (self), title);
}

/**
 * snodo_tool_get_description:
 * @self: a tool
 *
 * Gets what the tool does.
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 0.1
 */
const char *
snodo_tool_get_description (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return snodo_description_get_description (SNODO_DESCRIPTION (self));
}

/**
 * snodo_tool_set_description:
 * @self: a tool
 * @description: (nullable): the description
 *
 * Sets what the tool does.
 *
 * Since: 0.1
 */
void
snodo_tool_set_description (SnodoTool  *self,
                            const char *description)
{
  g_return_if_fail (SNODO_IS_TOOL (self));

  snodo_description_set_description (SNODO_DESCRIPTION (self), description);
}

/**
 * snodo_tool_get_input_schema:
 * @self: a tool
 *
 * Gets the JSON Schema of the tool's arguments.
 *
 * Returns: (transfer none): the schema, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_tool_get_input_schema (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return self->input_schema;
}

/**
 * snodo_tool_set_input_schema:
 * @self: a tool
 * @schema: a JSON Schema: an object with `"type": "object"`
 * @error: return location for an error
 *
 * Sets the JSON Schema of the tool's arguments. A copy is kept.
 *
 * Returns: %TRUE if @schema was usable
 *
 * Since: 0.1
 */
gboolean
snodo_tool_set_input_schema (SnodoTool  *self,
                             JsonNode   *schema,
                             GError    **error)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), FALSE);

  if (!check_schema (schema, TRUE, error))
    return FALSE;
  g_clear_pointer (&self->input_schema, json_node_unref);
  self->input_schema = sealed_copy (schema);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INPUT_SCHEMA]);
  return TRUE;
}

/**
 * snodo_tool_set_input_schema_from_string:
 * @self: a tool
 * @json: a JSON Schema as JSON text
 * @error: return location for an error
 *
 * Like [method@Snodo.Tool.set_input_schema], from JSON text.
 *
 * Returns: %TRUE if @json was a usable schema
 *
 * Since: 0.1
 */
gboolean
snodo_tool_set_input_schema_from_string (SnodoTool   *self,
                                         const char  *json,
                                         GError     **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (SNODO_IS_TOOL (self), FALSE);
  g_return_val_if_fail (json != NULL, FALSE);

  node = snodo_json_parse (json, strlen (json), error);
  if (node == NULL)
    return FALSE;
  return snodo_tool_set_input_schema (self, node, error);
}

/**
 * snodo_tool_get_output_schema:
 * @self: a tool
 *
 * Gets the JSON Schema of the tool's structured result.
 *
 * Returns: (transfer none) (nullable): the schema, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_tool_get_output_schema (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return self->output_schema;
}

/**
 * snodo_tool_set_output_schema:
 * @self: a tool
 * @schema: (nullable): a JSON Schema object, or %NULL for none
 * @error: return location for an error
 *
 * Sets the JSON Schema of the tool's `structuredContent`. A copy is kept.
 *
 * Returns: %TRUE if @schema was usable
 *
 * Since: 0.1
 */
gboolean
snodo_tool_set_output_schema (SnodoTool  *self,
                              JsonNode   *schema,
                              GError    **error)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), FALSE);

  if (schema != NULL && !check_schema (schema, FALSE, error))
    return FALSE;
  g_clear_pointer (&self->output_schema, json_node_unref);
  if (schema != NULL)
    self->output_schema = sealed_copy (schema);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OUTPUT_SCHEMA]);
  return TRUE;
}

/**
 * snodo_tool_get_annotations:
 * @self: a tool
 *
 * Gets the tool's behaviour hints.
 *
 * Returns: (transfer none) (nullable): the annotations, a sealed JSON object
 *
 * Since: 0.1
 */
JsonNode *
snodo_tool_get_annotations (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return self->annotations;
}

/**
 * snodo_tool_set_annotations:
 * @self: a tool
 * @annotations: (nullable): a JSON object of hints, or %NULL
 *
 * Sets the tool's behaviour hints. A copy is kept.
 *
 * Since: 0.1
 */
void
snodo_tool_set_annotations (SnodoTool *self,
                            JsonNode  *annotations)
{
  g_return_if_fail (SNODO_IS_TOOL (self));
  g_return_if_fail (annotations == NULL || JSON_NODE_HOLDS_OBJECT (annotations));

  g_clear_pointer (&self->annotations, json_node_unref);
  if (annotations != NULL)
    self->annotations = sealed_copy (annotations);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANNOTATIONS]);
}

/**
 * snodo_tool_get_run_in_thread:
 * @self: a tool
 *
 * Gets whether the handler runs on a worker thread.
 *
 * Returns: %TRUE if the handler may block
 *
 * Since: 0.1
 */
gboolean
snodo_tool_get_run_in_thread (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), FALSE);
  return self->run_in_thread;
}

/**
 * snodo_tool_set_run_in_thread:
 * @self: a tool
 * @run_in_thread: whether the handler runs on a worker thread
 *
 * Sets whether the handler runs on one of the executor's worker threads,
 * where it may block. Only for C handlers.
 *
 * Since: 0.1
 */
void
snodo_tool_set_run_in_thread (SnodoTool *self,
                              gboolean   run_in_thread)
{
  g_return_if_fail (SNODO_IS_TOOL (self));

  run_in_thread = !!run_in_thread;
  if (self->run_in_thread == run_in_thread)
    return;
  self->run_in_thread = run_in_thread;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RUN_IN_THREAD]);
}

/**
 * snodo_tool_get_icons:
 * @self: a tool
 *
 * Gets the tool's icons.
 *
 * Returns: (transfer none) (nullable): the icons, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_tool_get_icons (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), NULL);
  return snodo_description_get_icons (SNODO_DESCRIPTION (self));
}

/**
 * snodo_tool_set_icons:
 * @self: a tool
 * @icons: (nullable): a JSON array of icon objects, or %NULL
 *
 * Sets the tool's icons. A copy is kept.
 *
 * Since: 0.1
 */
void
snodo_tool_set_icons (SnodoTool *self,
                      JsonNode  *icons)
{
  g_return_if_fail (SNODO_IS_TOOL (self));

  snodo_description_set_icons (SNODO_DESCRIPTION (self), icons);
}

/**
 * snodo_tool_get_handler_timeout:
 * @self: a tool
 *
 * Gets how long the tool's handler may take; see
 * [property@Snodo.Tool:handler-timeout].
 *
 * Returns: the time in milliseconds, 0 for no limit, or -1 for the
 *   server's limit
 *
 * Since: 0.1
 */
int
snodo_tool_get_handler_timeout (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), -1);
  return self->handler_timeout;
}

/**
 * snodo_tool_set_handler_timeout:
 * @self: a tool
 * @handler_timeout: the time in milliseconds, 0 for no limit, or -1 for
 *   the server's limit
 *
 * Sets how long the tool's handler may take; see
 * [property@Snodo.Tool:handler-timeout]. It applies to calls that start
 * after the change.
 *
 * Since: 0.1
 */
void
snodo_tool_set_handler_timeout (SnodoTool *self,
                                int        handler_timeout)
{
  g_return_if_fail (SNODO_IS_TOOL (self));
  g_return_if_fail (handler_timeout >= -1);

  if (self->handler_timeout == handler_timeout)
    return;
  self->handler_timeout = handler_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HANDLER_TIMEOUT]);
}

/**
 * snodo_tool_set_output_schema_from_string:
 * @self: a tool
 * @json: (nullable): a JSON Schema as JSON text, or %NULL for none
 * @error: return location for an error
 *
 * Like [method@Snodo.Tool.set_output_schema], from JSON text.
 *
 * Returns: %TRUE if @json was a usable schema
 *
 * Since: 0.1
 */
gboolean
snodo_tool_set_output_schema_from_string (SnodoTool   *self,
                                          const char  *json,
                                          GError     **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (SNODO_IS_TOOL (self), FALSE);

  if (json == NULL)
    return snodo_tool_set_output_schema (self, NULL, error);
  node = snodo_json_parse (json, strlen (json), error);
  if (node == NULL)
    return FALSE;
  return snodo_tool_set_output_schema (self, node, error);
}

/**
 * snodo_tool_get_task_support:
 * @self: a tool
 *
 * Gets [property@Snodo.Tool:task-support].
 *
 * Returns: whether calls of the tool run as tasks
 *
 * Since: 0.1
 */
SnodoTaskSupport
snodo_tool_get_task_support (SnodoTool *self)
{
  g_return_val_if_fail (SNODO_IS_TOOL (self), SNODO_TASK_SUPPORT_FORBIDDEN);

  return self->task_support;
}

/**
 * snodo_tool_set_task_support:
 * @self: a tool
 * @task_support: whether calls of the tool run as tasks
 *
 * Sets [property@Snodo.Tool:task-support].
 *
 * Since: 0.1
 */
void
snodo_tool_set_task_support (SnodoTool        *self,
                             SnodoTaskSupport  task_support)
{
  g_return_if_fail (SNODO_IS_TOOL (self));
  g_return_if_fail (task_support <= SNODO_TASK_SUPPORT_REQUIRED);

  if (self->task_support == task_support)
    return;
  self->task_support = task_support;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TASK_SUPPORT]);
}
