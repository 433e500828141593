/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoServerRequest: one request of the server that the client's
 * application answers (elicitation, sampling, roots), in either era: a
 * real JSON-RPC request of the initialize era, or one of the
 * inputRequests of a 2026-07-28 input_required result. How the answer
 * travels is the client's (snodo-client-input.c). */

#include "config.h"

#include "snodo-server-request.h"
#include "snodo-client-private.h"

#include "snodo-base-private.h"

/**
 * SnodoServerRequest:
 *
 * A request of the server for the client's application to answer, given
 * by the [signal@Snodo.Client::server-request] signal: `elicitation/create`
 * (a form to fill in, or a URL to visit), `sampling/createMessage` or
 * `roots/list`, with its params.
 *
 * Answer it once, now or later, with
 * [method@Snodo.ServerRequest.return_result] (an `ElicitResult`, a
 * `CreateMessageResult`, a `ListRootsResult`) or
 * [method@Snodo.ServerRequest.return_error]. A request that is dropped
 * unanswered is answered with an error.
 *
 * A client declares that it answers forms, and confirms every one:
 *
 * ```c
 * static gboolean
 * elicitation_cb (SnodoClient        *client,
 *                 SnodoServerRequest *request,
 *                 gpointer            user_data)
 * {
 *   g_autoptr(JsonObject) result = json_object_new ();
 *   JsonObject *content = json_object_new ();
 *
 *   json_object_set_boolean_member (content, "confirm", TRUE);
 *   json_object_set_string_member (result, "action", "accept");
 *   json_object_set_object_member (result, "content", content);
 *   snodo_server_request_return_result (request, result);
 *   return TRUE;
 * }
 *
 * // where the client is made:
 * g_autoptr(JsonNode) capabilities = json_from_string ("{\"elicitation\":{\"form\":{}}}", NULL);
 *
 * snodo_client_set_capabilities (client, json_node_get_object (capabilities));
 * g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (elicitation_cb), NULL);
 * ```
 *
 * In Python, calling the demonstration server's `ask` tool, which asks the
 * user to confirm:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * loop = GLib.MainLoop()
 * client = Snodo.Client.new_for_argv(['snodo-demo'])
 * client.set_capabilities({'elicitation': {'form': {}}})
 *
 * def on_elicitation(client, request):
 *     print(request.get_params()['message'])  # what to ask the user
 *     request.return_result({'action': 'accept', 'content': {'confirm': True}})
 *     return True
 *
 * def called(client, result):
 *     print(client.call_tool_finish(result)['content'][0]['text'])
 *     client.close_async(None, lambda client, result: loop.quit())
 *
 * def connected(client, result):
 *     client.connect_finish(result)
 *     client.call_tool_async('ask', {'question': 'Delete the draft?'}, None, called)
 *
 * client.connect('server-request::elicitation/create', on_elicitation)
 * client.connect_async(None, connected)
 * loop.run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const client = Snodo.Client.new_for_argv(['snodo-demo']);
 * client.set_capabilities({elicitation: {form: {}}});
 * client.connect('server-request::elicitation/create', (_client, request) => {
 *     print(request.get_params().message);  // what to ask the user
 *     request.return_result({action: 'accept', content: {confirm: true}});
 *     return true;
 * });
 *
 * const loop = new GLib.MainLoop(null, false);
 * client.connect_async(null).then(async () => {
 *     const result = await client.call_tool_async('ask', {question: 'Delete the draft?'}, null);
 *     print(result.content[0].text);
 *     await client.close_async(null);
 * }).catch(logError).finally(() => loop.quit());
 * loop.run();
 * ```
 *
 * Since: 0.1
 */

struct _SnodoServerRequest
{
  GObject parent_instance;

  char *method;
  JsonObject *params;
  gboolean answered;
  SnodoServerRequestFunc func;
  gpointer user_data;
};

G_DEFINE_FINAL_TYPE (SnodoServerRequest, snodo_server_request, G_TYPE_OBJECT)

