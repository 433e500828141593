/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <math.h>

#include "snodo-base-private.h"
#include "snodo-connection-private.h"
#include "snodo-executor-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-middleware-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-tasks-private.h"
#include "snodo-wire-private.h"

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
 * A handler written in Python or JavaScript runs on the main context and
 * may answer later, from a callback of the main loop. In Python:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * def slow_echo(invocation):
 *     text = invocation.get_arguments()['text']
 *     invocation.report_progress(1, 2, 'thinking')
 *
 *     def later():
 *         if invocation.get_cancellable().is_cancelled():
 *             invocation.return_tool_error('cancelled')
 *         else:
 *             invocation.return_text(text)
 *         return GLib.SOURCE_REMOVE
 *
 *     GLib.timeout_add(100, later)
 *
 * server.add_tool(Snodo.Tool.new('slow-echo', 'Returns its text, later'), slow_echo)
 *
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * loop = GLib.MainLoop()
 * transport.connect('closed', lambda *_: loop.quit())
 * transport.start()
 * loop.run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
 * server.add_tool(Snodo.Tool.new('slow-echo', 'Returns its text, later'), invocation => {
 *     const {text} = invocation.get_arguments();
 *     invocation.report_progress(1, 2, 'thinking');
 *     GLib.timeout_add(GLib.PRIORITY_DEFAULT, 100, () => {
 *         if (invocation.get_cancellable().is_cancelled())
 *             invocation.return_tool_error('cancelled');
 *         else
 *             invocation.return_text(text);
 *         return GLib.SOURCE_REMOVE;
 *     });
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

#define MAX_PROGRESS_IN_FLIGHT 16

/* The protocol layer names the levels in this order. */
G_STATIC_ASSERT (SNODO_LOG_LEVEL_DEBUG == 0 && SNODO_LOG_LEVEL_EMERGENCY == 7);

G_DEFINE_FINAL_TYPE (SnodoInvocation, snodo_invocation, G_TYPE_OBJECT)

/* The last reference outside Snodo is gone. An invocation whose handler let
 * go of it without answering (a handler that raised, forgot, or failed a
 * precondition) still gets its one answer, as GTask warns of a task that
 * was never returned. */
static void
snodo_invocation_dispose (GObject *object)
{
  SnodoInvocation *self = SNODO_INVOCATION (object);

  if (self->dispatched && g_atomic_int_get (&self->returned) == RETURNED_OPEN)
    {
      if (self->work != NULL && snodo_work_is_cancelled (self->work))
        g_debug ("The handler of %s let go of a cancelled request", self->method);
      else if (self->name != NULL)
        g_warning ("The handler of %s “%s” released its invocation without answering it; "
                   "answering with an internal error", self->method, self->name);
      else
        g_warning ("The handler of %s released its invocation without answering it; "
                   "answering with an internal error", self->method);
      /* Keeps the invocation alive until its answer is written. */
      snodo_invocation_end (self, _("Internal error: the handler ended without answering"));
    }

  G_OBJECT_CLASS (snodo_invocation_parent_class)->dispose (object);
}

static void
snodo_invocation_finalize (GObject *object)
{
  SnodoInvocation *self = SNODO_INVOCATION (object);

  if (G_UNLIKELY (self->middleware != NULL))
    snodo_middleware_chain_detach (g_steal_pointer (&self->middleware), self->connection->context);
  g_clear_object (&self->server);
  g_clear_pointer (&self->connection, snodo_connection_unref);
  g_clear_pointer (&self->stamp, snodo_stamp_unref);
  g_clear_pointer (&self->auth, snodo_auth_info_unref);
  g_clear_pointer (&self->message, json_node_unref);
  g_clear_pointer (&self->id, json_node_unref);
  g_clear_pointer (&self->params, json_node_unref);
  snodo_json_members_clear (&self->members);
  snodo_request_meta_clear (&self->meta);
  g_clear_pointer (&self->arguments, json_object_unref);
  g_clear_pointer (&self->key, g_free);
  g_clear_pointer (&self->name, g_ref_string_release);
  g_clear_pointer (&self->input_answers, json_object_unref);
  g_clear_pointer (&self->unrequested_answers, json_object_unref);
  g_clear_object (&self->task_run);
  if (G_UNLIKELY (self->hooked != NULL))
    {
      g_clear_pointer (&self->hooked->annotations, json_object_unref);
      g_free (self->hooked->reject_message);
      g_clear_pointer (&self->hooked, g_free);
    }
  g_clear_pointer (&self->output_schema, json_node_unref);
  g_clear_pointer (&self->progress_token, json_node_unref);
  g_clear_pointer (&self->required_capabilities, json_object_unref);
  g_clear_pointer (&self->pending_inputs, g_ptr_array_unref);
  /* Refused before its handler ran (an unknown tool, arguments that do
   * not fit): the error went without the invocation. */
  if (G_UNLIKELY (self->span != NULL))
    snodo_invocation_end_span (self, NULL, "refused");
  g_assert (self->deadline == NULL);
  g_mutex_clear (&self->lock);
  g_clear_object (&self->work);

  G_OBJECT_CLASS (snodo_invocation_parent_class)->finalize (object);
}

static void
snodo_invocation_class_init (SnodoInvocationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = snodo_invocation_dispose;
  object_class->finalize = snodo_invocation_finalize;
}

static void
snodo_invocation_init (SnodoInvocation *self)
{
  g_mutex_init (&self->lock);
}

SnodoInvocation *
snodo_invocation_new (SnodoServer        *server,
                      SnodoConnection    *connection,
                      const SnodoDialect *dialect,
                      const SnodoMethod  *method_entry,
                      SnodoStamp         *stamp,
                      JsonNode           *message,
                      JsonNode           *id,
                      const char         *key,
                      JsonNode           *params,
                      SnodoJsonMembers   *members,
                      SnodoRequestMeta   *meta)
{
  SnodoInvocation *self = g_object_new (SNODO_TYPE_INVOCATION, NULL);

  self->server = g_object_ref (server);
  self->connection = snodo_connection_ref (connection);
  self->dialect = dialect;
  self->method_entry = method_entry;
  self->stamp = stamp;
  if (G_UNLIKELY (connection->auth != NULL))
    self->auth = snodo_auth_info_ref (connection->auth);
  /* The request is not sealed: json_node_seal() is deep in json-glib 1.6
   * and hashes every member name and string value of every object it
   * seals (12% of the CPU time on a 10 KiB echo), and it would not make
   * the tree safe to share anyway, as JsonObject reference counts are not
   * atomic in 1.6. What keeps handlers from changing what another thread
   * reads is ownership: the tree was parsed for this request alone, the
   * transport lets go of it at dispatch, and while the handler runs Snodo
   * reads it only in calls the handler makes. The one later read from
   * another thread, the requestState of a 2026-07-28 input_required
   * answer, seals params first (snodo_invocation_queue_input()). */
  self->message = message != NULL ? json_node_ref (message) : NULL;
  /* The frame's: parentless, never changed (JsonNode references are
   * atomic). */
  self->id = json_node_ref (id);
  self->key = g_strdup (key);
  /* The dialect's table entry names the method for the life of the
   * process. */
  self->method = method_entry->name;
  if (members != NULL)
    {
      /* Built when someone asks for params whole. */
      self->has_members = TRUE;
      self->members = *members;
      members->n = 0;
    }
  else if (params != NULL && json_node_get_parent (params) == NULL)
    {
      /* Decoded without building the message: params is a tree of its
       * own. */
      self->params = json_node_ref (params);
    }
  else
    {
      /* A member of @message, which keeps its parent alive. */
      self->params = json_node_new (JSON_NODE_OBJECT);
      if (params != NULL)
        json_node_set_object (self->params, json_node_get_object (params));
      else
        json_node_take_object (self->params, json_object_new ());
    }

  snodo_request_meta_move (&self->meta, meta);
  self->progress_token = snodo_request_meta_dup_progress_token (&self->meta);
  if (G_UNLIKELY (self->meta.traceparent != NULL) || G_UNLIKELY (snodo_telemetry_recording ()))
    snodo_invocation_start_span (self);
  return self;
}

JsonNode *
snodo_invocation_get_param (SnodoInvocation *self,
                            const char      *name)
{
  if (self->has_members)
    return snodo_json_members_lookup (&self->members, name);
  return json_object_get_member (json_node_get_object (self->params), name);
}

/* Puts the _meta that decoding left as text back into params, for those
 * who read params whole. With the lock held. */
void
snodo_invocation_build_params_locked (SnodoInvocation *self)
{
  JsonNode *meta;

  if (self->params == NULL)
    self->params = snodo_json_members_build (&self->members);
  if (!self->meta.deferred)
    return;
  meta = snodo_request_meta_parse (&self->meta);
  json_object_set_member (json_node_get_object (self->params), SNODO_META, meta);
  self->meta.deferred = FALSE;
}

void
snodo_invocation_set_output_schema (SnodoInvocation *self,
                                    JsonNode        *schema)
{
  g_clear_pointer (&self->output_schema, json_node_unref);
  if (schema != NULL)
    self->output_schema = json_node_ref (schema);
}

/**
 * snodo_invocation_get_id:
 * @self: an invocation
 *
 * Gets the id of the request, as the client sent it (a string or an
 * integer).
 *
 * Returns: (transfer none): the id
 *
 * Since: 0.1
 */
JsonNode *
snodo_invocation_get_id (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  return self->id;
}

const char *
snodo_invocation_get_key (SnodoInvocation *self)
{
  return self->key;
}

void
snodo_invocation_set_input_answers (SnodoInvocation *self,
                                    JsonObject      *answers)
{
  g_clear_pointer (&self->input_answers, json_object_unref);
  if (answers != NULL)
    self->input_answers = json_object_ref (answers);
}


void
snodo_invocation_set_task (SnodoInvocation *self,
                           GObject         *task_run,
                           SnodoConnection *connection)
{
  g_set_object (&self->task_run, task_run);
  snodo_connection_unref (self->connection);
  self->connection = snodo_connection_ref (connection);
}

GObject *
snodo_invocation_get_task (SnodoInvocation *self)
{
  return self->task_run;
}

void
snodo_invocation_set_work (SnodoInvocation *self,
                           SnodoWork       *work)
{
  g_set_object (&self->work, work);
  self->dispatched = TRUE;
}

void
snodo_invocation_set_name (SnodoInvocation *self,
                           const char      *name)
{
  g_clear_pointer (&self->name, g_ref_string_release);
  self->name = name != NULL ? g_ref_string_new (name) : NULL;
}

/* The same, with a name that already is a GRefString, such as a tool
 * entry's: a reference instead of a copy on every call. */
void
snodo_invocation_set_ref_name (SnodoInvocation *self,
                               char            *name)
{
  g_clear_pointer (&self->name, g_ref_string_release);
  self->name = name != NULL ? g_ref_string_acquire (name) : NULL;
}

/* Marks a tools/call: non-protocol errors become tool results with
 * isError, and the arguments object is looked up. */
void
snodo_invocation_set_tool_call (SnodoInvocation *self,
                                gboolean         tool_call)
{
  JsonNode *arguments;

  self->tool_call = tool_call;
  arguments = snodo_invocation_get_param (self, "arguments");
  g_clear_pointer (&self->arguments, json_object_unref);
  if (arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments))
    self->arguments = json_object_ref (json_node_get_object (arguments));
  else
    self->arguments = json_object_new ();
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

typedef struct
{
  SnodoInvocation *invocation;
  GBytes          *line;
} Observed;

static void
observed_free (Observed *observed)
{
  g_clear_object (&observed->invocation);
  g_clear_pointer (&observed->line, g_bytes_unref);
  g_free (observed);
}

/* On the connection's context: the answer hooks see the answer, then it
 * is sent. */
static gboolean
snodo_invocation_observed_cb (gpointer user_data)
{
  Observed *observed = user_data;
  SnodoInvocation *self = g_steal_pointer (&observed->invocation);

  snodo_server_run_answer_hooks (self->server, self, observed->line);
  snodo_connection_send_related (self->connection, self->key, observed->line, snodo_invocation_sent_cb, self);
  return G_SOURCE_REMOVE;
}

/* Answer hooks run on the connection's context; an answer made on another
 * thread gets there the way its progress lines do, after them. Takes the
 * invocation's reference. */
static void
snodo_invocation_send_observed (SnodoInvocation *self,
                                GBytes          *line)
{
  Observed *observed;
  GSource *source;

  if (g_main_context_is_owner (self->connection->context))
    {
      snodo_server_run_answer_hooks (self->server, self, line);
      snodo_connection_send_related (self->connection, self->key, line, snodo_invocation_sent_cb, self);
      return;
    }

  observed = g_new0 (Observed, 1);
  observed->invocation = self;
  observed->line = g_bytes_ref (line);
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] answer hooks");
  g_source_set_callback (source, snodo_invocation_observed_cb, observed, (GDestroyNotify) observed_free);
  g_source_attach (source, self->connection->context);
  g_source_unref (source);
}

/* Takes the invocation's reference, sends @line unless the request was
 * cancelled, and completes the work once the line is written. */
void
snodo_invocation_finish (SnodoInvocation *self,
                         GBytes          *line)
{
  if (self->work != NULL && snodo_work_is_cancelled (self->work))
    {
      /* A cancelled request gets no answer. */
      if (G_UNLIKELY (self->span != NULL))
        snodo_invocation_end_span (self, NULL, "cancelled");
      snodo_work_complete (self->work);
      g_object_unref (self);
      return;
    }
  /* A middleware waits for it (snodo-server-middleware.c). */
  if (G_UNLIKELY (self->middleware != NULL) && snodo_middleware_chain_take (self->middleware, self, line))
    return;
  /* The answer that goes: the span ends with it. */
  if (G_UNLIKELY (self->span != NULL))
    snodo_invocation_end_span (self, line, NULL);

  /* The answer is decided: the client may reuse the id once it reads it,
   * which can be before the helper reports the write. */
  if (self->work != NULL)
    snodo_executor_release_key (self->connection->executor, self->work);
  if (G_UNLIKELY (snodo_server_has_answer_hooks (self->server)))
    {
      snodo_invocation_send_observed (self, line);
      return;
    }
  snodo_connection_send_related (self->connection, self->key, line, snodo_invocation_sent_cb, self);
}

static void
snodo_invocation_clear_deadline (SnodoInvocation *self)
{
  SnodoDeadline *deadline;

  g_mutex_lock (&self->lock);
  deadline = g_steal_pointer (&self->deadline);
  g_mutex_unlock (&self->lock);
  if (deadline != NULL)
    snodo_connection_remove_deadline (self->connection, deadline);
}

/* The handler answers. Takes the invocation's reference when the answer
 * is refused because Snodo ended the request already (a late answer,
 * dropped quietly); a second answer of the handler is a programming error,
 * reported, and its reference is left alone. */
gboolean
snodo_invocation_claim (SnodoInvocation *self)
{
  if (!g_atomic_int_compare_and_exchange (&self->returned, RETURNED_OPEN, RETURNED_ANSWERED))
    {
      if (g_atomic_int_get (&self->returned) == RETURNED_ENDED)
        {
          g_debug ("A late answer to %s was dropped", self->method);
          g_object_unref (self);
        }
      else
        g_critical ("The invocation of %s was answered twice", self->method);
      return FALSE;
    }
  /* A middleware's deadline is the request's. */
  if (G_LIKELY (self->middleware == NULL) || !snodo_middleware_chain_is_waiting (self->middleware))
    snodo_invocation_clear_deadline (self);
  return TRUE;
}

/* Snodo ends the request itself with error -32603 and @message (or, if it
 * was cancelled, with no answer): the handler answered nothing in time, or
 * let go of the invocation. A later answer of the handler is dropped. */
void
snodo_invocation_end (SnodoInvocation *self,
                      const char      *message)
{
  g_autoptr(GBytes) line = NULL;

  /* Made bare (g_object_new), for no request: nothing to answer. */
  if (self->server == NULL)
    return;
  if (!g_atomic_int_compare_and_exchange (&self->returned, RETURNED_OPEN, RETURNED_ENDED))
    return;
  snodo_invocation_clear_deadline (self);

  g_object_ref (self);
  line = snodo_dialect_encode_error (self->dialect, self->id, SNODO_RPC_ERROR_INTERNAL_ERROR, message, NULL);
  snodo_invocation_finish (self, line);
}

/**
 * snodo_invocation_reject:
 * @self: an invocation, in a request hook
 * @code: the JSON-RPC error code: one of [error@Snodo.RpcError] such as
 *   %SNODO_RPC_ERROR_INVALID_REQUEST, or an application's own
 * @message: the error message
 *
 * Refuses the request from a [callback@Snodo.RequestHookFunc]: it is
 * answered with error @code and @message, in the request's protocol
 * version, and no handler runs; the hooks installed after this one do not
 * see it. Only a request hook may call this, on the invocation it was given.
 *
 * Since: 0.1
 */
void
snodo_invocation_reject (SnodoInvocation *self,
                         int              code,
                         const char      *message)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (message != NULL);
  g_return_if_fail (code != 0);
  g_return_if_fail (self->server != NULL && !self->dispatched);

  if (self->hooked == NULL)
    self->hooked = g_new0 (SnodoHooked, 1);
  self->hooked->reject_code = code;
  g_free (self->hooked->reject_message);
  self->hooked->reject_message = g_strdup (message);
}

