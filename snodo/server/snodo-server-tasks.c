/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-executor-private.h"
#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server-internal.h"
#include "snodo-server-methods.h"
#include "snodo-server-tasks-private.h"
#include "snodo-task-store-private.h"
#include "snodo-wire-private.h"

/*
 * Tasks, in both eras, with one application API: a tool's handler runs
 * the same way for a plain call and for a task. When a call becomes a task
 * (snodo_server_tasks_divert(), before the handler runs), the request is
 * answered at once with the task, and the handler runs as work of its own
 * in the executor, owned by the task (a TaskRun), on a connection of its
 * own whose "transport" is the task: the handler's answer, written to that
 * connection, becomes the task's result; its progress and logs go on to
 * the client's connection in the initialize era (2025-11-25), and nowhere
 * in 2026-07-28, which has no channel for them outside the request. Its
 * requests for input park the task in input_required: 2026-07-28 lists
 * them in tasks/get and takes the answers with tasks/update; 2025-11-25
 * asks the client on its connection, as for a plain call.
 *
 * The task's record, what tasks/get reads, lives in the task store (a
 * SnodoTaskStore), in the 2026-07-28 shape (ttlMs, pollIntervalMs, result
 * or error inlined); 2025-11-25 answers rename its fields.
 */

#define TASKS_EXTENSION "io.modelcontextprotocol/tasks"
#define RELATED_TASK "io.modelcontextprotocol/related-task"

#define SNODO_TYPE_TASK_RUN (snodo_task_run_get_type ())
G_DECLARE_FINAL_TYPE (SnodoTaskRun, snodo_task_run, SNODO, TASK_RUN, GObject)

struct _SnodoServerTasks
{
  SnodoTaskStore *store;
  guint           default_ttl_ms;
  guint           max_ttl_ms;
  guint           poll_interval_ms;
  /* task id -> SnodoTaskRun, while the handler runs. */
  GHashTable     *runs;
  /* Listed (ListedTask), newest last, for tasks/list (2025-11-25): a
   * client sees the tasks made on its own connection only; bounded by the
   * store's bounds in practice, as ids it forgot are dropped here when
   * listed. */
  GQueue          ids;
  /* The same ListedTasks by id (owning them), for the binding of
   * 2025-11-25 tasks to the connection (the session) that made them. */
  GHashTable     *owners;
  /* snodo_invocation_return_task() dispatches the call again as a task. */
  gboolean        forcing;
};

struct _SnodoTaskRun
{
  GObject          parent_instance;

  SnodoServer     *server;
  char            *id;
  /* The executor key of its work (the key of the request it came from). */
  char            *key;
  gboolean         legacy;
  /* The client's connection, and the task's own. */
  SnodoConnection *origin;
  SnodoConnection *connection;
  /* The record, as stored. */
  JsonObject      *record;
  gint64           expires_at;
  /* Inputs asked for and not answered: key -> {method, params}; and the
   * calls waiting for them, key -> GTask. */
  JsonObject      *input_requests;
  GHashTable      *waiting;
  /* tasks/result requests (2025-11-25) waiting for the end. */
  GPtrArray       *result_waiters;
};

G_DEFINE_FINAL_TYPE (SnodoTaskRun, snodo_task_run, G_TYPE_OBJECT)

/* The member of a task's record that binds it to the connection that made
 * it (2025-11-25 tasks); never sent. */
#define BOUND_MEMBER "boundToSession"

/* A task for tasks/list: its id and the owner of the connection it was
 * made on (weak: a connection gone lists nothing, and a new one at the
 * same address does not inherit its tasks). */
typedef struct
{
  char     *id;
  GWeakRef  owner;
} ListedTask;

static void
listed_task_free (ListedTask *listed)
{
  g_free (listed->id);
  g_weak_ref_clear (&listed->owner);
  g_free (listed);
}

static void
snodo_task_run_finalize (GObject *object)
{
  SnodoTaskRun *self = SNODO_TASK_RUN (object);

  g_free (self->id);
  g_free (self->key);
  g_clear_pointer (&self->origin, snodo_connection_unref);
  if (self->connection != NULL)
    {
      snodo_connection_detach (self->connection);
      g_clear_pointer (&self->connection, snodo_connection_unref);
    }
  g_clear_pointer (&self->record, json_object_unref);
  g_clear_pointer (&self->input_requests, json_object_unref);
  g_clear_pointer (&self->waiting, g_hash_table_unref);
  g_clear_pointer (&self->result_waiters, g_ptr_array_unref);
  g_clear_object (&self->server);

  G_OBJECT_CLASS (snodo_task_run_parent_class)->finalize (object);
}

static void
snodo_task_run_class_init (SnodoTaskRunClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_task_run_finalize;
}

static void
snodo_task_run_init (SnodoTaskRun *self)
{
  self->input_requests = json_object_new ();
  self->waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  self->result_waiters = g_ptr_array_new ();
}

SnodoServerTasks *
snodo_server_tasks_new (SnodoTaskStore *store)
{
  SnodoServerTasks *self = g_new0 (SnodoServerTasks, 1);

  self->store = store != NULL ? g_object_ref (store) : snodo_task_store_new_memory (0, 0);
  self->default_ttl_ms = 60 * 60 * 1000;
  self->max_ttl_ms = 24 * 60 * 60 * 1000;
  self->poll_interval_ms = 500;
  self->runs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_object_unref);
  g_queue_init (&self->ids);
  self->owners = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) listed_task_free);
  return self;
}

