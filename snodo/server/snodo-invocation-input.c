/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * What a SnodoInvocation asks of the client: the client's capabilities,
 * snodo_invocation_request_input_async() in both eras (a request of the
 * server's own before 2026-07-28; an input_required answer with a sealed
 * requestState in 2026-07-28, or a task's input), and the answers a retry
 * brings, asked for or not.
 */

#include "config.h"

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-executor-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server-tasks-private.h"

/* How long a requestState of 2026-07-28 stays valid. */
#define INPUT_STATE_TTL_US (G_USEC_PER_SEC * 60 * 30)

void
snodo_invocation_set_unrequested_answers (SnodoInvocation *self,
                                          JsonObject      *answers)
{
  g_clear_pointer (&self->unrequested_answers, json_object_unref);
  if (answers != NULL && json_object_get_size (answers) > 0)
    self->unrequested_answers = json_object_ref (answers);
}

/**
 * snodo_invocation_set_accepts_unrequested_input:
 * @self: an invocation
 * @accepts: whether [method@Snodo.Invocation.request_input_async] may take
 *   an answer the client sent without being asked
 *
 * In 2026-07-28, a client answers the questions of an `input_required`
 * result by sending the request again with `inputResponses` and the
 * `requestState` it was given, which records the questions it was issued
 * with. By default an answer counts only for such a question: members of
 * `inputResponses` sent without a `requestState`, or under a key the state
 * does not record, are ignored, so that a client cannot answer a question
 * before it is asked (for instance a confirmation) nor change an answer of an
 * earlier round. A handler that expects answers up front (a client told out
 * of band which keys it asks for) calls this with %TRUE before asking; such
 * an answer is then taken as if it had been asked for, and carried in the
 * state of later rounds. It has no effect in other versions, where the
 * server asks with a request of its own.
 *
 * Since: 0.1
 */
void
snodo_invocation_set_accepts_unrequested_input (SnodoInvocation *self,
                                                gboolean         accepts)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));

  g_mutex_lock (&self->lock);
  self->accepts_unrequested_input = !!accepts;
  g_mutex_unlock (&self->lock);
}

/* Under the lock: the answer the handler may have for @key, new, or NULL. */
static JsonNode *
snodo_invocation_dup_answer_locked (SnodoInvocation *self,
                                    const char      *key)
{
  JsonNode *answer;

  if (self->input_answers != NULL && (answer = json_object_get_member (self->input_answers, key)) != NULL)
    return json_node_copy (answer);

  if (self->accepts_unrequested_input && self->unrequested_answers != NULL &&
      (answer = json_object_get_member (self->unrequested_answers, key)) != NULL)
    {
      /* Taken as if asked: a new object, so that a reader of the old one
       * (the server gave it, a flush may seal it) sees no change. */
      JsonObject *answers = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      if (self->input_answers != NULL)
        {
          json_object_iter_init (&iter, self->input_answers);
          while (json_object_iter_next (&iter, &name, &member))
            json_object_set_member (answers, name, json_node_copy (member));
          json_object_unref (self->input_answers);
        }
      json_object_set_member (answers, key, json_node_copy (answer));
      self->input_answers = answers;
      return json_node_copy (answer);
    }

  return NULL;
}

/**
 * snodo_invocation_dup_client_capabilities:
 * @self: an invocation
 *
 * Gets what the client declared it can do: in 2026-07-28 from this
 * request's `_meta`, before that from `initialize`.
 *
 * Returns: (transfer full): the client's capabilities (an empty object if
 *   it declared none)
 *
 * Since: 0.1
 */
JsonObject *
snodo_invocation_dup_client_capabilities (SnodoInvocation *self)
{
  JsonObject *capabilities = NULL;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (self->server != NULL, NULL);  /* made bare, for no request */

  if (self->dialect->stateless)
    capabilities = snodo_request_meta_is_envelope (&self->meta)
                   ? snodo_request_meta_dup_capabilities (&self->meta) : NULL;
  else
    capabilities = snodo_connection_dup_client_capabilities (self->connection);

  return capabilities != NULL ? capabilities : json_object_new ();
}

/* Whether the client can answer @method with @params; if not, the
 * ClientCapabilities object it would need. An elicitation needs the mode
 * it uses: "form" (the default; an empty elicitation object means form, as
 * before modes existed) or "url". */