/**
 * snodo_invocation_set_annotation:
 * @self: an invocation, in a request hook
 * @key: a name, the application's
 * @value: (nullable): the value (a copy is kept), or %NULL to remove it
 *
 * Attaches data to the request from a [callback@Snodo.RequestHookFunc]
 * (who the caller is, a budget, a trace identifier) for its handler to
 * read with [method@Snodo.Invocation.get_annotation]. Nothing of it is
 * sent. Only a request hook may call this: once the handler runs the
 * annotations do not change, so it may read them from any thread.
 *
 * Since: 0.1
 */
void
snodo_invocation_set_annotation (SnodoInvocation *self,
                                 const char      *key,
                                 JsonNode        *value)
{
  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (key != NULL);
  g_return_if_fail (self->server != NULL && !self->dispatched);

  if (value == NULL)
    {
      if (self->hooked != NULL && self->hooked->annotations != NULL)
        json_object_remove_member (self->hooked->annotations, key);
      return;
    }
  if (self->hooked == NULL)
    self->hooked = g_new0 (SnodoHooked, 1);
  if (self->hooked->annotations == NULL)
    self->hooked->annotations = json_object_new ();
  json_object_set_member (self->hooked->annotations, key, json_node_copy (value));
}

/**
 * snodo_invocation_get_annotation:
 * @self: an invocation
 * @key: the name given to [method@Snodo.Invocation.set_annotation]
 *
 * Gets what a request hook attached to the request under @key.
 *
 * Returns: (transfer none) (nullable): the value, sealed once the handler
 *   runs; %NULL if there is none
 *
 * Since: 0.1
 */
