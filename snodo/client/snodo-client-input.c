/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: what the server asks of the client's application, in both
 * eras. The client's capabilities say what it answers; each request of
 * the server is a SnodoServerRequest given to the server-request signal.
 * The initialize era: a JSON-RPC request of the server, answered with a
 * response. 2026-07-28: a tools/call, prompts/get or resources/read
 * answered with an input_required result, whose inputRequests are asked
 * of the application, and which is sent again (a new id) with their
 * inputResponses and the server's requestState until it completes. See
 * snodo-client-private.h. */

#include "config.h"

#include "snodo-client-private.h"
#include "snodo-server-request.h"

#include "snodo-base-private.h"
#include "snodo-wire-private.h"

/* A server that asks for input forever is not answered forever. */
#define CLIENT_MAX_INPUT_ROUNDS 16

static guint server_request_signal;

/**
 * snodo_client_get_capabilities:
 * @self: a client
 *
 * Gets the capabilities the client declares.
 *
 * Returns: (transfer none) (nullable): the capabilities, or %NULL for none
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_capabilities (SnodoClient *self)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return self->capabilities;
}

/**
 * snodo_client_set_capabilities:
 * @self: a client
 * @capabilities: (nullable): the client's capabilities, such as
 *   `{"elicitation": {"form": {}, "url": {}}, "sampling": {}, "roots": {}}`;
 *   not modified
 *
 * Sets what the client declares it can do, in `initialize` or in the
 * 2026-07-28 envelope of every request. A server asks only for what is
 * declared, through [signal@Snodo.Client::server-request]: declare only
 * what the application answers. Set it before
 * [method@Snodo.Client.connect_async]; in 2026-07-28 a change applies to
 * the next requests.
 *
 * In 2026-07-28 the `io.modelcontextprotocol/tasks` extension is declared
 * only on the requests of the tasks API
 * ([method@Snodo.Client.call_tool_as_task_async] and the methods on a
 * task), whatever these capabilities say: it lets a server answer with a
 * task, which a plain call would not wait for.
 *
 * Since: 0.1
 */
void
snodo_client_set_capabilities (SnodoClient *self,
                               JsonObject  *capabilities)
{
  g_return_if_fail (SNODO_IS_CLIENT (self));

  g_clear_pointer (&self->capabilities, json_object_unref);
  if (capabilities != NULL)
    self->capabilities = snodo_client_copy_params (capabilities);
}

/* A copy of the capabilities to send: an empty object for none. */
JsonObject *
snodo_client_dup_capabilities (SnodoClient *self)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) copy = NULL;

  if (self->capabilities == NULL)
    return json_object_new ();
  node = json_node_init_object (json_node_alloc (), self->capabilities);
  copy = json_node_copy (node);
  return json_node_dup_object (copy);
}

void
snodo_client_install_input_signal (GObjectClass *klass)
{
  /**
   * SnodoClient::server-request:
   * @self: the client
   * @request: the request of the server
   *
   * Emitted in the client's main context when the server asks the
   * application something: `elicitation/create` (a form, or a URL to
   * visit), `sampling/createMessage` or `roots/list`, each only when the
   * client's capabilities ([method@Snodo.Client.set_capabilities]) declare
   * it. The detail is the method: `server-request::elicitation/create`.
   *
   * A handler that answers, now or later, with
   * [method@Snodo.ServerRequest.return_result] or
   * [method@Snodo.ServerRequest.return_error] returns %TRUE (and keeps a
   * reference to answer later); a request no handler takes is refused as
   * an unknown method.
   *
   * In the initialize era the answer goes back as the response to the
   * server's request. In 2026-07-28 the server asks by answering a
   * `tools/call`, `prompts/get` or `resources/read` with an
   * `input_required` result: the client emits this signal for each of its
   * input requests, then sends the request again with their answers
   * (`inputResponses`) and the server's `requestState`, and the caller
   * sees only the final result. An error answer fails that request.
   *
   * A server of 2025-11-25 may instead fail a request with error -32042,
   * naming URLs to visit: each comes as a URL-mode `elicitation/create`,
   * and once the application accepted every one (the user has been
   * there) the client sends the request again; any other answer fails it
   * with that error.
   *
   * Returns: %TRUE when the handler answers the request
   *
   * Since: 0.1
   */
  server_request_signal =
    g_signal_new ("server-request",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED,
                  0, g_signal_accumulator_true_handled, NULL, NULL,
                  G_TYPE_BOOLEAN, 1,
                  SNODO_TYPE_SERVER_REQUEST);
}