static JsonObject *
missing_capability (JsonObject *capabilities,
                    const char *method,
                    JsonNode   *params,
                    gboolean   *known)
{
  JsonObject *required;
  const char *capability = NULL;

  *known = TRUE;
  if (g_str_equal (method, "elicitation/create"))
    {
      JsonNode *elicitation = json_object_get_member (capabilities, "elicitation");
      JsonNode *mode = params ? json_object_get_member (json_node_get_object (params), "mode") : NULL;
      gboolean url = mode != NULL && JSON_NODE_HOLDS_VALUE (mode) &&
                     json_node_get_value_type (mode) == G_TYPE_STRING &&
                     g_str_equal (json_node_get_string (mode), "url");
      JsonObject *declared = elicitation && JSON_NODE_HOLDS_OBJECT (elicitation) ? json_node_get_object (elicitation) : NULL;
      gboolean has_form = declared != NULL &&
                          (json_object_has_member (declared, "form") || !json_object_has_member (declared, "url"));
      gboolean has_url = declared != NULL && json_object_has_member (declared, "url");

      if (url ? has_url : has_form)
        return NULL;
      /* What the client lacks: elicitation at all (form being its
       * default), or the mode. */
      required = json_object_new ();
      if (url || declared != NULL)
        json_object_set_object_member (required, url ? "url" : "form", json_object_new ());
      {
        JsonObject *object = json_object_new ();

        json_object_set_object_member (object, "elicitation", required);
        return object;
      }
    }

  if (g_str_equal (method, "sampling/createMessage"))
    capability = "sampling";
  else if (g_str_equal (method, "roots/list"))
    capability = "roots";
  else
    {
      *known = FALSE;
      return NULL;
    }

  if (json_object_has_member (capabilities, capability))
    return NULL;
  required = json_object_new ();
  json_object_set_object_member (required, capability, json_object_new ());
  return required;
}

typedef struct
{
  char     *key;
  char     *method;
  JsonNode *params;
  GTask    *task;
} PendingInput;

static void
pending_input_free (PendingInput *input)
{
  g_free (input->key);
  g_free (input->method);
  g_clear_pointer (&input->params, json_node_unref);
  g_clear_object (&input->task);
  g_free (input);
}

/* 2026-07-28: answers the request with input_required, asking at once for
 * every input the handler requested before the main loop turned, and fails
 * those requests with SNODO_ERROR_INPUT_REQUIRED. */
static gboolean
snodo_invocation_flush_inputs_cb (gpointer user_data)
{
  g_autoptr(SnodoInvocation) self = user_data;
  g_autoptr(GPtrArray) inputs = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autofree char *state = NULL;
  g_autofree const char **asked = NULL;
  g_autoptr(JsonObject) answers = NULL;
  JsonObject *object;
  JsonObject *requests;

  g_mutex_lock (&self->lock);
  inputs = g_steal_pointer (&self->pending_inputs);
  answers = self->input_answers != NULL ? json_object_ref (self->input_answers) : NULL;
  g_mutex_unlock (&self->lock);

  asked = g_new0 (const char *, inputs->len + 1);
  for (guint i = 0; i < inputs->len; i++)
    asked[i] = ((PendingInput *) g_ptr_array_index (inputs, i))->key;

  if (g_atomic_int_get (&self->returned))
    error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The request was answered"));
  else
    state = snodo_request_state_seal (snodo_stamp_get_request_state_key (self->stamp),
                                      self->method, json_node_get_object (self->params),
                                      answers, asked,
                                      self->auth != NULL ? snodo_auth_info_get_principal (self->auth) : NULL,
                                      g_get_real_time (),
                                      INPUT_STATE_TTL_US, &error);
  if (state == NULL)
    {
      for (guint i = 0; i < inputs->len; i++)
        g_task_return_error (((PendingInput *) g_ptr_array_index (inputs, i))->task, g_error_copy (error));
      return G_SOURCE_REMOVE;
    }

  requests = json_object_new ();
  for (guint i = 0; i < inputs->len; i++)
    {
      PendingInput *input = g_ptr_array_index (inputs, i);
      JsonObject *request = json_object_new ();

      json_object_set_string_member (request, "method", input->method);
      if (input->params != NULL)
        json_object_set_member (request, "params", json_node_copy (input->params));
      json_object_set_object_member (requests, input->key, request);
    }
  object = json_object_new ();
  json_object_set_string_member (object, "resultType", "input_required");
  json_object_set_object_member (object, "inputRequests", requests);
  json_object_set_string_member (object, "requestState", state);
  result = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);

  /* With a reference of its own: the handler's is taken when it passes
   * the SNODO_ERROR_INPUT_REQUIRED error on to return_gerror(), as with any
   * error, which keeps bindings' reference counts right. */
  snodo_invocation_return_result (g_object_ref (self), result);

  for (guint i = 0; i < inputs->len; i++)
    g_task_return_new_error (((PendingInput *) g_ptr_array_index (inputs, i))->task,
                             SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED,
                             _("The request was answered with input_required; "
                               "the client will send it again with the input"));
  return G_SOURCE_REMOVE;
}