JsonNode *
snodo_invocation_get_annotation (SnodoInvocation *self,
                                 const char      *key)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  if (self->hooked == NULL || self->hooked->annotations == NULL)
    return NULL;
  return json_object_get_member (self->hooked->annotations, key);
}

/* After the request hooks ran, on the connection's context: a refused
 * request is answered with the hook's error through the answer hooks, as
 * any other answer; the invocation is never dispatched. Otherwise the
 * annotations are sealed for the handler. */
gboolean
snodo_invocation_answer_rejection (SnodoInvocation *self)
{
  g_autoptr(GBytes) line = NULL;

  if (self->hooked == NULL)
    return FALSE;
  if (self->hooked->reject_code == 0)
    {
      if (self->hooked->annotations != NULL)
        json_object_seal (self->hooked->annotations);
      return FALSE;
    }
  if (!g_atomic_int_compare_and_exchange (&self->returned, RETURNED_OPEN, RETURNED_ANSWERED))
    return TRUE;

  line = snodo_dialect_encode_error (self->dialect, self->id, self->hooked->reject_code,
                                     self->hooked->reject_message, NULL);
  g_object_ref (self);
  snodo_invocation_finish (self, line);
  return TRUE;
}

/* Entry: on the connection's context, when the handler's deadline passed.
 * The request gets its error answer first, then its cancellable fires. */
