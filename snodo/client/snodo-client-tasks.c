/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient: tasks, the calls of a tool the client does not wait for
 * (introspection/tasks.md has the server's side). One API for both eras:
 *
 * - 2025-11-25 (core, experimental): tools/call with a `task` param is
 *   answered `{task}`; tasks/get, tasks/result (which waits for the end),
 *   tasks/cancel, tasks/list; notifications/tasks/status unasked; a
 *   task's requests for input come as the server's requests
 *   (snodo-client-input.c).
 * - 2026-07-28 (the io.modelcontextprotocol/tasks extension, declared in
 *   the request's clientCapabilities): tools/call is answered with
 *   `resultType: "task"`; tasks/get inlines the result, error or input
 *   requests, which tasks/update answers; tasks/cancel; no tasks/result
 *   (the client polls tasks/get) and no tasks/list; notifications/tasks on
 *   a subscriptions/listen stream that named the task. */

#include "config.h"

#include "snodo-client-private.h"
#include "snodo-client-tasks.h"

#include "snodo-base-private.h"
#include "snodo-features.h"
#include "snodo-wire-private.h"

#define TASKS_EXTENSION "io.modelcontextprotocol/tasks"
#define CLIENT_META_SERVER_INFO "io.modelcontextprotocol/serverInfo"

/* Bounds on the server's pollIntervalMs, and what is used without one. */
#define TASK_POLL_DEFAULT_MS 500
#define TASK_POLL_MIN_MS 10
#define TASK_POLL_MAX_MS 60000

static guint task_status_signal;

void
snodo_client_install_task_signal (GObjectClass *klass)
{
  /**
   * SnodoClient::task-status:
   * @self: the client
   * @task: the task, as the server sent it (without `_meta`)
   *
   * Emitted in the client's main context when the server tells of a
   * task's new status: `notifications/tasks/status` in 2025-11-25, which
   * the server sends for every task of the connection, and
   * `notifications/tasks` in 2026-07-28, which comes only on a
   * subscription that named the task (`taskIds` in the notifications
   * given to [method@Snodo.Client.listen_async]) and then carries the
   * whole task, with its result or error once it ended. The
   * [signal@Snodo.Client::notification] signal follows as for any
   * notification.
   *
   * Since: 0.1
   */
  task_status_signal =
    g_signal_new ("task-status",
                  G_TYPE_FROM_CLASS (klass),
                  G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1,
                  JSON_TYPE_OBJECT);
}

/* A copy of @object without @name. */
static JsonObject *
copy_without (JsonObject *object,
              const char *name)
{
  JsonObject *copy = json_object_new ();
  JsonObjectIter iter;
  const char *member_name;
  JsonNode *member;

  json_object_iter_init (&iter, object);
  while (json_object_iter_next (&iter, &member_name, &member))
    if (!g_str_equal (member_name, name))
      json_object_set_member (copy, member_name, json_node_copy (member));
  return copy;
}

void
snodo_client_task_notification (SnodoClient *self,
                                const char  *method,
                                JsonObject  *params)
{
  g_autoptr(JsonObject) task = NULL;

  if (!g_str_equal (method, "notifications/tasks/status") && !g_str_equal (method, "notifications/tasks"))
    return;
  if (snodo_json_object_get_string (params, "taskId") == NULL)
    return;
  task = copy_without (params, "_meta");
  g_signal_emit (self, task_status_signal, 0, task);
}

void
snodo_client_add_tasks_extension (SnodoClient *self,
                                  JsonObject  *params)
{
  JsonObject *meta;
  JsonObject *capabilities;
  JsonObject *extensions;
  JsonNode *node;

  node = json_object_get_member (params, "_meta");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      meta = json_object_new ();
      json_object_set_object_member (params, "_meta", meta);
    }
  else
    meta = json_node_get_object (node);

  capabilities = snodo_client_dup_capabilities (self);
  node = json_object_get_member (capabilities, "extensions");
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    {
      extensions = json_object_new ();
      json_object_set_object_member (capabilities, "extensions", extensions);
    }
  else
    extensions = json_node_get_object (node);
  if (!json_object_has_member (extensions, TASKS_EXTENSION))
    json_object_set_object_member (extensions, TASKS_EXTENSION, json_object_new ());
  /* snodo_client_add_envelope() keeps it. */
  json_object_set_object_member (meta, "io.modelcontextprotocol/clientCapabilities", capabilities);
}

/* @result (taken) without the 2026-07-28 resultType and serverInfo. */
static JsonObject *
plain_result (JsonObject *result)
{
  JsonNode *meta;
  JsonObject *plain;

  if (result == NULL)
    return NULL;
  plain = copy_without (result, "resultType");
  json_object_unref (result);
  meta = json_object_get_member (plain, "_meta");
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT (meta) &&
      json_object_has_member (json_node_get_object (meta), CLIENT_META_SERVER_INFO))
    {
      json_object_remove_member (json_node_get_object (meta), CLIENT_META_SERVER_INFO);
      if (json_object_get_size (json_node_get_object (meta)) == 0)
        json_object_remove_member (plain, "_meta");
    }
  return plain;
}