void
snodo_server_tasks_free (SnodoServerTasks *self)
{
  GHashTableIter iter;
  gpointer value;

  /* What still runs is cancelled; its answer goes nowhere. */
  g_hash_table_iter_init (&iter, self->runs);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      SnodoTaskRun *run = value;

      snodo_executor_cancel (run->origin->executor, G_OBJECT (run), run->key);
      snodo_connection_detach (run->connection);
      g_clear_pointer (&run->connection, snodo_connection_unref);
    }
  g_hash_table_unref (self->runs);
  g_queue_clear (&self->ids);
  g_hash_table_unref (self->owners);
  g_object_unref (self->store);
  g_free (self);
}

/* ISO 8601, UTC, milliseconds. */
static char *
format_time (gint64 us)
{
  g_autoptr(GDateTime) time = g_date_time_new_from_unix_utc (us / G_USEC_PER_SEC);
  g_autofree char *base = g_date_time_format (time, "%Y-%m-%dT%H:%M:%S");

  return g_strdup_printf ("%s.%03dZ", base, (int) ((us / 1000) % 1000));
}

static JsonNode *
record_node (JsonObject *record)  /* takes a reference of its own */
{
  return json_node_init_object (json_node_alloc (), record);
}

/* The task as 2025-11-25 names its fields (ttl, pollInterval), without
 * result, error or input requests. */
static JsonObject *
legacy_task (JsonObject *record)
{
  JsonObject *task = json_object_new ();
  JsonNode *member;

  json_object_set_string_member (task, "taskId", snodo_json_object_get_string (record, "taskId"));
  json_object_set_string_member (task, "status", snodo_json_object_get_string (record, "status"));
  if (snodo_json_object_get_string (record, "statusMessage") != NULL)
    json_object_set_string_member (task, "statusMessage", snodo_json_object_get_string (record, "statusMessage"));
  json_object_set_string_member (task, "createdAt", snodo_json_object_get_string (record, "createdAt"));
  json_object_set_string_member (task, "lastUpdatedAt", snodo_json_object_get_string (record, "lastUpdatedAt"));
  if ((member = json_object_get_member (record, "ttlMs")) != NULL)
    json_object_set_member (task, "ttl", json_node_copy (member));
  if ((member = json_object_get_member (record, "pollIntervalMs")) != NULL)
    json_object_set_member (task, "pollInterval", json_node_copy (member));
  return task;
}

/* The task as created (CreateTaskResult's fields): no result, error or
 * input requests. */
static JsonObject *
modern_task (JsonObject *record)
{
  JsonObject *task = json_object_new ();
  const char *names[] = { "taskId", "status", "statusMessage", "createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs", NULL };

  for (guint i = 0; names[i] != NULL; i++)
    {
      JsonNode *member = json_object_get_member (record, names[i]);

      if (member != NULL)
        json_object_set_member (task, names[i], json_node_copy (member));
    }
  return task;
}

static void
run_notify (SnodoTaskRun *run)
{
  g_autoptr(JsonNode) params = NULL;
  g_autoptr(GBytes) line = NULL;

  /* 2026-07-28: to the subscriptions/listen streams that asked for the
   * task, the whole record, as tasks/get gives it. */
  if (!run->legacy)
    {
      snodo_server_announce_task (run->server, run->id, run->record);
      return;
    }
  params = snodo_json_node_take_object (legacy_task (run->record));
  line = snodo_frame_encode_notification ("notifications/tasks/status", params);
  snodo_connection_send (run->origin, line, NULL, NULL);
}

/* Stores the record after a change; a store that refuses keeps the last
 * record it took (logged). */
static void
run_save (SnodoServerTasks *tasks,
          SnodoTaskRun     *run)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *now = format_time (g_get_real_time ());

  json_object_set_string_member (run->record, "lastUpdatedAt", now);
  node = record_node (run->record);
  if (!snodo_task_store_save (tasks->store, run->id, node, run->expires_at, &error))
    g_warning ("Could not store task %s: %s", run->id, error->message);
  run_notify (run);
}

static void
run_set_status (SnodoTaskRun *run,
                const char   *status)
{
  json_object_set_string_member (run->record, "status", status);
}

/* Answers the tasks/result requests waiting for @run (2025-11-25). */
static void snodo_server_tasks_answer_result (SnodoServerTasks *tasks,
                                              SnodoInvocation  *invocation,
                                              JsonObject       *record);