static void
snodo_invocation_deadline_cb (GObject *target)
{
  SnodoInvocation *self = SNODO_INVOCATION (target);
  g_autofree char *message = NULL;
  g_autoptr(GBytes) line = NULL;
  g_autoptr(GCancellable) cancellable = NULL;

  snodo_invocation_clear_deadline (self);
  if (!g_atomic_int_compare_and_exchange (&self->returned, RETURNED_OPEN, RETURNED_ENDED))
    return;

  if (self->name != NULL)
    message = g_strdup_printf (_("Internal error: the handler of %s “%s” did not answer within %u ms"),
                               self->method, self->name, self->deadline_ms);
  else
    message = g_strdup_printf (_("Internal error: the handler of %s did not answer within %u ms"),
                               self->method, self->deadline_ms);
  g_warning ("%s", message);

  if (self->work != NULL)
    cancellable = g_object_ref (snodo_work_get_cancellable (self->work));
  line = snodo_dialect_encode_error (self->dialect, self->id, SNODO_RPC_ERROR_INTERNAL_ERROR, message, NULL);
  /* Unless the client cancelled it already: then it gets no answer. */
  snodo_invocation_finish (g_object_ref (self), line);
  if (cancellable != NULL)
    g_cancellable_cancel (cancellable);
}