static gboolean
client_is_modern (SnodoClient *self)
{
  return snodo_protocol_version_is_stateless (self->protocol_version);
}

/* A request of the tasks API: the extension declared in 2026-07-28; @params
 * taken. */
static void
tasks_request (SnodoClient  *self,
               const char   *method,
               JsonObject   *params,
               guint         timeout_ms,
               GCancellable *cancellable,
               GTask        *task)
{
  if (self->state != STATE_READY)
    {
      snodo_client_start_request (self, method, params, cancellable, task);
      return;
    }
  if (client_is_modern (self))
    snodo_client_add_tasks_extension (self, params);
  snodo_client_send_request (self, method, params, client_is_modern (self), timeout_ms, cancellable, task);
}

static JsonObject *
task_id_params (const char *task_id)
{
  JsonObject *params = json_object_new ();

  json_object_set_string_member (params, "taskId", task_id);
  return params;
}

/* Fails @task (taken) with "not supported" when the client speaks an era
 * without tasks (2025-06-18 and older) or without @method; TRUE then. */
static gboolean
refuse_unsupported (SnodoClient *self,
                    GTask       *task,
                    const char  *method,
                    gboolean     modern_too)
{
  if (self->state != STATE_READY)
    return FALSE;
  if (client_is_modern (self) ? modern_too
                              : self->protocol_version >= SNODO_PROTOCOL_VERSION_2025_11_25)
    return FALSE;
  g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                           _("%s does not exist in protocol version %s"), method,
                           snodo_protocol_version_to_string (self->protocol_version));
  g_object_unref (task);
  return TRUE;
}

/**
 * snodo_client_call_tool_as_task_async:
 * @self: a connected client
 * @name: the tool's name
 * @arguments: (nullable): the tool's arguments, or %NULL for none; not
 *   modified
 * @ttl_ms: how long the server should keep the task after it is made, in
 *   milliseconds (2025-11-25 only), or 0 for the server's choice
 * @cancellable: (nullable): a #GCancellable, for the call (not the task:
 *   [method@Snodo.Client.cancel_task_async] cancels that)
 * @callback: (scope async) (closure user_data): called with the task
 * @user_data: data for @callback
 *
 * Calls a tool as a task: the server answers at once with the task, runs
 * the tool, and keeps its result, which
 * [method@Snodo.Client.get_task_result_async] fetches. In 2025-11-25 the
 * call carries the `task` param; in 2026-07-28 it declares the
 * `io.modelcontextprotocol/tasks` extension in its `_meta` (and a server
 * may first ask for input with `input_required`, answered as for
 * [method@Snodo.Client.call_tool_async]). 2025-06-18 and older have no
 * tasks: the call fails with %G_IO_ERROR_NOT_SUPPORTED.
 *
 * A server may run the call at once instead (a tool whose tasks are
 * forbidden): see [method@Snodo.Client.call_tool_as_task_finish].
 *
 * Since: 0.1
 */