static void
snodo_invocation_queue_input (SnodoInvocation *self,
                              const char      *key,
                              const char      *method,
                              JsonNode        *params,
                              GTask           *task)
{
  PendingInput *input = g_new0 (PendingInput, 1);
  gboolean first;

  input->key = g_strdup (key);
  input->method = g_strdup (method);
  input->params = params ? json_node_copy (params) : NULL;
  input->task = task;

  g_mutex_lock (&self->lock);
  first = self->pending_inputs == NULL;
  /* The flush reads params on the connection's context, maybe while the
   * handler still runs on its thread: from now on it cannot change. */
  snodo_invocation_build_params_locked (self);
  json_node_seal (self->params);
  if (first)
    self->pending_inputs = g_ptr_array_new_with_free_func ((GDestroyNotify) pending_input_free);
  g_ptr_array_add (self->pending_inputs, input);
  g_mutex_unlock (&self->lock);

  if (first)
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_callback (source, snodo_invocation_flush_inputs_cb, g_object_ref (self), NULL);
      g_source_attach (source, self->connection->context);
      g_source_unref (source);
    }
}

/**
 * snodo_invocation_request_input_async:
 * @self: an invocation
 * @key: a name for this input, unique within the request
 * @method: `"elicitation/create"`, `"sampling/createMessage"` or `"roots/list"`
 * @params: (nullable): the parameters of that request
 * @cancellable: (nullable): a cancellable
 * @callback: (scope async) (closure user_data): called with the client's answer
 * @user_data: data for @callback
 *
 * Asks the client for input — a confirmation from the user, a sample from
 * the model, the roots — in the way of the request's protocol version:
 *
 * - 2025-06-18 and 2025-11-25: a request from the server to the client,
 *   with the server's own ids, bounded by [property@Snodo.Server:request-timeout],
 *   and cancelled (with `notifications/cancelled`) when @cancellable or the
 *   invocation's cancellable fires;
 * - 2026-07-28 (for `tools/call`, `prompts/get` and `resources/read`): the
 *   request is answered at once with `resultType: "input_required"`, and
 *   this call fails with %SNODO_ERROR_INPUT_REQUIRED: the handler stops and
 *   passes that error to [method@Snodo.Invocation.return_gerror], as any
 *   error (which sends nothing more). Every input the handler asks for before
 *   the main loop turns is asked for in that one answer, so a handler that
 *   needs several calls this several times in a row. The client sends the request again with the
 *   answer, the handler runs again, and this time the same call (with the
 *   same @key) returns the answer at once. Answers of earlier rounds travel
 *   in an integrity-protected, expiring `requestState` bound to the request,
 *   so the server keeps nothing between rounds.
 *
 * If the client did not declare the capability the method needs, the call
 * fails with %SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY; passing
 * that error to [method@Snodo.Invocation.return_gerror] answers as the
 * protocol version says (-32021 with the capability in 2026-07-28, a failed
 * tool result before).
 *
 * Since: 0.1
 */
void
snodo_invocation_request_input_async (SnodoInvocation     *self,
                                      const char          *key,
                                      const char          *method,
                                      JsonNode            *params,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonObject) required = NULL;
  JsonNode *answer;
  gboolean known;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  g_return_if_fail (key != NULL);
  g_return_if_fail (method != NULL);
  g_return_if_fail (params == NULL || JSON_NODE_HOLDS_OBJECT (params));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, snodo_invocation_request_input_async);
  g_task_set_name (task, G_STRFUNC);

  capabilities = snodo_invocation_dup_client_capabilities (self);
  required = missing_capability (capabilities, method, params, &known);
  if (!known)
    {
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                               _("Not a request for input: %s"), method);
      return;
    }
  if (required != NULL)
    {
      g_autofree char *text = NULL;
      g_autoptr(JsonNode) node = json_node_init_object (json_node_alloc (), required);

      text = snodo_json_to_string (node, NULL);
      g_mutex_lock (&self->lock);
      g_clear_pointer (&self->required_capabilities, json_object_unref);
      self->required_capabilities = json_object_ref (required);
      g_mutex_unlock (&self->lock);
      g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY,
                               _("The client did not declare the capability %s needs: %s"), method, text);
      return;
    }

  if (!snodo_invocation_is_live (self))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The request was cancelled or answered"));
      return;
    }

  /* A task waits for its input (snodo-server-tasks.c); answers gathered
   * in input_required rounds before it became one still count. */
  if (G_UNLIKELY (self->task_run != NULL))
    {
      g_mutex_lock (&self->lock);
      answer = snodo_invocation_dup_answer_locked (self, key);
      g_mutex_unlock (&self->lock);
      if (answer != NULL)
        g_task_return_pointer (task, answer, (GDestroyNotify) json_node_unref);
      else
        snodo_server_tasks_request_input (self->task_run, key, method, params,
                                          self->work ? snodo_work_get_cancellable (self->work) : NULL,
                                          g_steal_pointer (&task));
      return;
    }

  if (self->dialect->stateless)
    {
      if (self->method_entry == NULL || !(self->method_entry->flags & SNODO_METHOD_FLAGS_INPUT))
        {
          g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                   _("%s cannot ask the client for input"), self->method);
          return;
        }
      g_mutex_lock (&self->lock);
      answer = snodo_invocation_dup_answer_locked (self, key);
      g_mutex_unlock (&self->lock);
      if (answer != NULL)
        {
          g_task_return_pointer (task, answer, (GDestroyNotify) json_node_unref);
          return;
        }
      /* Answered with input_required in place of the handler, together
       * with the other inputs it asks for before the main loop turns. */
      snodo_invocation_queue_input (self, key, method, params, g_steal_pointer (&task));
      return;
    }

  if (G_UNLIKELY (self->span != NULL))
    {
      g_autoptr(JsonNode) traced = snodo_invocation_trace_params (self, params);

      snodo_connection_request_input (self->connection, self->key, method, traced,
                                      self->work ? snodo_work_get_cancellable (self->work) : NULL,
                                      snodo_server_get_request_timeout (self->server),
                                      g_steal_pointer (&task));
      return;
    }
  snodo_connection_request_input (self->connection, self->key, method, params,
                                  self->work ? snodo_work_get_cancellable (self->work) : NULL,
                                  snodo_server_get_request_timeout (self->server),
                                  g_steal_pointer (&task));
}