/* Arms the handler's deadline: @timeout milliseconds from now, on the
 * connection's context. Called before the handler runs. */
void
snodo_invocation_start_deadline (SnodoInvocation *self,
                                 guint            timeout)
{
  SnodoDeadline *deadline;

  if (timeout == 0)
    return;

  self->deadline_ms = timeout;
  deadline = snodo_connection_add_deadline (self->connection,
                                            g_get_monotonic_time () + (gint64) timeout * 1000,
                                            G_OBJECT (self), snodo_invocation_deadline_cb);
  g_mutex_lock (&self->lock);
  g_assert (self->deadline == NULL);
  self->deadline = deadline;
  g_mutex_unlock (&self->lock);
}

/**
 * snodo_invocation_get_method:
 * @self: an invocation
 *
 * Gets the JSON-RPC method of the request, such as `"tools/call"`.
 *
 * Returns: (transfer none): the method name
 *
 * Since: 0.1
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
 * Since: 0.1
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
 * none). Read it, do not change it: it is the request as received, which
 * Snodo reads too.
 *
 * Returns: (transfer none): the parameters
 *
 * Since: 0.1
 */
JsonNode *
snodo_invocation_get_params (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  g_mutex_lock (&self->lock);
  snodo_invocation_build_params_locked (self);
  g_mutex_unlock (&self->lock);
  return self->params;
}