void
snodo_client_call_tool_as_task_async (SnodoClient         *self,
                                      const char          *name,
                                      JsonObject          *arguments,
                                      guint                ttl_ms,
                                      GCancellable        *cancellable,
                                      GAsyncReadyCallback  callback,
                                      gpointer             user_data)
{
  GTask *task;
  JsonObject *params;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (name != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_call_tool_as_task_async, G_STRFUNC, cancellable, callback,
                                user_data);
  /* snodo-client-connection.c takes a result of type "task" for it. */
  g_object_set_data (G_OBJECT (task), "snodo-takes-task", GINT_TO_POINTER (TRUE));
  if (refuse_unsupported (self, task, "tools/call (task)", TRUE))
    return;

  params = json_object_new ();
  json_object_set_string_member (params, "name", name);
  json_object_set_object_member (params, "arguments",
                                 arguments != NULL ? snodo_client_copy_params (arguments) : json_object_new ());
  if (self->state == STATE_READY && !client_is_modern (self))
    {
      JsonObject *hint = json_object_new ();

      if (ttl_ms > 0)
        json_object_set_int_member (hint, "ttl", ttl_ms);
      json_object_set_object_member (params, "task", hint);
    }
  tasks_request (self, "tools/call", params, self->request_timeout, cancellable, task);
}

/**
 * snodo_client_call_tool_as_task_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.call_tool_as_task_async].
 *
 * The task is an object with `taskId`, `status` (`working`,
 * `input_required`, `completed`, `failed` or `cancelled`), `createdAt`,
 * `lastUpdatedAt` and optionally `statusMessage`, with the era's names for
 * its time to live and poll interval (`ttl` and `pollInterval` in
 * 2025-11-25, `ttlMs` and `pollIntervalMs` in 2026-07-28). When the
 * server ran the call at once instead, the result is the tool's
 * `CallToolResult`, which has no `taskId`.
 *
 * Returns: (transfer full): the task, or the tool's result, or %NULL
 *   with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_call_tool_as_task_finish (SnodoClient   *self,
                                       GAsyncResult  *result,
                                       GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;
  JsonNode *inner;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  answer = plain_result (snodo_client_task_finish (self, result, snodo_client_call_tool_as_task_async, error));
  if (answer == NULL)
    return NULL;
  /* 2025-11-25: CreateTaskResult is {task}. */
  inner = json_object_get_member (answer, "task");
  if (inner != NULL && JSON_NODE_HOLDS_OBJECT (inner) && !json_object_has_member (answer, "taskId"))
    return json_object_ref (json_node_get_object (inner));
  return g_steal_pointer (&answer);
}

/**
 * snodo_client_get_task_async:
 * @self: a connected client
 * @task_id: the task's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the task
 * @user_data: data for @callback
 *
 * Gets a task as the server has it now (`tasks/get`).
 *
 * Since: 0.1
 */
void
snodo_client_get_task_async (SnodoClient         *self,
                             const char          *task_id,
                             GCancellable        *cancellable,
                             GAsyncReadyCallback  callback,
                             gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (task_id != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_get_task_async, G_STRFUNC, cancellable, callback, user_data);
  if (refuse_unsupported (self, task, "tasks/get", TRUE))
    return;
  tasks_request (self, "tasks/get", task_id_params (task_id), self->request_timeout, cancellable, task);
}

/**
 * snodo_client_get_task_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.get_task_async]. The task has the
 * members described at [method@Snodo.Client.call_tool_as_task_finish]; in
 * 2026-07-28 it also inlines, once the task ended, its `result` or its
 * `error`, and while it waits for input its `inputRequests`
 * ([method@Snodo.Client.get_task_result_async] answers those). An unknown
 * task fails with the server's error (-32602).
 *
 * Returns: (transfer full): the task, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_task_finish (SnodoClient   *self,
                              GAsyncResult  *result,
                              GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return plain_result (snodo_client_task_finish (self, result, snodo_client_get_task_async, error));
}

/* Waiting for the result. */

typedef struct
{
  char *task_id;
  /* 2026-07-28: the input requests asked of the application (key →
   * TRUE), the answers gathered and not yet sent, and how many are
   * awaited. */
  GHashTable *asked;
  JsonObject *responses;
  guint outstanding;
  GError *input_error;
  guint polls;
} ResultState;

static void
result_state_free (ResultState *state)
{
  g_free (state->task_id);
  g_hash_table_unref (state->asked);
  g_clear_pointer (&state->responses, json_object_unref);
  g_clear_error (&state->input_error);
  g_free (state);
}

static void result_poll (GTask *task);

static gboolean
result_poll_cb (gpointer user_data)
{
  result_poll (user_data);
  return G_SOURCE_REMOVE;
}