/**
 * snodo_invocation_request_input_finish:
 * @self: an invocation
 * @result: the result given to the callback
 * @error: return location for an error
 *
 * Finishes [method@Snodo.Invocation.request_input_async].
 *
 * Returns: (transfer full): the client's answer: an `ElicitResult`,
 *   `CreateMessageResult` or `ListRootsResult` object
 *
 * Since: 0.1
 */
JsonNode *
snodo_invocation_request_input_finish (SnodoInvocation  *self,
                                       GAsyncResult     *result,
                                       GError          **error)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* 2026-07-28, for a method that may ask for input: the answers of earlier
 * rounds, from a requestState that must be ours, unaltered, unexpired and
 * bound to this very request and to its @principal (authorization's, or
 * NULL), plus this round's inputResponses to the
 * questions that state was issued with. Answers to questions never asked
 * (any without a requestState: this server always issues one with its
 * questions) go to @unrequested: ignored, as the protocol says of unknown
 * keys, unless the handler accepts them
 * (snodo_invocation_set_accepts_unrequested_input()), so that a client
 * cannot answer before it is asked. */
gboolean
snodo_invocation_collect_answers (SnodoRequestStateKey  *key,
                                  SnodoFrame            *frame,
                                  const char            *principal,
                                  JsonObject           **answers,
                                  JsonObject           **unrequested,
                                  GError               **error)
{
  JsonNode *state = snodo_frame_get_param (frame, "requestState");
  JsonNode *responses = snodo_frame_get_param (frame, "inputResponses");
  g_autoptr(JsonObject) collected = NULL;
  g_auto(GStrv) asked = NULL;

  *answers = NULL;
  *unrequested = NULL;
  if (state == NULL && responses == NULL)
    return TRUE;
  /* The state is signed over params whole. */
  snodo_frame_get_params (frame);

  if (state != NULL)
    {
      if (!JSON_NODE_HOLDS_VALUE (state) || json_node_get_value_type (state) != G_TYPE_STRING)
        {
          g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                               _("Invalid params: \"requestState\" must be a string"));
          return FALSE;
        }
      collected = snodo_request_state_open (key, json_node_get_string (state),
                                            frame->method, frame->params, principal,
                                            g_get_real_time (), &asked, error);
      if (collected == NULL)
        return FALSE;
    }
  else
    collected = json_object_new ();

  if (responses != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      if (!JSON_NODE_HOLDS_OBJECT (responses))
        {
          g_set_error_literal (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                               _("Invalid params: \"inputResponses\" must be an object"));
          return FALSE;
        }
      json_object_iter_init_ordered (&iter, json_node_get_object (responses));
      while (json_object_iter_next_ordered (&iter, &name, &member))
        {
          if (!JSON_NODE_HOLDS_OBJECT (member))
            {
              g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                           _("Invalid params: inputResponses[\"%s\"] must be an object"), name);
              return FALSE;
            }
          /* A state of an older build says nothing of its questions. */
          if (state == NULL || (asked != NULL && !g_strv_contains ((const char * const *) asked, name)))
            {
              /* For a handler that accepts answers it did not ask for. */
              if (*unrequested == NULL)
                *unrequested = json_object_new ();
              json_object_set_member (*unrequested, name, json_node_copy (member));
              continue;
            }
          json_object_set_member (collected, name, json_node_copy (member));
        }
    }

  *answers = g_steal_pointer (&collected);
  return TRUE;
}
