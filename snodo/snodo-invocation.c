/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-private.h"

/**
 * SnodoInvocation:
 *
 * One request to be answered: a call of a tool, in the manner of
 * [class@Gio.DBusMethodInvocation].
 *
 * A handler reads the request ([method@Snodo.Invocation.get_arguments]),
 * does its work, and answers exactly once with one of the
 * `snodo_invocation_return_*()` functions, now or later, from any thread.
 * Answering takes the invocation's own reference away, as with GDBus, so a
 * handler that answers later keeps a reference of its own until then.
 *
 * When the client cancels the request, or the transport ends,
 * [method@Snodo.Invocation.get_cancellable] is cancelled; the handler should
 * stop and still answer (the answer is then not sent).
 *
 * ```c
 * static void
 * echo_cb (SnodoInvocation *invocation,
 *          gpointer         user_data)
 * {
 *   JsonObject *arguments = snodo_invocation_get_arguments (invocation);
 *   JsonNode *text = json_object_get_member (arguments, "text");
 *
 *   if (text == NULL || !JSON_NODE_HOLDS_VALUE (text) ||
 *       json_node_get_value_type (text) != G_TYPE_STRING)
 *     snodo_invocation_return_tool_error (invocation, "text must be a string");
 *   else
 *     snodo_invocation_return_text (invocation, json_node_get_string (text));
 * }
 * ```
 *
 * Since: 1.0
 */

struct _SnodoInvocation
{
  GObject             parent_instance;

  /* All immutable after construction (set before the handler runs), so a
   * handler may read them from any thread. */
  SnodoServer        *server;
  SnodoConnection    *connection;
  const SnodoDialect *dialect;
  /* The request message; sealed. */
  JsonNode           *message;
  JsonNode           *id;
  char               *method;
  /* "params" of the request (an empty object when absent); sealed. */
  JsonNode           *params;
  /* "arguments" for tools/call (an empty object when absent). */
  JsonObject         *arguments;
  char               *name;
  /* The executor's work, set before the handler runs. */
  SnodoWork          *work;
  gboolean            tool_call;

  /* Set once by the first return (atomic). */
  gint                returned;
};

G_DEFINE_FINAL_TYPE (SnodoInvocation, snodo_invocation, G_TYPE_OBJECT)

static void
snodo_invocation_finalize (GObject *object)
{
  SnodoInvocation *self = SNODO_INVOCATION (object);

  g_clear_object (&self->server);
  g_clear_pointer (&self->connection, snodo_connection_unref);
  g_clear_pointer (&self->message, json_node_unref);
  g_clear_pointer (&self->id, json_node_unref);
  g_clear_pointer (&self->params, json_node_unref);
  g_clear_pointer (&self->arguments, json_object_unref);
  g_clear_pointer (&self->method, g_free);
  g_clear_pointer (&self->name, g_free);
  g_clear_object (&self->work);

  G_OBJECT_CLASS (snodo_invocation_parent_class)->finalize (object);
}

static void
snodo_invocation_class_init (SnodoInvocationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_invocation_finalize;
}

static void
snodo_invocation_init (SnodoInvocation *self)
{
}

SnodoInvocation *
snodo_invocation_new (SnodoServer        *server,
                      SnodoConnection    *connection,
                      const SnodoDialect *dialect,
                      JsonNode           *message,
                      JsonNode           *id,
                      const char         *method,
                      JsonObject         *params)
{
  SnodoInvocation *self = g_object_new (SNODO_TYPE_INVOCATION, NULL);

  self->server = g_object_ref (server);
  self->connection = snodo_connection_ref (connection);
  self->dialect = dialect;
  self->message = json_node_ref (message);
  json_node_seal (self->message);
  self->id = json_node_copy (id);
  self->method = g_strdup (method);
  self->params = json_node_new (JSON_NODE_OBJECT);
  if (params != NULL)
    json_node_set_object (self->params, params);
  else
    json_node_take_object (self->params, json_object_new ());
  json_node_seal (self->params);
  return self;
}

void
snodo_invocation_set_work (SnodoInvocation *self,
                           SnodoWork       *work)
{
  g_set_object (&self->work, work);
}

void
snodo_invocation_set_name (SnodoInvocation *self,
                           const char      *name)
{
  g_free (self->name);
  self->name = g_strdup (name);
}

/* Marks a tools/call: non-protocol errors become tool results with
 * isError, and the arguments object is looked up. */