/**
 * snodo_invocation_get_arguments:
 * @self: an invocation
 *
 * Gets the `arguments` of a tool call (an empty object when there were
 * none). Read it, do not change it: it is part of the request as
 * received, which Snodo reads too.
 *
 * Returns: (transfer none): the arguments
 *
 * Since: 0.1
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
 * Since: 0.1
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
 * Since: 0.1
 */
SnodoProtocolVersion
snodo_invocation_get_protocol_version (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), SNODO_PROTOCOL_VERSION_UNKNOWN);
  g_return_val_if_fail (self->server != NULL, SNODO_PROTOCOL_VERSION_UNKNOWN);  /* made bare, for no request */
  return self->dialect->version;
}

/* Ends the invocation without an answer: the request was cancelled, or a
 * subscription ended with its transport. Takes the invocation's reference. */
void
snodo_invocation_drop (SnodoInvocation *self)
{
  if (!snodo_invocation_claim (self))
    return;
  if (self->work != NULL)
    snodo_work_complete (self->work);
  g_object_unref (self);
}

gboolean
snodo_invocation_is_live (SnodoInvocation *self)
{
  if (g_atomic_int_get (&self->returned))
    return FALSE;
  return self->work == NULL || !snodo_work_is_cancelled (self->work);
}

static void
progress_sent_cb (const GError *error,
                  gpointer      user_data)
{
  g_autoptr(SnodoInvocation) self = user_data;

  g_atomic_int_dec_and_test (&self->progress_in_flight);
}