static void
snodo_server_request_dispose (GObject *object)
{
  SnodoServerRequest *self = SNODO_SERVER_REQUEST (object);

  /* A request made without the client (g_object_new()) answers nobody. */
  if (!self->answered && self->func != NULL)
    {
      g_autofree char *message = g_strdup_printf ("The client's application did not answer %s", self->method);

      snodo_server_request_return_error (self, SNODO_RPC_ERROR_INTERNAL_ERROR, message);
    }
  G_OBJECT_CLASS (snodo_server_request_parent_class)->dispose (object);
}

static void
snodo_server_request_finalize (GObject *object)
{
  SnodoServerRequest *self = SNODO_SERVER_REQUEST (object);

  g_free (self->method);
  g_clear_pointer (&self->params, json_object_unref);
  G_OBJECT_CLASS (snodo_server_request_parent_class)->finalize (object);
}

static void
snodo_server_request_class_init (SnodoServerRequestClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = snodo_server_request_dispose;
  object_class->finalize = snodo_server_request_finalize;
}

static void
snodo_server_request_init (SnodoServerRequest *self)
{
  self->method = g_strdup ("");
  self->params = json_object_new ();
}

/* @func is called once, with the result (or NULL and an error's code and
 * message), when the application answers or drops the request. */
SnodoServerRequest *
snodo_server_request_new (const char             *method,
                          JsonObject             *params,
                          SnodoServerRequestFunc  func,
                          gpointer                user_data)
{
  SnodoServerRequest *self = g_object_new (SNODO_TYPE_SERVER_REQUEST, NULL);

  g_free (self->method);
  self->method = g_strdup (method);
  if (params != NULL)
    {
      json_object_unref (self->params);
      self->params = snodo_client_copy_params (params);
    }
  self->func = func;
  self->user_data = user_data;
  return self;
}

/**
 * snodo_server_request_get_method:
 * @self: a request of the server
 *
 * Gets the request's method, such as `elicitation/create`.
 *
 * Returns: the method
 *
 * Since: 0.1
 */
const char *
snodo_server_request_get_method (SnodoServerRequest *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER_REQUEST (self), NULL);

  return self->method;
}

/**
 * snodo_server_request_get_params:
 * @self: a request of the server
 *
 * Gets the request's params: for `elicitation/create` its `mode` (`form`
 * when absent, or `url`), `message`, and `requestedSchema` or `url`.
 *
 * Returns: (transfer none): the params, an empty object when it had none
 *
 * Since: 0.1
 */
JsonObject *
snodo_server_request_get_params (SnodoServerRequest *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER_REQUEST (self), NULL);

  return self->params;
}

/**
 * snodo_server_request_is_answered:
 * @self: a request of the server
 *
 * Whether the request was answered.
 *
 * Returns: %TRUE once it was
 *
 * Since: 0.1
 */
gboolean
snodo_server_request_is_answered (SnodoServerRequest *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER_REQUEST (self), FALSE);

  return self->answered;
}

/**
 * snodo_server_request_return_result:
 * @self: a request of the server
 * @result: the answer, such as `{"action": "accept", "content": {…}}` for
 *   an elicitation; not modified
 *
 * Answers the request. Call this or
 * [method@Snodo.ServerRequest.return_error] once.
 *
 * Since: 0.1
 */
void
snodo_server_request_return_result (SnodoServerRequest *self,
                                    JsonObject         *result)
{
  g_return_if_fail (SNODO_IS_SERVER_REQUEST (self));
  g_return_if_fail (result != NULL);
  g_return_if_fail (!self->answered);

  self->answered = TRUE;
  if (self->func != NULL)
    self->func (self, result, 0, NULL, self->user_data);
}

/**
 * snodo_server_request_return_error:
 * @self: a request of the server
 * @code: a JSON-RPC error code, such as %SNODO_RPC_ERROR_INVALID_PARAMS
 * @message: what went wrong
 *
 * Answers the request with an error. In 2026-07-28, where the answers go
 * back with the retried request and cannot be errors, the request that
 * asked for input fails with this error instead.
 *
 * Since: 0.1
 */
void
snodo_server_request_return_error (SnodoServerRequest *self,
                                   int                 code,
                                   const char         *message)
{
  g_return_if_fail (SNODO_IS_SERVER_REQUEST (self));
  g_return_if_fail (message != NULL);
  g_return_if_fail (!self->answered);

  self->answered = TRUE;
  if (self->func != NULL)
    self->func (self, NULL, code, message, self->user_data);
}