void
snodo_invocation_set_tool_call (SnodoInvocation *self,
                                gboolean         tool_call)
{
  JsonObject *params = json_node_get_object (self->params);
  JsonNode *arguments;

  self->tool_call = tool_call;
  arguments = json_object_get_member (params, "arguments");
  g_clear_pointer (&self->arguments, json_object_unref);
  if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    self->arguments = json_object_ref (json_node_get_object (arguments));
  else
    self->arguments = json_object_new ();
  json_object_seal (self->arguments);
}

SnodoConnection *
snodo_invocation_get_connection (SnodoInvocation *self)
{
  return self->connection;
}

const SnodoDialect *
snodo_invocation_get_dialect (SnodoInvocation *self)
{
  return self->dialect;
}

SnodoServer *
snodo_invocation_get_server (SnodoInvocation *self)
{
  return self->server;
}

static void
snodo_invocation_sent_cb (const GError *error,
                          gpointer      user_data)
{
  g_autoptr(SnodoInvocation) self = user_data;

  if (error != NULL)
    g_debug ("The answer to %s was not written: %s", self->method, error->message);
  if (self->work != NULL)
    snodo_work_complete (self->work);
}

/* Takes the invocation's reference, sends @line unless the request was
 * cancelled, and completes the work once the line is written. */
static void
snodo_invocation_finish (SnodoInvocation *self,
                         GBytes          *line)
{
  if (self->work != NULL && snodo_work_is_cancelled (self->work))
    {
      /* A cancelled request gets no answer. */
      snodo_work_complete (self->work);
      g_object_unref (self);
      return;
    }

  snodo_connection_send (self->connection, line, snodo_invocation_sent_cb, self);
}

static gboolean
snodo_invocation_claim (SnodoInvocation *self)
{
  if (!g_atomic_int_compare_and_exchange (&self->returned, 0, 1))
    {
      g_critical ("The invocation of %s was answered twice", self->method);
      return FALSE;
    }
  return TRUE;
}

/**
 * snodo_invocation_get_method:
 * @self: an invocation
 *
 * Gets the JSON-RPC method of the request, such as `"tools/call"`.
 *
 * Returns: (transfer none): the method name
 *
 * Since: 1.0
 */
const char *
snodo_invocation_get_method (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  return self->method;
}

/**
 * snodo_invocation_get_name:
 * @self: an invocation
 *
 * Gets the name of what is called: the tool's name for `tools/call`.
 *
 * Returns: (transfer none) (nullable): the name
 *
 * Since: 1.0
 */
const char *
snodo_invocation_get_name (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  return self->name;
}

/**
 * snodo_invocation_get_params:
 * @self: an invocation
 *
 * Gets the `params` object of the request (an empty object when it had
 * none). It is sealed: read it, do not change it.
 *
 * Returns: (transfer none): the parameters
 *
 * Since: 1.0
 */
JsonNode *
snodo_invocation_get_params (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  return self->params;
}

/**
 * snodo_invocation_get_arguments:
 * @self: an invocation
 *
 * Gets the `arguments` of a tool call (an empty object when there were
 * none). It is sealed: read it, do not change it.
 *
 * Returns: (transfer none): the arguments
 *
 * Since: 1.0
 */
JsonObject *
snodo_invocation_get_arguments (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  if (self->arguments == NULL)
    {
      self->arguments = json_object_new ();
      json_object_seal (self->arguments);
    }
  return self->arguments;
}

/**
 * snodo_invocation_get_cancellable:
 * @self: an invocation
 *
 * Gets the cancellable that fires when the client cancels the request or the
 * transport ends. A handler should then stop its work and answer anyway; the
 * answer is not sent.
 *
 * Returns: (transfer none): the cancellable
 *
 * Since: 1.0
 */
GCancellable *
snodo_invocation_get_cancellable (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (self->work != NULL, NULL);
  return snodo_work_get_cancellable (self->work);
}

/**
 * snodo_invocation_get_protocol_version:
 * @self: an invocation
 *
 * Gets the protocol version the request is served under.
 *
 * Returns: the protocol version
 *
 * Since: 1.0
 */
SnodoProtocolVersion
snodo_invocation_get_protocol_version (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), SNODO_PROTOCOL_VERSION_UNKNOWN);
  return self->dialect->version;
}

/**
 * snodo_invocation_return_result:
 * @self: (transfer full): an invocation
 * @result: the result object (for a tool, a `CallToolResult`)
 *
 * Answers the request with @result. @result is not modified; it may be
 * sealed. Callable from any thread, once.
 *
 * Since: 1.0
 */