static void
run_ended (SnodoServerTasks *tasks,
           SnodoTaskRun     *run)
{
  GHashTableIter iter;
  gpointer value;
  g_autoptr(GPtrArray) waiters = g_steal_pointer (&run->result_waiters);

  run->result_waiters = g_ptr_array_new ();
  json_object_remove_member (run->record, "inputRequests");
  g_hash_table_iter_init (&iter, run->waiting);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    g_task_return_new_error (value, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The task ended"));
  g_hash_table_remove_all (run->waiting);
  run_save (tasks, run);
  for (guint i = 0; i < waiters->len; i++)
    snodo_server_tasks_answer_result (tasks, g_ptr_array_index (waiters, i), run->record);
}

/* The task connection's transport: the handler's answer ends the task;
 * other lines (progress, logs) go on to the client in the initialize era. */

typedef struct
{
  SnodoSendFunc func;
  gpointer      user_data;
} Sent;

static gboolean
sent_cb (gpointer data)
{
  Sent *sent = data;

  if (sent->func != NULL)
    sent->func (NULL, sent->user_data);
  g_free (sent);
  return G_SOURCE_REMOVE;
}

static void
task_connection_send (gpointer       transport,
                      const char    *related,
                      GBytes        *line,
                      SnodoSendFunc  func,
                      gpointer       user_data)
{
  SnodoTaskRun *run = transport;
  g_autoptr(GBytes) owned = line;
  SnodoServerTasks *tasks = snodo_server_get_tasks (run->server);
  gsize len;
  const char *data = g_bytes_get_data (line, &len);
  g_autoptr(JsonNode) node = json_from_string (data, NULL);
  JsonObject *message = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;
  Sent *sent = g_new0 (Sent, 1);

  sent->func = func;
  sent->user_data = user_data;
  g_idle_add_full (G_PRIORITY_DEFAULT, sent_cb, sent, NULL);

  if (message == NULL)
    return;
  if (json_object_has_member (message, "method"))
    {
      if (run->legacy && !json_object_has_member (message, "id"))
        snodo_connection_send (run->origin, line, NULL, NULL);
      return;
    }
  if (snodo_task_record_is_terminal (run->record))
    return;

  g_object_ref (run);
  if (json_object_has_member (message, "error"))
    {
      run_set_status (run, "failed");
      json_object_set_member (run->record, "error", json_node_copy (json_object_get_member (message, "error")));
    }
  else
    {
      JsonNode *result = json_object_get_member (message, "result");

      run_set_status (run, "completed");
      if (result != NULL)
        json_object_set_member (run->record, "result", json_node_copy (result));
    }
  if (tasks != NULL)
    {
      run_ended (tasks, run);
      g_hash_table_remove (tasks->runs, run->id);
    }
  g_object_unref (run);
}

static void
task_connection_negotiated (gpointer             transport,
                            SnodoProtocolVersion version)
{
}

static const SnodoConnectionVTable task_connection_vtable = {
  task_connection_send,
  task_connection_negotiated,
};

/* Whether the client can take a task: 2026-07-28 declares the extension
 * (for the session or in this request's _meta: both arrive in the request's
 * envelope). */
static gboolean
client_has_extension (JsonObject *capabilities)
{
  JsonNode *extensions = json_object_get_member (capabilities, "extensions");

  return extensions != NULL && JSON_NODE_HOLDS_OBJECT (extensions) &&
         json_object_has_member (json_node_get_object (extensions), TASKS_EXTENSION);
}

static JsonNode *
required_extension_data (void)
{
  JsonObject *data = json_object_new ();
  JsonObject *required = json_object_new ();
  JsonObject *extensions = json_object_new ();

  json_object_set_object_member (extensions, TASKS_EXTENSION, json_object_new ());
  json_object_set_object_member (required, "extensions", extensions);
  json_object_set_object_member (data, "requiredCapabilities", required);
  return snodo_json_node_take_object (data);
}

static void
send_error (SnodoConnection    *connection,
            const SnodoDialect *dialect,
            SnodoFrame         *frame,
            int                 code,
            const char         *message,
            JsonNode           *data)
{
  g_autoptr(GBytes) line = snodo_dialect_encode_error (dialect, frame->id, code, message, data);

  snodo_connection_send_related (connection, frame->key, line, NULL, NULL);
}

static char *
new_task_id (void)
{
  guint8 bytes[16];
  g_autoptr(GError) error = NULL;
  GString *id = g_string_sized_new (33);

  if (!snodo_random_fill (bytes, sizeof bytes, &error))
    g_error ("No random source for task ids: %s", error->message);
  for (guint i = 0; i < sizeof bytes; i++)
    g_string_append_printf (id, "%02x", bytes[i]);
  return g_string_free (id, FALSE);
}

SnodoConnection *
snodo_server_tasks_divert (SnodoServer        *server,
                           SnodoConnection    *connection,
                           const SnodoDialect *dialect,
                           SnodoFrame         *frame,
                           SnodoTool          *tool,
                           SnodoInvocation    *invocation)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  SnodoTaskSupport support = snodo_tool_get_task_support (tool);
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(SnodoTaskRun) run = NULL;
  g_autoptr(JsonNode) result = NULL;
  g_autoptr(JsonNode) record = NULL;
  g_autoptr(GBytes) line = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *now = NULL;
  /* The invocation holds the params now (they may not be built). */
  JsonNode *hint = snodo_invocation_get_param (invocation, "task");
  gboolean forced = self->forcing;
  gint64 ttl_ms = self->default_ttl_ms;
  gint64 created = g_get_real_time ();

  self->forcing = FALSE;
  if (support == SNODO_TASK_SUPPORT_FORBIDDEN && !forced)
    return connection;

  if (dialect->stateless)
    {
      capabilities = snodo_invocation_dup_client_capabilities (invocation);
      if (!client_has_extension (capabilities))
        {
          if (support == SNODO_TASK_SUPPORT_OPTIONAL && !forced)
            return connection;
          send_error (connection, dialect, frame, SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY,
                      _("This tool runs as a task: the client must declare the io.modelcontextprotocol/tasks extension"),
                      required_extension_data ());
          return NULL;
        }
    }
  else
    {
      gboolean asked = hint != NULL && JSON_NODE_HOLDS_OBJECT (hint) &&
                       dialect->version >= SNODO_PROTOCOL_VERSION_2025_11_25;

      if (!asked && !forced)
        {
          if (support == SNODO_TASK_SUPPORT_REQUIRED && dialect->version >= SNODO_PROTOCOL_VERSION_2025_11_25)
            {
              send_error (connection, dialect, frame, SNODO_RPC_ERROR_METHOD_NOT_FOUND,
                          _("This tool runs as a task: call it with \"task\" in its params"), NULL);
              return NULL;
            }
          return connection;
        }
      if (asked)
        {
          JsonNode *ttl = json_object_get_member (json_node_get_object (hint), "ttl");

          if (ttl != NULL && JSON_NODE_HOLDS_VALUE (ttl) && json_node_get_value_type (ttl) == G_TYPE_INT64 &&
              json_node_get_int (ttl) > 0)
            ttl_ms = MIN (json_node_get_int (ttl), (gint64) self->max_ttl_ms);
        }
    }

  run = g_object_new (SNODO_TYPE_TASK_RUN, NULL);
  run->server = g_object_ref (server);
  run->id = new_task_id ();
  run->key = g_strdup (frame->key);
  run->legacy = !dialect->stateless;
  run->origin = snodo_connection_ref (connection);
  run->expires_at = created + ttl_ms * 1000;
  now = format_time (created);
  run->record = json_object_new ();
  json_object_set_string_member (run->record, "taskId", run->id);
  json_object_set_string_member (run->record, "status", "working");
  json_object_set_string_member (run->record, "createdAt", now);
  json_object_set_string_member (run->record, "lastUpdatedAt", now);
  json_object_set_int_member (run->record, "ttlMs", ttl_ms);
  json_object_set_int_member (run->record, "pollIntervalMs", self->poll_interval_ms);
  /* A 2025-11-25 task belongs to the connection (the session) that made
   * it; the mark is kept with the record, so that a task whose connection
   * is gone, also after a restart, stays out of everyone's reach. */
  if (run->legacy)
    json_object_set_boolean_member (run->record, BOUND_MEMBER, TRUE);

  /* Stored before the client hears of it, so that tasks/get finds it. */
  record = record_node (run->record);
  if (!snodo_task_store_save (self->store, run->id, record, run->expires_at, &error))
    {
      g_autofree char *message = g_strdup_printf (_("Server overloaded: %s"), error->message);

      send_error (connection, dialect, frame, SNODO_RPC_ERROR_SERVER_OVERLOADED, message, NULL);
      return NULL;
    }
  if (run->legacy)
    {
      ListedTask *listed = g_new0 (ListedTask, 1);

      listed->id = g_strdup (run->id);
      g_weak_ref_init (&listed->owner, connection->owner);
      g_hash_table_insert (self->owners, listed->id, listed);
      g_queue_push_tail (&self->ids, listed);
      while (self->ids.length > 100000)
        g_hash_table_remove (self->owners, ((ListedTask *) g_queue_pop_head (&self->ids))->id);
    }

  run->connection = snodo_connection_new (&task_connection_vtable, run, G_OBJECT (run),
                                          connection->executor, connection->context);
  snodo_connection_set_persistent (run->connection, FALSE);
  run->connection->era = connection->era;
  run->connection->legacy_version = connection->legacy_version;
  if (run->legacy)
    {
      g_autoptr(JsonObject) client = snodo_connection_dup_client_capabilities (connection);

      snodo_connection_set_client_capabilities (run->connection, client);
    }
  snodo_invocation_set_task (invocation, G_OBJECT (run), run->connection);
  g_hash_table_insert (self->runs, run->id, g_object_ref (run));

  if (run->legacy)
    {
      JsonObject *object = json_object_new ();

      json_object_set_object_member (object, "task", legacy_task (run->record));
      result = snodo_json_node_take_object (object);
    }
  else
    {
      JsonObject *object = modern_task (run->record);

      json_object_set_string_member (object, "resultType", "task");
      result = snodo_json_node_take_object (object);
    }
  /* 2026-07-28 results say what the server is, as every answer does. */
  if (dialect->stateless)
    line = snodo_dialect_encode_result (dialect, invocation->method_entry, invocation->stamp, frame->id, result);
  else
    line = snodo_frame_encode_result (frame->id, result);
  /* The application's answer hooks see the task as the answer it is; the
   * handler's result, later, is seen as it becomes the task's. */
  if (G_UNLIKELY (snodo_server_has_answer_hooks (server)))
    snodo_server_run_answer_hooks (server, invocation, line);
  snodo_connection_send_related (connection, frame->key, line, NULL, NULL);

  return run->connection;
}