/* Polls again after @interval_ms; @task taken. */
static void
result_poll_later (GTask *task,
                   gint64 interval_ms)
{
  SnodoClient *self = g_task_get_source_object (task);
  GSource *source;

  if (interval_ms <= 0)
    interval_ms = TASK_POLL_DEFAULT_MS;
  interval_ms = CLAMP (interval_ms, TASK_POLL_MIN_MS, TASK_POLL_MAX_MS);
  source = g_timeout_source_new ((guint) interval_ms);
  g_source_set_static_name (source, "[snodo] client task poll");
  g_source_set_callback (source, result_poll_cb, task, NULL);
  g_source_attach (source, self->context);
  g_source_unref (source);
}

static void
result_updated_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  GTask *task = user_data;
  g_autoptr(JsonObject) answer = NULL;
  GError *error = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  result_poll (task);
}

/* Every input asked in this round is answered: tasks/update. */
static void
result_inputs_done (GTask *task)
{
  SnodoClient *self = g_task_get_source_object (task);
  ResultState *state = g_task_get_task_data (task);
  JsonObject *params;

  if (state->input_error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&state->input_error));
      g_object_unref (task);
      return;
    }
  params = task_id_params (state->task_id);
  json_object_set_object_member (params, "inputResponses", g_steal_pointer (&state->responses));
  state->responses = json_object_new ();
  tasks_request (self, "tasks/update", params, self->request_timeout, g_task_get_cancellable (task),
                 g_task_new (self, NULL, result_updated_cb, task));
}

typedef struct
{
  GTask *task;
  char *key;
} ResultInput;

static void
result_input_answered_cb (SnodoServerRequest *request,
                          JsonObject         *result,
                          int                 code,
                          const char         *message,
                          gpointer            user_data)
{
  ResultInput *input = user_data;
  GTask *task = input->task;
  ResultState *state = g_task_get_task_data (task);

  if (result != NULL)
    json_object_set_object_member (state->responses, input->key, snodo_client_copy_params (result));
  else if (state->input_error == NULL)
    state->input_error = g_error_new (SNODO_RPC_ERROR, code, "%s", message);
  g_free (input->key);
  g_free (input);
  if (--state->outstanding == 0)
    result_inputs_done (task);
}

/* 2026-07-28, a task in input_required: asks the application for each
 * input request not asked yet; TRUE when it asked any (@task is then the
 * answers'). */
static gboolean
result_ask_inputs (GTask      *task,
                   JsonObject *record)
{
  SnodoClient *self = g_task_get_source_object (task);
  ResultState *state = g_task_get_task_data (task);
  JsonNode *requests = json_object_get_member (record, "inputRequests");
  g_autoptr(GList) keys = NULL;
  gboolean asked = FALSE;

  if (requests == NULL || !JSON_NODE_HOLDS_OBJECT (requests))
    return FALSE;
  keys = json_object_get_members (json_node_get_object (requests));
  state->outstanding = 1;
  for (GList *l = keys; l != NULL; l = l->next)
    {
      const char *method;
      JsonObject *params;
      g_autoptr(SnodoServerRequest) request = NULL;
      ResultInput *input;

      if (g_hash_table_contains (state->asked, l->data))
        continue;
      g_hash_table_add (state->asked, g_strdup (l->data));
      asked = TRUE;
      if (!snodo_client_input_request_get (json_node_get_object (requests), l->data, &method, &params,
                                           &state->input_error))
        continue;
      input = g_new0 (ResultInput, 1);
      input->task = task;
      input->key = g_strdup (l->data);
      state->outstanding++;
      request = snodo_server_request_new (method, params, result_input_answered_cb, input);
      snodo_client_ask (self, request);
    }
  if (!asked)
    {
      state->outstanding = 0;
      return FALSE;
    }
  if (--state->outstanding == 0)
    result_inputs_done (task);
  return TRUE;
}

/* The inlined error of a failed task. */
static GError *
task_failure (JsonObject *record)
{
  JsonNode *node = json_object_get_member (record, "error");
  const char *message = snodo_json_object_get_string (record, "statusMessage");

  if (node != NULL && JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *error = json_node_get_object (node);
      JsonNode *code = json_object_get_member (error, "code");
      const char *text = snodo_json_object_get_string (error, "message");

      return g_error_new (SNODO_RPC_ERROR,
                          snodo_json_node_is_number (code) ? (int) json_node_get_int (code) : SNODO_RPC_ERROR_INTERNAL_ERROR,
                          "%s", text != NULL ? text : _("Unknown error"));
    }
  return g_error_new (SNODO_ERROR, SNODO_ERROR_FAILED, _("The task failed: %s"),
                      message != NULL ? message : _("Unknown error"));
}