/**
 * snodo_invocation_report_progress:
 * @self: an invocation
 * @progress: how far the work is; it must grow with every report
 * @total: the total @progress will reach, or a negative number if unknown
 * @message: (nullable): what is being done, for a person to read
 *
 * Tells the client how far the request has come, if it asked for progress
 * (a `progressToken` in the request's `_meta`). Reports whose @progress does
 * not grow are not sent, nor are reports after the answer or after a
 * cancellation. Progress is advisory: when the client reads slowly and 16
 * reports are still waiting to be written, further ones are dropped until
 * they are. Callable from any thread.
 *
 * Returns: %TRUE if the report was sent
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_report_progress (SnodoInvocation *self,
                                  double           progress,
                                  double           total,
                                  const char      *message)
{
  g_autoptr(GBytes) line = NULL;
  g_autoptr(JsonNode) params = NULL;
  JsonObject *object;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);

  if (self->progress_token == NULL || !isfinite (progress) || !snodo_invocation_is_live (self))
    return FALSE;

  g_mutex_lock (&self->lock);
  if ((self->progress_sent && progress <= self->last_progress) ||
      g_atomic_int_get (&self->progress_in_flight) >= MAX_PROGRESS_IN_FLIGHT)
    {
      g_mutex_unlock (&self->lock);
      return FALSE;
    }
  self->progress_sent = TRUE;
  self->last_progress = progress;
  g_atomic_int_inc (&self->progress_in_flight);
  g_mutex_unlock (&self->lock);

  object = json_object_new ();
  json_object_set_member (object, "progressToken", json_node_copy (self->progress_token));
  if (progress == (double) (gint64) progress)
    json_object_set_int_member (object, "progress", (gint64) progress);
  else
    json_object_set_double_member (object, "progress", progress);
  if (total >= 0 && isfinite (total))
    {
      if (total == (double) (gint64) total)
        json_object_set_int_member (object, "total", (gint64) total);
      else
        json_object_set_double_member (object, "total", total);
    }
  if (message != NULL)
    json_object_set_string_member (object, "message", message);
  params = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);

  line = snodo_frame_encode_notification ("notifications/progress", params);
  snodo_connection_send_related (self->connection, self->key, line, progress_sent_cb, g_object_ref (self));
  return TRUE;
}

/**
 * snodo_invocation_close_stream:
 * @self: an invocation
 *
 * Closes the connection that carries this request's answer while the
 * request goes on (SSE polling, SEP-1699 of MCP 2025-11-25): for work that
 * takes long, so that no connection is held open the while, nor cut by a
 * proxy that ends long responses. The client comes back after the `retry`
 * the stream began with ([property@Snodo.HttpTransport:stream-retry]),
 * with the `Last-Event-ID` of the last event it saw, and gets what was
 * sent meanwhile (progress, log messages, requests to it) and then, as it
 * comes, the answer. Progress and answers sent after this call are kept
 * for it.
 *
 * This takes a [class@Snodo.HttpTransport] with an
 * [property@Snodo.HttpTransport:event-store] and a request of a 2025-11-25
 * session; elsewhere (standard I/O, 2025-06-18, whose clients do not come
 * back, 2026-07-28, where closing the stream cancels the request) nothing
 * is done. The stream closes after what was sent before this call.
 * Callable from any thread while the request is unanswered, as often as
 * needed (each time the client has come back).
 *
 * Returns: %TRUE if the transport closes the stream (or it is closed
 *   already) and the client can come back for the rest; %FALSE if nothing
 *   was done
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_close_stream (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);

  /* A bare invocation has no request; a task's answer went already. */
  if (self->server == NULL || self->dialect->version != SNODO_PROTOCOL_VERSION_2025_11_25 ||
      self->task_run != NULL || !snodo_invocation_is_live (self))
    return FALSE;
  return snodo_connection_close_stream (self->connection, self->key);
}

/* The least severe level the client wants for this request, or -1 for
 * none: 2026-07-28 asks per request (_meta logLevel, no messages without
 * it); the initialize era per connection (logging/setLevel). */
static int
snodo_invocation_get_log_threshold (SnodoInvocation *self)
{
  if (self->dialect->stateless)
    return snodo_request_meta_is_envelope (&self->meta) ? snodo_request_meta_get_log_level (&self->meta) : -1;
  return g_atomic_int_get (&self->connection->log_level);
}

/**
 * snodo_invocation_log:
 * @self: an invocation
 * @level: how severe the message is
 * @logger: (nullable): the name of what logs
 * @data: any JSON value to log
 *
 * Sends a log message (`notifications/message`) about this request, if the
 * client wants messages of @level: in 2025-06-18 and 2025-11-25, at or above
 * the level set with `logging/setLevel` (all levels until it is used); in
 * 2026-07-28 only when the request asked for them with a `logLevel` in its
 * `_meta`, at or above that level. Callable from any thread while the
 * request is unanswered.
 *
 * Returns: %TRUE if the message was sent
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_log (SnodoInvocation *self,
                      SnodoLogLevel    level,
                      const char      *logger,
                      JsonNode        *data)
{
  g_autoptr(GBytes) line = NULL;
  int threshold;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (self->server != NULL, FALSE);  /* made bare, for no request */
  g_return_val_if_fail (data != NULL, FALSE);

  threshold = snodo_invocation_get_log_threshold (self);
  if (threshold < 0 || (int) level < threshold || !snodo_invocation_is_live (self))
    return FALSE;

  line = snodo_server_encode_log (level, logger, data);
  snodo_connection_send_related (self->connection, self->key, line, NULL, NULL);
  return TRUE;
}

GBytes *
snodo_server_encode_log (SnodoLogLevel  level,
                         const char    *logger,
                         JsonNode      *data)
{
  g_autoptr(JsonNode) params = NULL;
  JsonObject *object = json_object_new ();

  json_object_set_string_member (object, "level", snodo_log_level_to_string ((guint) level));
  if (logger != NULL)
    json_object_set_string_member (object, "logger", logger);
  json_object_set_member (object, "data", json_node_copy (data));
  params = json_node_init_object (json_node_alloc (), object);
  json_object_unref (object);
  return snodo_frame_encode_notification ("notifications/message", params);
}