void
snodo_server_tasks_refused (SnodoServer     *server,
                            SnodoConnection *task_connection,
                            const GError    *error)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  SnodoTaskRun *run = task_connection->transport;
  JsonObject *failure = json_object_new ();

  g_object_ref (run);
  json_object_set_int_member (failure, "code", SNODO_RPC_ERROR_SERVER_OVERLOADED);
  json_object_set_string_member (failure, "message", error->message);
  json_object_set_object_member (run->record, "error", failure);
  run_set_status (run, "failed");
  run_ended (self, run);
  g_hash_table_remove (self->runs, run->id);
  g_object_unref (run);
}

/* Input during a task. */

typedef struct
{
  SnodoTaskRun *run;
  char         *key;
  char         *method;
  JsonNode     *params;
  GCancellable *cancellable;
  GTask        *task;
} InputRequest;

static void
input_request_free (InputRequest *request)
{
  g_clear_object (&request->run);
  g_free (request->key);
  g_free (request->method);
  g_clear_pointer (&request->params, json_node_unref);
  g_clear_object (&request->cancellable);
  g_clear_object (&request->task);
  g_free (request);
}

static void
legacy_input_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  InputRequest *request = user_data;
  SnodoServerTasks *tasks = snodo_server_get_tasks (request->run->server);
  GError *error = NULL;
  JsonNode *answer = g_task_propagate_pointer (G_TASK (result), &error);

  if (tasks != NULL && !snodo_task_record_is_terminal (request->run->record))
    {
      run_set_status (request->run, "working");
      run_save (tasks, request->run);
    }
  if (answer != NULL)
    g_task_return_pointer (request->task, answer, (GDestroyNotify) json_node_unref);
  else
    g_task_return_error (request->task, error);
  input_request_free (request);
}