static void
result_got_cb (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  GTask *task = user_data;
  ResultState *state = g_task_get_task_data (task);
  g_autoptr(JsonObject) record = NULL;
  GError *error = NULL;
  const char *status;
  JsonNode *node;

  record = g_task_propagate_pointer (G_TASK (result), &error);
  if (record == NULL)
    {
      g_task_return_error (task, error);
      g_object_unref (task);
      return;
    }
  status = snodo_json_object_get_string (record, "status");
  if (g_strcmp0 (status, "completed") == 0)
    {
      node = json_object_get_member (record, "result");
      if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
        g_task_return_new_error (task, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_REQUEST,
                                 _("The server has task %s completed without a result"), state->task_id);
      else
        g_task_return_pointer (task, plain_result (json_object_ref (json_node_get_object (node))),
                               (GDestroyNotify) json_object_unref);
      g_object_unref (task);
      return;
    }
  if (g_strcmp0 (status, "failed") == 0)
    {
      g_task_return_error (task, task_failure (record));
      g_object_unref (task);
      return;
    }
  if (g_strcmp0 (status, "cancelled") == 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("The task %s was cancelled"), state->task_id);
      g_object_unref (task);
      return;
    }
  if (g_strcmp0 (status, "input_required") == 0 && result_ask_inputs (task, record))
    return;
  node = json_object_get_member (record, "pollIntervalMs");
  result_poll_later (task, snodo_json_node_is_number (node) ? json_node_get_int (node) : 0);
}

static void
result_poll (GTask *task)
{
  SnodoClient *self = g_task_get_source_object (task);
  ResultState *state = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);

  if (cancellable != NULL && g_cancellable_is_cancelled (cancellable))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED,
                               _("Waiting for task %s was cancelled"), state->task_id);
      g_object_unref (task);
      return;
    }
  state->polls++;
  tasks_request (self, "tasks/get", task_id_params (state->task_id), self->request_timeout, cancellable,
                 g_task_new (self, NULL, result_got_cb, task));
}

/* The answer of a request made for a public function's @user_data (its
 * task, taken), given to that task as its finish function takes it. */
static void
forward_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  GTask *task = user_data;
  gpointer source_tag = g_task_get_source_tag (task);
  gpointer answer;
  GError *error = NULL;

  answer = g_task_propagate_pointer (G_TASK (result), &error);
  if (answer == NULL)
    g_task_return_error (task, error);
  else if (source_tag == snodo_client_list_tasks_async)
    g_task_return_pointer (task, answer, (GDestroyNotify) json_array_unref);
  else
    g_task_return_pointer (task, answer, (GDestroyNotify) json_object_unref);
  g_object_unref (task);
}

/**
 * snodo_client_get_task_result_async:
 * @self: a connected client
 * @task_id: the task's id
 * @cancellable: (nullable): a #GCancellable, which stops waiting (the task
 *   goes on: [method@Snodo.Client.cancel_task_async] cancels it)
 * @callback: (scope async) (closure user_data): called with the result
 * @user_data: data for @callback
 *
 * Waits for a task to end and gets its result. The request timeout
 * ([property@Snodo.Client:request-timeout]) applies to each request, not
 * to the wait.
 *
 * In 2025-11-25 this is `tasks/result`, which the server answers once the
 * task ended; the task's requests for input come meanwhile as the
 * server's requests ([signal@Snodo.Client::server-request]). 2026-07-28
 * has no such method: the client polls `tasks/get` at the task's
 * `pollIntervalMs`, and when the task waits for input it emits
 * [signal@Snodo.Client::server-request] for each of its `inputRequests`
 * and sends the answers with `tasks/update` (an error answer fails this
 * operation; the task still waits).
 *
 * Since: 0.1
 */
void
snodo_client_get_task_result_async (SnodoClient         *self,
                                    const char          *task_id,
                                    GCancellable        *cancellable,
                                    GAsyncReadyCallback  callback,
                                    gpointer             user_data)
{
  GTask *task;
  ResultState *state;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (task_id != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_get_task_result_async, G_STRFUNC, cancellable, callback, user_data);
  if (refuse_unsupported (self, task, "tasks/result", TRUE))
    return;
  if (self->state != STATE_READY || !client_is_modern (self))
    {
      /* It waits for the end: no timeout. */
      tasks_request (self, "tasks/result", task_id_params (task_id), 0, cancellable,
                     g_task_new (self, NULL, forward_cb, task));
      return;
    }
  state = g_new0 (ResultState, 1);
  state->task_id = g_strdup (task_id);
  state->asked = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  state->responses = json_object_new ();
  g_task_set_task_data (task, state, (GDestroyNotify) result_state_free);
  result_poll (task);
}