/**
 * snodo_invocation_log_text:
 * @self: an invocation
 * @level: how severe the message is
 * @logger: (nullable): the name of what logs
 * @text: the message
 *
 * Like [method@Snodo.Invocation.log], with a string as the data.
 *
 * Returns: %TRUE if the message was sent
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_log_text (SnodoInvocation *self,
                           SnodoLogLevel    level,
                           const char      *logger,
                           const char      *text)
{
  g_autoptr(JsonNode) data = NULL;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);
  g_return_val_if_fail (text != NULL, FALSE);

  data = json_node_init_string (json_node_alloc (), text);
  return snodo_invocation_log (self, level, logger, data);
}


void
snodo_invocation_set_arguments (SnodoInvocation *self,
                                JsonObject      *arguments)
{
  g_clear_pointer (&self->arguments, json_object_unref);
  self->arguments = json_object_ref (arguments);
  json_object_seal (self->arguments);
}

#define VARIABLES_KEY "snodo-invocation-variables"

void
snodo_invocation_set_variables (SnodoInvocation *self,
                                JsonObject      *variables)
{
  json_object_seal (variables);
  g_object_set_data_full (G_OBJECT (self), VARIABLES_KEY,
                          json_object_ref (variables), (GDestroyNotify) json_object_unref);
}

#define CATALOG_ENTRY_KEY "snodo-catalog-entry"

void
snodo_invocation_set_catalog_entry (SnodoInvocation   *self,
                                    SnodoCatalogEntry *entry)
{
  g_object_set_data_full (G_OBJECT (self), CATALOG_ENTRY_KEY, snodo_catalog_entry_ref (entry),
                          (GDestroyNotify) snodo_catalog_entry_unref);
}

SnodoCatalogEntry *
snodo_invocation_get_catalog_entry (SnodoInvocation *self)
{
  return g_object_get_data (G_OBJECT (self), CATALOG_ENTRY_KEY);
}

/**
 * snodo_invocation_get_uri:
 * @self: an invocation
 *
 * Gets the `uri` the request names: for `resources/read`, the URI of the
 * resource to read.
 *
 * Returns: (transfer none) (nullable): the URI, or %NULL when the request
 *   has no `uri` string
 *
 * Since: 0.1
 */
const char *
snodo_invocation_get_uri (SnodoInvocation *self)
{
  JsonNode *uri;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  uri = snodo_invocation_get_param (self, "uri");
  if (uri == NULL || !JSON_NODE_HOLDS_VALUE (uri) || json_node_get_value_type (uri) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (uri);
}

/**
 * snodo_invocation_get_variables:
 * @self: an invocation
 *
 * Gets the values of the variables of the URI template that matched the URI
 * of a `resources/read` request, percent-decoded: for the template
 * `app://notes/{day}` and the URI `app://notes/monday`, `{"day": "monday"}`.
 * For any other request, an empty object. It is sealed: read it, do not
 * change it.
 *
 * Returns: (transfer none): the variables
 *
 * Since: 0.1
 */
JsonObject *
snodo_invocation_get_variables (SnodoInvocation *self)
{
  JsonObject *variables;
  JsonObject *empty;

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  variables = g_object_get_data (G_OBJECT (self), VARIABLES_KEY);
  if (variables != NULL)
    return variables;

  /* Safe from any thread: only one empty object is ever kept. */
  empty = json_object_new ();
  json_object_seal (empty);
  if (!g_object_replace_data (G_OBJECT (self), VARIABLES_KEY, NULL, empty,
                              (GDestroyNotify) json_object_unref, NULL))
    json_object_unref (empty);
  return g_object_get_data (G_OBJECT (self), VARIABLES_KEY);
}

/**
 * snodo_invocation_get_answered:
 * @self: an invocation
 *
 * Gets whether the request has been answered (by one of the
 * `snodo_invocation_return_*()` functions), or ended by Snodo itself (its
 * [property@Snodo.Server:handler-timeout] passed). A binding that calls a handler
 * uses it to answer a request whose handler failed before answering it,
 * without answering it twice.
 *
 * Like the answer itself, this can change from another thread at any time,
 * unless the handler that could answer runs in the caller's thread.
 *
 * Returns: %TRUE if the request has been answered
 *
 * Since: 0.1
 */
gboolean
snodo_invocation_get_answered (SnodoInvocation *self)
{
  g_return_val_if_fail (SNODO_IS_INVOCATION (self), FALSE);

  return g_atomic_int_get (&self->returned) != RETURNED_OPEN;
}