static gboolean
request_input_cb (gpointer data)
{
  InputRequest *request = data;
  SnodoTaskRun *run = request->run;
  SnodoServerTasks *tasks = snodo_server_get_tasks (run->server);
  JsonObject *entry;

  if (tasks == NULL || snodo_task_record_is_terminal (run->record))
    {
      g_task_return_new_error (request->task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("The task ended"));
      input_request_free (request);
      return G_SOURCE_REMOVE;
    }

  run_set_status (run, "input_required");
  if (run->legacy)
    {
      GTask *task;

      run_save (tasks, run);
      /* 2025-11-25: what is sent on behalf of a task names it. The
       * handler's params are left as they are (they may be sealed). */
      {
        JsonObject *params = json_object_new ();
        JsonObject *meta = json_object_new ();
        JsonObject *related = json_object_new ();
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        if (request->params != NULL)
          {
            json_object_iter_init (&iter, json_node_get_object (request->params));
            while (json_object_iter_next (&iter, &name, &member))
              {
                if (!g_str_equal (name, "_meta"))
                  json_object_set_member (params, name, json_node_copy (member));
                else if (JSON_NODE_HOLDS_OBJECT (member))
                  {
                    JsonObjectIter meta_iter;
                    const char *meta_name;
                    JsonNode *meta_member;

                    json_object_iter_init (&meta_iter, json_node_get_object (member));
                    while (json_object_iter_next (&meta_iter, &meta_name, &meta_member))
                      json_object_set_member (meta, meta_name, json_node_copy (meta_member));
                  }
              }
          }
        json_object_set_string_member (related, "taskId", run->id);
        json_object_set_object_member (meta, RELATED_TASK, related);
        json_object_set_object_member (params, "_meta", meta);
        g_clear_pointer (&request->params, json_node_unref);
        request->params = snodo_json_node_take_object (params);
      }
      task = g_task_new (run, NULL, legacy_input_cb, request);
      snodo_connection_request_input (run->origin, NULL, request->method, request->params, request->cancellable,
                                      snodo_server_get_request_timeout (run->server), task);
      return G_SOURCE_REMOVE;
    }

  entry = json_object_new ();
  json_object_set_string_member (entry, "method", request->method);
  if (request->params != NULL)
    json_object_set_member (entry, "params", json_node_copy (request->params));
  json_object_set_object_member (run->input_requests, request->key, entry);
  g_hash_table_replace (run->waiting, g_strdup (request->key), g_steal_pointer (&request->task));
  json_object_set_object_member (run->record, "inputRequests", json_object_ref (run->input_requests));
  run_save (tasks, run);
  input_request_free (request);
  return G_SOURCE_REMOVE;
}

void
snodo_server_tasks_request_input (GObject      *task_run,
                                  const char   *key,
                                  const char   *method,
                                  JsonNode     *params,
                                  GCancellable *cancellable,
                                  GTask        *task)
{
  SnodoTaskRun *run = SNODO_TASK_RUN (task_run);
  InputRequest *request = g_new0 (InputRequest, 1);

  request->run = g_object_ref (run);
  request->key = g_strdup (key);
  request->method = g_strdup (method);
  request->params = params != NULL ? json_node_copy (params) : NULL;
  request->cancellable = cancellable != NULL ? g_object_ref (cancellable) : NULL;
  request->task = task;
  g_main_context_invoke (run->origin->context, request_input_cb, request);
}

/* The methods. */

/* 2026-07-28: the tasks methods exist for a client that declared the
 * extension; else -32021. */
/* Whether the client of @invocation may see task @id: a 2025-11-25 task
 * only from the connection (the session) that made it, while it lasts;
 * another, or a 2026-07-28 request, is answered as for an unknown task. */
static gboolean
reachable (SnodoServerTasks *self,
           SnodoInvocation  *invocation,
           const char       *id,
           JsonObject       *record)
{
  ListedTask *listed;
  g_autoptr(GObject) owner = NULL;

  if (!json_object_get_boolean_member_with_default (record, BOUND_MEMBER, FALSE))
    return TRUE;
  listed = g_hash_table_lookup (self->owners, id);
  if (listed == NULL)
    return FALSE;
  owner = g_weak_ref_get (&listed->owner);
  return owner != NULL && owner == snodo_invocation_get_connection (invocation)->owner;
}

static gboolean
check_declared (SnodoInvocation *invocation)
{
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(GBytes) line = NULL;

  if (!snodo_invocation_get_dialect (invocation)->stateless)
    return TRUE;
  capabilities = snodo_invocation_dup_client_capabilities (invocation);
  if (client_has_extension (capabilities))
    return TRUE;
  if (!snodo_invocation_claim (invocation))
    return FALSE;
  {
    g_autoptr(JsonNode) data = required_extension_data ();

    line = snodo_dialect_encode_error (snodo_invocation_get_dialect (invocation), snodo_invocation_get_id (invocation),
                                       SNODO_RPC_ERROR_MISSING_REQUIRED_CLIENT_CAPABILITY,
                                       _("The client did not declare the io.modelcontextprotocol/tasks extension"),
                                       data);
  }
  snodo_invocation_finish (invocation, line);
  return FALSE;
}

/* The record of the task the request names, or NULL (answered: -32602). */
static JsonObject *
lookup_record (SnodoServer     *server,
               SnodoInvocation *invocation,
               char           **task_id)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  const char *id = snodo_json_object_get_string (params, "taskId");
  SnodoTaskRun *run;
  g_autoptr(JsonNode) stored = NULL;

  if (!check_declared (invocation))
    return NULL;
  if (id == NULL)
    {
      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                                             _("Invalid params: \"taskId\" must be a string"));
      return NULL;
    }
  *task_id = g_strdup (id);
  run = g_hash_table_lookup (self->runs, id);
  if (run != NULL && reachable (self, invocation, id, run->record))
    return json_object_ref (run->record);
  if (run == NULL)
    stored = snodo_task_store_load (self->store, id);
  if (stored == NULL || !JSON_NODE_HOLDS_OBJECT (stored) ||
      !reachable (self, invocation, id, json_node_get_object (stored)))
    {
      g_autofree char *message = g_strdup_printf (_("Invalid params: no task %s"), id);

      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
      g_clear_pointer (task_id, g_free);
      return NULL;
    }
  return json_object_ref (json_node_get_object (stored));
}