/* Gives @request to the application; refuses it when nobody takes it. */
void
snodo_client_ask (SnodoClient        *self,
                  SnodoServerRequest *request)
{
  const char *method = snodo_server_request_get_method (request);
  gboolean handled = FALSE;

  g_signal_emit (self, server_request_signal, g_quark_from_string (method), request, &handled);
  if (!handled && !snodo_server_request_is_answered (request))
    {
      g_autofree char *message = g_strdup_printf ("The client does not handle %s", method);

      snodo_server_request_return_error (request, SNODO_RPC_ERROR_METHOD_NOT_FOUND, message);
    }
}

/* The initialize era. */

typedef struct
{
  SnodoClient *client;
  JsonNode *id;
  SnodoSpan *span;
} Answer;

static void
snodo_client_answer_cb (SnodoServerRequest *request,
                        JsonObject         *result,
                        int                 code,
                        const char         *message,
                        gpointer            user_data)
{
  Answer *answer = user_data;

  if (G_UNLIKELY (answer->span != NULL))
    {
      g_autoptr(JsonObject) outcome = json_object_new ();

      if (result == NULL)
        {
          JsonObject *error = json_object_new ();

          json_object_set_int_member (error, "code", code);
          json_object_set_string_member (error, "message", message);
          json_object_set_object_member (outcome, "error", error);
        }
      snodo_client_trace_response (g_steal_pointer (&answer->span), outcome, NULL);
    }
  snodo_client_send_response (answer->client, answer->id, result, code, message);
  g_object_unref (answer->client);
  json_node_unref (answer->id);
  g_free (answer);
}

void
snodo_client_handle_server_request (SnodoClient *self,
                                    const char  *method,
                                    JsonNode    *id,
                                    JsonObject  *params)
{
  g_autoptr(SnodoServerRequest) request = NULL;
  Answer *answer;

  if (g_str_equal (method, "ping"))
    {
      g_autoptr(JsonObject) empty = json_object_new ();

      snodo_client_send_response (self, id, empty, 0, NULL);
      return;
    }

  answer = g_new0 (Answer, 1);
  answer->client = g_object_ref (self);
  answer->id = json_node_copy (id);
  answer->span = snodo_client_trace_server_request (method, params);
  request = snodo_server_request_new (method, params, snodo_client_answer_cb, answer);
  if (G_UNLIKELY (answer->span != NULL))
    {
      /* What the application sends while it decides is part of it. */
      SnodoSpan *span = answer->span;

      snodo_trace_set_current (span);
      snodo_client_ask (self, request);
      snodo_trace_set_current (NULL);
      return;
    }
  snodo_client_ask (self, request);
}

/* 2026-07-28: one round of input. */

typedef struct
{
  gint refs;
  SnodoClient *client;
  char *method;
  JsonObject *params;
  GCancellable *cancellable;
  GTask *task;
  JsonObject *responses;
  char *request_state;
  gboolean has_inputs;
  /* 2025-11-25 -32042: the request goes again as it was once every URL
   * is accepted; else it fails with the server's message. */
  gboolean url_required;
  char *url_message;
  /* The answers still awaited, plus one while they are being asked. */
  guint outstanding;
  GError *error;
} Round;

typedef struct
{
  Round *round;
  char *key;
} RoundInput;

static void
round_unref (Round *round)
{
  if (--round->refs > 0)
    return;
  g_object_unref (round->client);
  g_free (round->method);
  json_object_unref (round->params);
  g_clear_object (&round->cancellable);
  g_clear_object (&round->task);
  json_object_unref (round->responses);
  g_free (round->request_state);
  g_free (round->url_message);
  g_clear_error (&round->error);
  g_free (round);
}