/**
 * snodo_client_get_task_result_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.get_task_result_async]. A task that
 * completed gives the tool's `CallToolResult` (one with `isError` too); a
 * task that failed gives its error (%SNODO_RPC_ERROR with the server's
 * code), one that was cancelled %G_IO_ERROR_CANCELLED.
 *
 * Returns: (transfer full): the task's result, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonObject *
snodo_client_get_task_result_finish (SnodoClient   *self,
                                     GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return plain_result (snodo_client_task_finish (self, result, snodo_client_get_task_result_async, error));
}

/**
 * snodo_client_cancel_task_async:
 * @self: a connected client
 * @task_id: the task's id
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called when the server
 *   answered
 * @user_data: data for @callback
 *
 * Cancels a task (`tasks/cancel`): the server stops its tool and marks it
 * `cancelled`. A 2025-11-25 server refuses to cancel a task that has
 * already ended (-32602); a 2026-07-28 server acknowledges it all the
 * same.
 *
 * Since: 0.1
 */
void
snodo_client_cancel_task_async (SnodoClient         *self,
                                const char          *task_id,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (task_id != NULL);
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_cancel_task_async, G_STRFUNC, cancellable, callback, user_data);
  if (refuse_unsupported (self, task, "tasks/cancel", TRUE))
    return;
  tasks_request (self, "tasks/cancel", task_id_params (task_id), self->request_timeout, cancellable, task);
}

/**
 * snodo_client_cancel_task_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.cancel_task_async].
 *
 * Returns: %TRUE when the server took the cancellation
 *
 * Since: 0.1
 */
gboolean
snodo_client_cancel_task_finish (SnodoClient   *self,
                                 GAsyncResult  *result,
                                 GError       **error)
{
  g_autoptr(JsonObject) answer = NULL;

  g_return_val_if_fail (SNODO_IS_CLIENT (self), FALSE);

  answer = snodo_client_task_finish (self, result, snodo_client_cancel_task_async, error);
  return answer != NULL;
}

/**
 * snodo_client_list_tasks_async:
 * @self: a connected client
 * @cancellable: (nullable): a #GCancellable
 * @callback: (scope async) (closure user_data): called with the tasks
 * @user_data: data for @callback
 *
 * Lists the client's tasks (`tasks/list`), every page of them. Only
 * 2025-11-25 has it: in other versions it fails with
 * %G_IO_ERROR_NOT_SUPPORTED (a 2026-07-28 client keeps the ids of its
 * tasks itself).
 *
 * Since: 0.1
 */
void
snodo_client_list_tasks_async (SnodoClient         *self,
                               GCancellable        *cancellable,
                               GAsyncReadyCallback  callback,
                               gpointer             user_data)
{
  GTask *task;

  g_return_if_fail (SNODO_IS_CLIENT (self));
  g_return_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable));

  task = snodo_client_task_new (self, snodo_client_list_tasks_async, G_STRFUNC, cancellable, callback, user_data);
  if (refuse_unsupported (self, task, "tasks/list", FALSE))
    return;
  snodo_client_list_async (self, "tasks/list", "tasks", NULL, snodo_client_list_tasks_async, G_STRFUNC,
                           cancellable, forward_cb, task);
}

/**
 * snodo_client_list_tasks_finish:
 * @self: a client
 * @result: the #GAsyncResult given to the callback
 * @error: return location for a #GError
 *
 * Finishes [method@Snodo.Client.list_tasks_async].
 *
 * Returns: (transfer full): the tasks, newest first as the server lists
 *   them, or %NULL with @error set
 *
 * Since: 0.1
 */
JsonArray *
snodo_client_list_tasks_finish (SnodoClient   *self,
                                GAsyncResult  *result,
                                GError       **error)
{
  g_return_val_if_fail (SNODO_IS_CLIENT (self), NULL);

  return snodo_client_task_finish (self, result, snodo_client_list_tasks_async, error);
}