static void
return_object (SnodoInvocation *invocation,
               JsonObject      *object)
{
  g_autoptr(JsonNode) node = snodo_json_node_take_object (object);

  snodo_invocation_return_result (invocation, node);
}

void
snodo_server_method_tasks_get (SnodoServer     *server,
                               SnodoInvocation *invocation)
{
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) record = lookup_record (server, invocation, &id);

  if (record == NULL)
    return;
  if (snodo_invocation_get_dialect (invocation)->stateless)
    {
      JsonObject *detailed = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, record);
      while (json_object_iter_next (&iter, &name, &member))
        if (!g_str_equal (name, BOUND_MEMBER))
          json_object_set_member (detailed, name, json_node_copy (member));
      return_object (invocation, detailed);
    }
  else
    return_object (invocation, legacy_task (record));
}

static void
snodo_server_tasks_answer_result (SnodoServerTasks *tasks,
                                  SnodoInvocation  *invocation,
                                  JsonObject       *record)
{
  JsonNode *error = json_object_get_member (record, "error");
  JsonNode *result = json_object_get_member (record, "result");

  if (error != NULL && JSON_NODE_HOLDS_OBJECT (error))
    {
      JsonObject *object = json_node_get_object (error);
      g_autoptr(GBytes) line = NULL;

      if (!snodo_invocation_claim (invocation))
        return;
      line = snodo_dialect_encode_error (snodo_invocation_get_dialect (invocation), snodo_invocation_get_id (invocation),
                                         (int) json_object_get_int_member_with_default (object, "code", SNODO_RPC_ERROR_INTERNAL_ERROR),
                                         json_object_get_string_member_with_default (object, "message", ""),
                                         json_object_get_member (object, "data"));
      snodo_invocation_finish (invocation, line);
    }
  else if (result != NULL && JSON_NODE_HOLDS_OBJECT (result))
    {
      JsonObject *copy = json_object_new ();
      JsonObject *meta = json_object_new ();
      JsonObject *related = json_object_new ();
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (result));
      while (json_object_iter_next (&iter, &name, &member))
        if (!g_str_equal (name, "_meta"))
          json_object_set_member (copy, name, json_node_copy (member));
      json_object_set_string_member (related, "taskId", snodo_json_object_get_string (record, "taskId"));
      json_object_set_object_member (meta, RELATED_TASK, related);
      json_object_set_object_member (copy, "_meta", meta);
      return_object (invocation, copy);
    }
  else
    snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                           _("The task was cancelled"));
}

/* 2025-11-25: the task's result, once it has one. */
void
snodo_server_method_tasks_result (SnodoServer     *server,
                                  SnodoInvocation *invocation)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) record = lookup_record (server, invocation, &id);
  SnodoTaskRun *run;

  if (record == NULL)
    return;
  run = g_hash_table_lookup (self->runs, id);
  if (run != NULL && !snodo_task_record_is_terminal (run->record))
    {
      g_ptr_array_add (run->result_waiters, invocation);
      return;
    }
  snodo_server_tasks_answer_result (self, invocation, record);
}

/* 2025-11-25: the tasks made on this connection, newest first. */
void
snodo_server_method_tasks_list (SnodoServer     *server,
                                SnodoInvocation *invocation)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  JsonObject *object = json_object_new ();
  JsonArray *array = json_array_new ();
  GObject *mine = snodo_invocation_get_connection (invocation)->owner;
  GList *l, *prev;

  for (l = self->ids.tail; l != NULL; l = prev)
    {
      ListedTask *listed = l->data;
      g_autoptr(GObject) owner = g_weak_ref_get (&listed->owner);
      SnodoTaskRun *run = g_hash_table_lookup (self->runs, listed->id);
      g_autoptr(JsonNode) stored = NULL;

      prev = l->prev;
      if (owner == NULL || (run == NULL && (stored = snodo_task_store_load (self->store, listed->id)) == NULL))
        {
          /* Its connection or its record is gone. */
          g_queue_delete_link (&self->ids, l);
          g_hash_table_remove (self->owners, listed->id);
          continue;
        }
      if (owner != mine)
        continue;
      if (run != NULL)
        json_array_add_object_element (array, legacy_task (run->record));
      else if (JSON_NODE_HOLDS_OBJECT (stored))
        json_array_add_object_element (array, legacy_task (json_node_get_object (stored)));
    }
  json_object_set_array_member (object, "tasks", array);
  return_object (invocation, object);
}

/* 2026-07-28: answers to the inputs a task waits for. */
void
snodo_server_method_tasks_update (SnodoServer     *server,
                                  SnodoInvocation *invocation)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  JsonNode *responses = json_object_get_member (params, "inputResponses");
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) record = NULL;
  SnodoTaskRun *run;

  if (responses != NULL && !JSON_NODE_HOLDS_OBJECT (responses))
    {
      if (check_declared (invocation))
        snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS,
                                               _("Invalid params: \"inputResponses\" must be an object"));
      return;
    }
  record = lookup_record (server, invocation, &id);
  if (record == NULL)
    return;

  run = g_hash_table_lookup (self->runs, id);
  if (run != NULL && responses != NULL)
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;
      gboolean changed = FALSE;

      g_object_ref (run);
      json_object_iter_init (&iter, json_node_get_object (responses));
      while (json_object_iter_next (&iter, &name, &member))
        {
          GTask *task = g_hash_table_lookup (run->waiting, name);

          /* Keys it did not ask for are ignored. */
          if (task == NULL || !JSON_NODE_HOLDS_OBJECT (member))
            continue;
          g_object_ref (task);
          g_hash_table_remove (run->waiting, name);
          json_object_remove_member (run->input_requests, name);
          g_task_return_pointer (task, json_node_copy (member), (GDestroyNotify) json_node_unref);
          g_object_unref (task);
          changed = TRUE;
        }
      if (changed && !snodo_task_record_is_terminal (run->record))
        {
          if (json_object_get_size (run->input_requests) == 0)
            {
              run_set_status (run, "working");
              json_object_remove_member (run->record, "inputRequests");
            }
          else
            json_object_set_object_member (run->record, "inputRequests", json_object_ref (run->input_requests));
          run_save (self, run);
        }
      g_object_unref (run);
    }
  return_object (invocation, json_object_new ());
}