/* Every input is answered: the request again, or its failure. */
static void
round_done (Round *round)
{
  SnodoClient *self = round->client;
  JsonObject *params;
  guint rounds;

  if (round->error != NULL)
    {
      g_task_return_error (g_steal_pointer (&round->task), g_steal_pointer (&round->error));
      return;
    }

  if (round->url_required)
    {
      JsonObjectIter iter;
      const char *key;
      JsonNode *answer;

      json_object_iter_init (&iter, round->responses);
      while (json_object_iter_next (&iter, &key, &answer))
        {
          const char *action = JSON_NODE_HOLDS_OBJECT (answer)
                               ? snodo_json_object_get_string (json_node_get_object (answer), "action") : NULL;

          if (g_strcmp0 (action, "accept") != 0)
            {
              g_task_return_new_error (g_steal_pointer (&round->task), SNODO_RPC_ERROR,
                                       SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED,
                                       _("%s (the URL was not visited: %s)"), round->url_message,
                                       action != NULL ? action : "no action");
              return;
            }
        }
      rounds = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (round->task), "snodo-input-rounds"));
      g_object_set_data (G_OBJECT (round->task), "snodo-input-rounds", GUINT_TO_POINTER (rounds + 1));
      snodo_client_send_request (self, round->method, snodo_client_copy_params (round->params), FALSE,
                                 self->request_timeout, round->cancellable, g_steal_pointer (&round->task));
      return;
    }

  params = snodo_client_copy_params (round->params);
  json_object_remove_member (params, "inputResponses");
  json_object_remove_member (params, "requestState");
  if (round->has_inputs)
    json_object_set_object_member (params, "inputResponses", json_object_ref (round->responses));
  if (round->request_state != NULL)
    json_object_set_string_member (params, "requestState", round->request_state);
  rounds = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (round->task), "snodo-input-rounds"));
  g_object_set_data (G_OBJECT (round->task), "snodo-input-rounds", GUINT_TO_POINTER (rounds + 1));
  snodo_client_send_request (self, round->method, params, TRUE, self->request_timeout,
                             round->cancellable, g_steal_pointer (&round->task));
}

static void
round_answered_cb (SnodoServerRequest *request,
                   JsonObject         *result,
                   int                 code,
                   const char         *message,
                   gpointer            user_data)
{
  RoundInput *input = user_data;
  Round *round = input->round;

  if (result != NULL)
    json_object_set_object_member (round->responses, input->key, snodo_client_copy_params (result));
  else if (round->error == NULL)
    round->error = g_error_new (SNODO_RPC_ERROR, code, "%s", message);
  if (--round->outstanding == 0)
    round_done (round);
  round_unref (round);
  g_free (input->key);
  g_free (input);
}

gboolean
snodo_client_input_request_get (JsonObject  *requests,
                                const char  *key,
                                const char **method,
                                JsonObject **params,
                                GError     **error)
{
  JsonNode *node = json_object_get_member (requests, key);
  JsonObject *input_request = JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  JsonNode *params_node = input_request != NULL ? json_object_get_member (input_request, "params") : NULL;

  *method = input_request != NULL ? snodo_json_object_get_string (input_request, "method") : NULL;
  if (*method == NULL || (params_node != NULL && !JSON_NODE_HOLDS_OBJECT (params_node)))
    {
      if (*error == NULL)
        *error = g_error_new (SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED,
                              _("The server's input request %s is not a request"), key);
      return FALSE;
    }
  *params = params_node != NULL ? json_node_get_object (params_node) : NULL;
  return TRUE;
}

/* @result is an input_required answer to @method with @params (as sent);
 * asks the application, then sends it again; completes @task (taken). */