void
snodo_invocation_return_result (SnodoInvocation *self,
                                JsonNode        *result)
{
  g_autoptr(GBytes) line = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (result != NULL && JSON_NODE_HOLDS_OBJECT (result));

  if (!snodo_invocation_claim (self))
    return;

  line = snodo_frame_encode_result (self->id, result);
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_return_result_from_string:
 * @self: (transfer full): an invocation
 * @json: the result object as JSON text
 * @error: return location for an error
 *
 * Answers the request with the result object written as JSON, which is
 * convenient from C. If @json is not a JSON object, nothing is answered,
 * the invocation is kept, and @error is set: answer some other way.
 *
 * Returns: %TRUE if the request was answered
 *
 * Since: 1.0
 */
gboolean
snodo_invocation_return_result_from_string (SnodoInvocation  *self,
                                            const char       *json,
                                            GError          **error)
{
  g_autoptr(JsonNode) node = NULL;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (json != NULL, FALSE);

  node = snodo_json_parse (json, strlen (json), error);
  if (node == NULL)
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                           _("A result must be a JSON object"));
      return FALSE;
    }
  snodo_invocation_return_result (self, node);
  return TRUE;
}

static JsonNode *
text_result (const char *text,
             gboolean    is_error)
{
  JsonObject *result = json_object_new ();
  JsonArray *content = json_array_new ();
  JsonObject *block = json_object_new ();
  JsonNode *node;

  json_object_set_string_member (block, "type", "text");
  json_object_set_string_member (block, "text", text);
  json_array_add_object_element (content, block);
  json_object_set_array_member (result, "content", content);
  if (is_error)
    json_object_set_boolean_member (result, "isError", TRUE);

  node = json_node_new (JSON_NODE_OBJECT);
  json_node_take_object (node, result);
  return node;
}

/**
 * snodo_invocation_return_text:
 * @self: (transfer full): an invocation
 * @text: the text
 *
 * Answers a tool call with one text content block.
 *
 * Since: 1.0
 */
void
snodo_invocation_return_text (SnodoInvocation *self,
                              const char      *text)
{
  g_autoptr(JsonNode) result = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (text != NULL);

  result = text_result (text, FALSE);
  snodo_invocation_return_result (self, result);
}

/**
 * snodo_invocation_return_tool_error:
 * @self: (transfer full): an invocation
 * @message: what went wrong, for the model to read
 *
 * Answers a tool call with a failed result: one text content block and
 * `isError: true`. A tool's failure is not a protocol error.
 *
 * Since: 1.0
 */
void
snodo_invocation_return_tool_error (SnodoInvocation *self,
                                    const char      *message)
{
  g_autoptr(JsonNode) result = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (message != NULL);

  result = text_result (message, TRUE);
  snodo_invocation_return_result (self, result);
}

/**
 * snodo_invocation_return_gerror:
 * @self: (transfer full): an invocation
 * @error: the error
 *
 * Answers the request with an error. An error of the [error@Snodo.RpcError]
 * domain becomes a JSON-RPC error with that code. Any other error, for a
 * tool call, becomes a failed tool result (`isError: true`) carrying its
 * message; for other requests, error -32603.
 *
 * Since: 1.0
 */
void
snodo_invocation_return_gerror (SnodoInvocation *self,
                                const GError    *error)
{
  g_autoptr(GBytes) line = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (error != NULL);

  if (error->domain != SNODO_RPC_ERROR && self->tool_call)
    {
      snodo_invocation_return_tool_error (self, error->message);
      return;
    }

  if (!snodo_invocation_claim (self))
    return;

  line = snodo_frame_encode_error (self->id,
                                   error->domain == SNODO_RPC_ERROR ? error->code : SNODO_RPC_ERROR_INTERNAL_ERROR,
                                   error->message, NULL);
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_return_error_literal:
 * @self: (transfer full): an invocation
 * @domain: the error domain
 * @code: the error code
 * @message: the error message
 *
 * Like [method@Snodo.Invocation.return_gerror], from its parts.
 *
 * Since: 1.0
 */
void
snodo_invocation_return_error_literal (SnodoInvocation *self,
                                       GQuark           domain,
                                       int              code,
                                       const char      *message)
{
  g_autoptr(GError) error = NULL;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (message != NULL);

  error = g_error_new_literal (domain, code, message);
  snodo_invocation_return_gerror (self, error);
}