void
snodo_server_method_tasks_cancel (SnodoServer     *server,
                                  SnodoInvocation *invocation)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  g_autofree char *id = NULL;
  g_autoptr(JsonObject) record = lookup_record (server, invocation, &id);
  SnodoTaskRun *run;
  gboolean stateless = snodo_invocation_get_dialect (invocation)->stateless;

  if (record == NULL)
    return;

  run = g_hash_table_lookup (self->runs, id);
  if (run != NULL && !snodo_task_record_is_terminal (run->record))
    {
      g_object_ref (run);
      run_set_status (run, "cancelled");
      run_ended (self, run);
      /* The handler's cancellable fires; its answer is dropped. */
      snodo_executor_cancel (run->origin->executor, G_OBJECT (run), run->key);
      g_hash_table_remove (self->runs, run->id);
      g_clear_pointer (&record, json_object_unref);
      record = json_object_ref (run->record);
      g_object_unref (run);
    }
  else if (!stateless && snodo_task_record_is_terminal (record))
    {
      g_autofree char *message = g_strdup_printf (_("Invalid params: task %s has ended already"), id);

      snodo_invocation_return_error_literal (invocation, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, message);
      return;
    }

  /* 2026-07-28 acknowledges with an empty result (idempotent); 2025-11-25
   * answers with the task. */
  return_object (invocation, stateless ? json_object_new () : legacy_task (record));
}

gboolean
snodo_server_tasks_knows (SnodoServer *server,
                          const char  *task_id)
{
  SnodoServerTasks *self = snodo_server_get_tasks (server);
  g_autoptr(JsonNode) stored = NULL;

  if (self == NULL)
    return FALSE;
  if (g_hash_table_contains (self->runs, task_id))
    return !json_object_get_boolean_member_with_default (
      ((SnodoTaskRun *) g_hash_table_lookup (self->runs, task_id))->record, BOUND_MEMBER, FALSE);
  stored = snodo_task_store_load (self->store, task_id);
  /* A 2025-11-25 task is its session's: no 2026-07-28 listener hears of it. */
  return stored != NULL && JSON_NODE_HOLDS_OBJECT (stored) &&
         !json_object_get_boolean_member_with_default (json_node_get_object (stored), BOUND_MEMBER, FALSE);
}

gboolean
snodo_server_tasks_check_listen (SnodoServer     *server,
                                 SnodoInvocation *invocation,
                                 JsonNode        *task_ids,
                                 char           **message)
{
  if (!JSON_NODE_HOLDS_ARRAY (task_ids))
    {
      *message = g_strdup (_("Invalid params: \"notifications.taskIds\" must be an array of strings"));
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (json_node_get_array (task_ids)); i++)
    {
      JsonNode *id = json_array_get_element (json_node_get_array (task_ids), i);

      if (!JSON_NODE_HOLDS_VALUE (id) || json_node_get_value_type (id) != G_TYPE_STRING)
        {
          *message = g_strdup (_("Invalid params: \"notifications.taskIds\" must be an array of strings"));
          return FALSE;
        }
    }
  /* A server without tasks honours none; one with tasks answers -32021
   * itself when the extension is missing. */
  if (snodo_server_get_tasks (server) == NULL)
    return TRUE;
  return check_declared (invocation);
}

/* 2025-11-25: capabilities.tasks in the initialize result. */
void
snodo_server_tasks_add_capabilities (SnodoServer          *server,
                                     JsonObject           *capabilities,
                                     SnodoProtocolVersion  version)
{
  JsonObject *tasks, *requests, *tools;

  if (snodo_server_get_tasks (server) == NULL || version != SNODO_PROTOCOL_VERSION_2025_11_25)
    return;
  tasks = json_object_new ();
  json_object_set_object_member (tasks, "list", json_object_new ());
  json_object_set_object_member (tasks, "cancel", json_object_new ());
  requests = json_object_new ();
  tools = json_object_new ();
  json_object_set_object_member (tools, "call", json_object_new ());
  json_object_set_object_member (requests, "tools", tools);
  json_object_set_object_member (tasks, "requests", requests);
  json_object_set_object_member (capabilities, "tasks", tasks);
}

/* Public API. */