void
snodo_client_input_required (SnodoClient  *self,
                             const char   *method,
                             JsonObject   *params,
                             GCancellable *cancellable,
                             GTask        *task,
                             JsonObject   *result)
{
  JsonNode *requests = json_object_get_member (result, "inputRequests");
  JsonNode *state = json_object_get_member (result, "requestState");
  guint rounds = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "snodo-input-rounds"));
  g_autoptr(GList) keys = NULL;
  Round *round;

  if ((requests != NULL && !JSON_NODE_HOLDS_OBJECT (requests)) ||
      (state != NULL && !snodo_json_node_is_string (state)) ||
      (requests == NULL && state == NULL))
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED,
                               _("The server answered %s with input_required but no valid inputRequests or requestState"),
                               method);
      g_object_unref (task);
      return;
    }
  if (rounds >= CLIENT_MAX_INPUT_ROUNDS)
    {
      g_task_return_new_error (task, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED,
                               _("The server asked for input on %s more than %u times"),
                               method, CLIENT_MAX_INPUT_ROUNDS);
      g_object_unref (task);
      return;
    }

  round = g_new0 (Round, 1);
  round->refs = 1;
  round->client = g_object_ref (self);
  round->method = g_strdup (method);
  round->params = json_object_ref (params);
  round->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  round->task = task;
  round->responses = json_object_new ();
  round->request_state = state != NULL ? g_strdup (json_node_get_string (state)) : NULL;
  round->outstanding = 1;

  if (requests != NULL)
    keys = json_object_get_members (json_node_get_object (requests));
  for (GList *l = keys; l != NULL; l = l->next)
    {
      const char *input_method;
      JsonObject *input_params;
      g_autoptr(SnodoServerRequest) request = NULL;
      RoundInput *input;

      round->has_inputs = TRUE;
      if (!snodo_client_input_request_get (json_node_get_object (requests), l->data, &input_method, &input_params,
                                           &round->error))
        continue;
      input = g_new0 (RoundInput, 1);
      input->round = round;
      input->key = g_strdup (l->data);
      round->refs++;
      round->outstanding++;
      request = snodo_server_request_new (input_method, input_params, round_answered_cb, input);
      snodo_client_ask (self, request);
    }

  if (--round->outstanding == 0)
    round_done (round);
  round_unref (round);
}

void
snodo_client_url_required (SnodoClient  *self,
                           const char   *method,
                           JsonObject   *params,
                           GCancellable *cancellable,
                           GTask        *task,
                           JsonArray    *elicitations,
                           const char   *message)
{
  guint rounds = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (task), "snodo-input-rounds"));
  Round *round;

  if (rounds >= CLIENT_MAX_INPUT_ROUNDS || json_array_get_length (elicitations) == 0)
    {
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED, "%s", message);
      g_object_unref (task);
      return;
    }

  round = g_new0 (Round, 1);
  round->refs = 1;
  round->client = g_object_ref (self);
  round->method = g_strdup (method);
  round->params = json_object_ref (params);
  round->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  round->task = task;
  round->responses = json_object_new ();
  round->url_required = TRUE;
  round->url_message = g_strdup (message);
  round->outstanding = 1;

  for (guint i = 0; i < json_array_get_length (elicitations); i++)
    {
      JsonNode *node = json_array_get_element (elicitations, i);
      g_autoptr(SnodoServerRequest) request = NULL;
      RoundInput *input;

      if (!JSON_NODE_HOLDS_OBJECT (node))
        {
          if (round->error == NULL)
            round->error = g_error_new (SNODO_RPC_ERROR, SNODO_RPC_ERROR_URL_ELICITATION_REQUIRED, "%s", message);
          continue;
        }
      input = g_new0 (RoundInput, 1);
      input->round = round;
      input->key = g_strdup_printf ("%u", i);
      round->refs++;
      round->outstanding++;
      /* Each is the params of a URL-mode elicitation/create. */
      request = snodo_server_request_new ("elicitation/create", json_node_get_object (node),
                                          round_answered_cb, input);
      snodo_client_ask (self, request);
    }

  if (--round->outstanding == 0)
    round_done (round);
  round_unref (round);
}