/**
 * snodo_server_enable_tasks:
 * @self: a server
 * @store: (nullable): where the tasks are kept, or %NULL for a new store in
 *   memory with the default bounds ([func@Snodo.TaskStore.new_memory])
 * @error: return location for an error
 *
 * Serves tasks: calls of tools whose [property@Snodo.Tool:task-support]
 * allows it run as tasks, which the client follows and cancels by their
 * task id, and whose result it fetches later. The same handler serves a
 * plain call and a task; [method@Snodo.Invocation.is_task] tells them
 * apart.
 *
 * - 2025-11-25 (the experimental tasks of the core protocol): a call runs
 *   as a task when the client asks (a `task` in the call's params); the
 *   server has the `tasks` capability and serves `tasks/get`,
 *   `tasks/result`, `tasks/list` and `tasks/cancel`, and tells the client
 *   of every change of status with `notifications/tasks/status`. Tools
 *   list their `execution.taskSupport`. Input the handler asks for goes to
 *   the client as in a plain call, the task being `input_required` until
 *   it is answered.
 * - 2026-07-28 (the `io.modelcontextprotocol/tasks` extension, advertised
 *   under `extensions`): the server decides. A call of a tool that
 *   supports tasks runs as one whenever the client declared the extension
 *   (in its capabilities, for its session or the one request); a handler
 *   may also turn a call into a task itself
 *   ([method@Snodo.Invocation.return_task]). The answer is
 *   `resultType: "task"`; the client polls `tasks/get`, which inlines the
 *   result or error once the task ends, answers input requests with
 *   `tasks/update` and cancels with `tasks/cancel`.
 *
 * Task ids are 128 random bits from the system's random source. A task is
 * kept for its time to live (one hour, or what a 2025-11-25 client asks,
 * at most a day) or until the store makes room for newer ones. Handlers of
 * tasks have no [property@Snodo.Server:handler-timeout].
 *
 * Returns: %TRUE if tasks are served; %FALSE if they were already
 *
 * Since: 0.1
 */
gboolean
snodo_server_enable_tasks (SnodoServer     *self,
                           SnodoTaskStore  *store,
                           GError         **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (store == NULL || SNODO_IS_TASK_STORE (store), FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (snodo_server_get_tasks (self) != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("Tasks are served already"));
      return FALSE;
    }
  if (!snodo_server_add_extension (self, TASKS_EXTENSION, NULL, error))
    return FALSE;
  snodo_server_set_tasks (self, snodo_server_tasks_new (store));
  return TRUE;
}

/**
 * snodo_invocation_is_task:
 * @self: an invocation
 *
 * Whether the call runs as a task: its answer becomes the task's result,
 * which the client fetches later.
 *
 * Returns: %TRUE for a task
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_is_task (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);

  return snodo_invocation_get_task (self) != NULL;
}

typedef struct
{
  SnodoInvocation *invocation;
  GBytes          *message;
  gsize            cost;
} Again;

static gboolean
again_cb (gpointer data)
{
  Again *again = data;
  SnodoInvocation *invocation = again->invocation;
  SnodoServer *server = snodo_invocation_get_server (invocation);
  SnodoServerTasks *tasks = snodo_server_get_tasks (server);
  SnodoConnection *connection = snodo_invocation_get_connection (invocation);
  g_autoptr(GHashTable) headers = NULL;
  g_auto(SnodoFrame) frame = { 0, };
  gsize len;
  const char *text = g_bytes_get_data (again->message, &len);

  snodo_frame_decode (text, len, &frame);
  if (!snodo_invocation_get_dialect (invocation)->stateless)
    {
      headers = g_hash_table_new (g_str_hash, g_str_equal);
      g_hash_table_insert (headers, (gpointer) SNODO_HEADER_PROTOCOL_VERSION,
                           (gpointer) snodo_protocol_version_to_string (snodo_invocation_get_dialect (invocation)->version));
    }
  tasks->forcing = TRUE;
  snodo_server_dispatch (server, connection, &frame, headers, again->cost);
  tasks->forcing = FALSE;

  /* The first run ends without an answer of its own: the task's was sent. */
  if (invocation->work != NULL)
    {
      snodo_executor_release_key (connection->executor, invocation->work);
      snodo_work_complete (invocation->work);
    }
  g_object_unref (invocation);
  g_bytes_unref (again->message);
  g_free (again);
  return G_SOURCE_REMOVE;
}

/**
 * snodo_invocation_return_task:
 * @self: (transfer full): an invocation of a tool, not yet a task
 *
 * Answers the call by turning it into a task: the client is given the
 * task, and the handler is called again, for the same request, as the
 * task's handler ([method@Snodo.Invocation.is_task] is then %TRUE). A
 * handler that gathers input first (2026-07-28 `input_required` rounds)
 * and then decides the work is long does this in its last round: the
 * answers it gathered are there again when it runs as the task.
 *
 * The client must be able to take a task (in 2026-07-28, it declared the
 * `io.modelcontextprotocol/tasks` extension); if not, the call is answered
 * with error -32021. Like every `return_*()` function, this takes the
 * invocation's reference.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_task (SnodoInvocation *self)
{
  Again *again;
  g_autofree char *text = NULL;
  gsize len = 0;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->tool_call);
  g_return_if_fail (snodo_invocation_get_task (self) == NULL);

  if (snodo_server_get_tasks (self->server) == NULL)
    {
      snodo_invocation_return_error_literal (self, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                             _("The server does not serve tasks"));
      return;
    }
  if (!snodo_invocation_claim (self))
    return;

  /* The request once more, its _meta included, as the transport gave it. */
  {
    JsonNode *params = snodo_invocation_get_params (self);
    JsonObject *message = json_object_new ();

    json_object_set_string_member (message, "jsonrpc", "2.0");
    json_object_set_member (message, "id", json_node_copy (self->id));
    json_object_set_string_member (message, "method", self->method);
    json_object_set_member (message, "params", json_node_copy (params));
    {
      g_autoptr(JsonNode) node = snodo_json_node_take_object (message);

      text = snodo_json_to_string (node, &len);
    }
  }
  again = g_new0 (Again, 1);
  again->invocation = self;
  again->message = g_bytes_new_take (g_steal_pointer (&text), len);
  again->cost = len;
  g_main_context_invoke (self->connection->context, again_cb, again);
}
