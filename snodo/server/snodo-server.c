/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-catalog-private.h"
#include "snodo-connection-private.h"
#include "snodo-executor.h"
#include "snodo-executor-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"
#include "snodo-server-tasks-private.h"
#include "snodo-server-methods.h"
#include "snodo-server-private.h"
#include "snodo-tool.h"
#include "snodo-wire-private.h"

/*
 * The server's files, from the top down:
 *
 * - snodo-server.c (this file): the object, its tools and properties, and
 *   the dispatch of every message a transport hands over: it picks the
 *   dialect (snodo_dialect_select()), settles the connection's era, makes
 *   the invocation and submits the work, then runs the handler of the
 *   method's identifier from its table (method_funcs);
 * - snodo-server-methods.c (the protocol's own methods),
 *   snodo-server-catalog-methods.c (resources, prompts, completion) and
 *   snodo-server-sessions.c (subscriptions/listen): those handlers,
 *   declared in snodo-server-methods.h. They read what this file keeps
 *   through snodo-server-internal.h, snodo_server_get_catalog() and the
 *   server's public API: the one loop between the server's files, this
 *   file calling them through its table and them asking it for its state;
 * - snodo-server-sessions.c also keeps what outlives a request: listen
 *   subscriptions, the connections served, change announcements;
 *   snodo-server-catalog.c is the catalog's part of the public API, and
 *   snodo-server-extensions.c the extensions advertised and MCP Apps;
 * - snodo-invocation.c and snodo-invocation-return.c: one request and its
 *   answer, shaped by its dialect. An invocation is given at creation what
 *   it needs of the server (the dialect, the SnodoStamp with the
 *   requestState key); it asks the server nothing else but its public
 *   request-timeout;
 * - snodo-connection.c: what the server sees of a transport's peer, its
 *   deadlines, and the requests the server sends to a client. It knows no
 *   server.
 *
 * The transports use snodo-server-private.h only.
 */

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
 * From Python, a whole server: each tool is a function, whose type hints
 * give the input schema and whose docstring gives the description, and
 * `run()` serves standard input and output (or HTTP, with `--http PORT`)
 * until their end:
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
 * def echo(text: str) -> str:
 *     """Returns its text."""
 *     return text
 *
 *
 * server.run()
 * ```
 *
 * The same in JavaScript (`gjs -m server.js`), the input given as fields:
 *
 * ```js
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * server.tool({name: 'echo', description: 'Returns its text', input: {text: 'string'}},
 *     ({text}) => text);
 * server.run();
 * ```
 *
 * These are built on [method@Snodo.Server.add_tool] with a
 * [class@Snodo.Tool] and a handler that answers its
 * [class@Snodo.Invocation], which Python and JavaScript can use as C does
 * (see [class@Snodo.Tool]); the Python and JavaScript page says more.
 *
 * Since: 0.1
 */

typedef struct
{
  gatomicrefcount  ref_count;
  SnodoTool       *tool;
  /* The tool's name as a GRefString, which each call's invocation
   * shares. */
  char            *name;
  SnodoToolFunc    func;
  gpointer         user_data;
  GDestroyNotify   destroy;
  /* The handler is native code, which may run on a worker thread. */
  gboolean         native;
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

  /* The versions served, as 1 << SnodoProtocolVersion, and as strings for
   * the property. */
  guint         enabled_versions;
  GStrv         protocol_versions;
  guint         cache_ttl;
  guint         request_timeout;
  guint         handler_timeout;
  /* Protects 2026-07-28 requestState; made at random unless the
   * application gives a secret. Owned. */
  SnodoRequestStateKey *request_state_key;
  /* The connections being served (SnodoConnection, owned). */
  GPtrArray    *connections;

  /* 2026-07-28: what answers say of the server (serverInfo, cache-ttl)
   * and the key of their requestState, made once; NULL until needed or
   * after a change. Under stamp_lock, as requests come on any context. */
  GMutex        stamp_lock;
  SnodoStamp   *stamp;
  /* The cache hints of methods, by SnodoMethodId: ttlMs, or -1 for the
   * stamp's cache-ttl and "private"; and the scope. Under stamp_lock. */
  int             hint_ttl[SNODO_N_METHODS];
  SnodoCacheScope hint_scope[SNODO_N_METHODS];

  /* See snodo-server-hooks.c. */
  SnodoServerHooks hooks;
  /* See snodo-server-bus.c. */
  SnodoServerBus   bus;

  /* See snodo-server-tasks.c; NULL until tasks are enabled. */
  SnodoServerTasks *tasks;

  /* See snodo-server-custom.c: the application's own methods and what
   * serverInfo says beyond name, version and title. */
  SnodoServerCustom   custom;
  SnodoServerIdentity identity;

  /* See snodo-server-forward.c; func NULL unless the server forwards. */
  SnodoServerForward  forward;
};


G_DEFINE_FINAL_TYPE (SnodoServer, snodo_server, G_TYPE_OBJECT)

SnodoServerTasks *
snodo_server_get_tasks (SnodoServer *self)
{
  return self->tasks;
}

void
snodo_server_set_tasks (SnodoServer      *self,
                        SnodoServerTasks *tasks)
{
  g_clear_pointer (&self->tasks, snodo_server_tasks_free);
  self->tasks = tasks;
}

SnodoServerHooks *
snodo_server_get_hooks (SnodoServer *self)
{
  return &self->hooks;
}

SnodoServerBus *
snodo_server_get_bus_state (SnodoServer *self)
{
  return &self->bus;
}

SnodoServerCustom *
snodo_server_get_custom (SnodoServer *self)
{
  return &self->custom;
}

SnodoServerForward *
snodo_server_get_forward (SnodoServer *self)
{
  return &self->forward;
}

SnodoServerIdentity *
snodo_server_get_identity (SnodoServer *self)
{
  return &self->identity;
}

enum {
  PROP_0,
  PROP_NAME,
  PROP_VERSION,
  PROP_TITLE,
  PROP_INSTRUCTIONS,
  PROP_PROTOCOL_VERSIONS,
  PROP_CACHE_TTL,
  PROP_REQUEST_TIMEOUT,
  PROP_HANDLER_TIMEOUT,
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
  g_clear_pointer (&entry->name, g_ref_string_release);
  g_free (entry);
}

JsonObject *
snodo_server_dup_info (SnodoServer *self)
{
  JsonObject *info = snodo_implementation_new (self->name, self->version, self->title);

  snodo_server_identity_add_to_info (&self->identity, info);
  return info;
}

void
snodo_server_clear_stamp (SnodoServer *self)
{
  g_mutex_lock (&self->stamp_lock);
  g_clear_pointer (&self->stamp, snodo_stamp_unref);
  g_mutex_unlock (&self->stamp_lock);
}

/* What 2026-07-28 answers say of the server as it is now. */
static SnodoStamp *
snodo_server_ref_stamp (SnodoServer *self)
{
  SnodoStamp *stamp;

  g_mutex_lock (&self->stamp_lock);
  if (self->stamp == NULL)
    self->stamp = snodo_stamp_new_with_info (snodo_server_dup_info (self), self->cache_ttl,
                                             self->request_state_key);
  stamp = snodo_stamp_ref (self->stamp);
  g_mutex_unlock (&self->stamp_lock);

  return stamp;
}

typedef struct
{
  /* Given to the handler when it runs. */
  SnodoInvocation   *invocation;
  const SnodoMethod *method;
  ToolEntry         *tool;
  /* An application's own method (snodo-server-custom.c), which lives as
   * long as the server. */
  SnodoCustomMethod *custom;
  /* The handler's deadline in milliseconds, or 0. */
  guint              timeout;
} Call;

static void
call_free (Call *call)
{
  g_clear_object (&call->invocation);
  g_clear_pointer (&call->tool, tool_entry_unref);
  g_free (call);
}

/* What the middlewares around its handler keep of a call. */
static gpointer
call_copy (gpointer data)
{
  Call *copy = g_memdup2 (data, sizeof (Call));

  copy->invocation = NULL;
  if (copy->tool != NULL)
    tool_entry_ref (copy->tool);
  return copy;
}

/* Serves one request; runs as work admitted by the executor. It answers
 * through the invocation, now or later. */
typedef void (*SnodoServerMethodFunc) (SnodoServer     *server,
                                       SnodoInvocation *invocation);

/* The handlers of the methods (tools/call has its tools'). */
static const SnodoServerMethodFunc method_funcs[SNODO_N_METHODS] = {
  [SNODO_METHOD_INITIALIZE] = snodo_server_method_initialize,
  [SNODO_METHOD_PING] = snodo_server_method_ping,
  [SNODO_METHOD_DISCOVER] = snodo_server_method_discover,
  [SNODO_METHOD_LOGGING_SET_LEVEL] = snodo_server_method_logging_set_level,
  [SNODO_METHOD_TOOLS_LIST] = snodo_server_method_tools_list,
  [SNODO_METHOD_TOOLS_CALL] = NULL,
  [SNODO_METHOD_RESOURCES_LIST] = snodo_server_method_resources_list,
  [SNODO_METHOD_RESOURCES_TEMPLATES_LIST] = snodo_server_method_resources_templates_list,
  [SNODO_METHOD_RESOURCES_READ] = snodo_server_method_resources_read,
  [SNODO_METHOD_RESOURCES_SUBSCRIBE] = snodo_server_method_resources_subscribe,
  [SNODO_METHOD_RESOURCES_UNSUBSCRIBE] = snodo_server_method_resources_unsubscribe,
  [SNODO_METHOD_PROMPTS_LIST] = snodo_server_method_prompts_list,
  [SNODO_METHOD_PROMPTS_GET] = snodo_server_method_prompts_get,
  [SNODO_METHOD_COMPLETION_COMPLETE] = snodo_server_method_completion_complete,
  [SNODO_METHOD_SUBSCRIPTIONS_LISTEN] = snodo_server_method_subscriptions_listen,
  [SNODO_METHOD_TASKS_GET] = snodo_server_method_tasks_get,
  [SNODO_METHOD_TASKS_RESULT] = snodo_server_method_tasks_result,
  [SNODO_METHOD_TASKS_LIST] = snodo_server_method_tasks_list,
  [SNODO_METHOD_TASKS_UPDATE] = snodo_server_method_tasks_update,
  [SNODO_METHOD_TASKS_CANCEL] = snodo_server_method_tasks_cancel,
};

/* Whether the server offers what a method needs: a method behind a
 * capability it does not advertise does not exist. */
static gboolean
snodo_server_offers (SnodoServer *self,
                     SnodoNeeds   needs)
{
  switch (needs)
    {
    case SNODO_NEEDS_RESOURCES:
      return snodo_catalog_has_resources (self->catalog);
    case SNODO_NEEDS_PROMPTS:
      return snodo_catalog_has_prompts (self->catalog);
    case SNODO_NEEDS_COMPLETIONS:
      return snodo_catalog_has_completion (self->catalog);
    case SNODO_NEEDS_TASKS:
      return self->tasks != NULL;
    case SNODO_NEEDS_NOTHING:
    default:
      return TRUE;
    }
}

/* Runs the handler of a Call with @invocation, whose reference it takes. */
static void
snodo_server_call_handler (gpointer         data,
                           SnodoInvocation *invocation)
{
  Call *call = data;
  /* The handler runs in the request's trace context, if it has one:
   * client requests it sends from here are children of its span. */
  gboolean traced = snodo_invocation_has_span (invocation);

  if (G_UNLIKELY (traced))
    snodo_invocation_enter_handler (invocation);
  if (call->tool != NULL)
    call->tool->func (invocation, call->tool->user_data);
  else if (call->custom != NULL)
    snodo_custom_method_run (call->custom, invocation);
  else
    method_funcs[call->method->id] (snodo_invocation_get_server (invocation), invocation);
  if (G_UNLIKELY (traced))
    snodo_invocation_enter_handler (NULL);
}

static void
snodo_server_run_cb (SnodoWork *work,
                     gpointer   user_data)
{
  Call *call = user_data;
  SnodoInvocation *invocation = g_steal_pointer (&call->invocation);

  snodo_invocation_set_work (invocation, work);
  snodo_invocation_start_deadline (invocation, call->timeout);

  /* The handler gets the only reference, which answering takes away: once
   * everything outside Snodo has let go of an invocation that was never
   * answered, it answers with an error itself. */
  if (G_UNLIKELY (g_atomic_int_get (&snodo_server_middlewares) > 0))
    snodo_server_run_middleware (snodo_invocation_get_server (invocation), invocation,
                                 snodo_work_get_kind (work) == SNODO_WORK_KIND_BLOCKING,
                                 snodo_server_call_handler, call, call_copy, (GDestroyNotify) call_free);
  else
    snodo_server_call_handler (call, invocation);
}

/* Answers at once in the request's dialect, without admitted work. */
static void
snodo_server_send_dialect_error (SnodoConnection    *connection,
                                 const SnodoDialect *dialect,
                                 JsonNode           *id,
                                 int                 code,
                                 const char         *message,
                                 JsonNode           *data)
{
  g_autoptr(GBytes) line = snodo_dialect_encode_error (dialect, id, code, message, data);
  g_autofree char *key = snodo_frame_id_key (id);

  snodo_connection_send_related (connection, key, line, NULL, NULL);
}

static void
snodo_server_dispatch_request (SnodoServer     *self,
                               SnodoConnection *connection,
                               SnodoFrame      *frame,
                               GHashTable      *headers,
                               gsize            cost)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) answers = NULL;
  g_autoptr(JsonObject) unrequested = NULL;
  g_auto(SnodoRequestMeta) meta = { 0, };
  SnodoSelection selection = { 0, };
  const char *header = NULL;
  const SnodoDialect *dialect;
  const SnodoMethod *method;
  SnodoCustomMethod *custom = NULL;
  SnodoStamp *stamp;
  Call *call;
  SnodoWorkKind kind = SNODO_WORK_KIND_ASYNC;
  SnodoConnection *runner = connection;
  SnodoExecutor *executor;

  if (frame->has_nul)
    {
      /* json-glib strings end at NUL: a handler could only be given a
       * string cut short or altered. */
      g_autoptr(GBytes) line = snodo_frame_encode_error (frame->id, SNODO_RPC_ERROR_INVALID_PARAMS,
                                                         _("Invalid params: a string holds U+0000, which this "
                                                           "server cannot pass on"), NULL);

      snodo_connection_send_related (connection, frame->key, line, NULL, NULL);
      return;
    }

  snodo_request_meta_init (&meta, frame);
  /* Over stdio the table is empty: no need to hash the name. */
  if (headers != NULL && g_hash_table_size (headers) > 0)
    header = g_hash_table_lookup (headers, SNODO_HEADER_PROTOCOL_VERSION);
  if (!snodo_dialect_select (frame, &meta, header, self->enabled_versions,
                             connection->persistent ? connection->era : SNODO_ERA_UNDECIDED,
                             connection->legacy_version, &selection))
    {
      g_autoptr(GBytes) line = snodo_frame_encode_error (frame->id, selection.error_code,
                                                         selection.error_message, selection.error_data);

      snodo_connection_send_related (connection, frame->key, line, NULL, NULL);
      snodo_selection_clear (&selection);
      return;
    }
  dialect = selection.dialect;
  snodo_selection_clear (&selection);

  /* A forwarding server's application answers every request itself. */
  if (G_UNLIKELY (self->forward.func != NULL))
    {
      snodo_server_forward_request (self, connection, dialect, frame, &meta, cost);
      return;
    }

  method = snodo_dialect_lookup (dialect, frame->method);
  if (method == NULL && (custom = snodo_server_lookup_custom_method (self, frame->method)) != NULL)
    method = snodo_custom_method_get_method (custom);
  if (method == NULL || !snodo_server_offers (self, method->needs))
    {
      g_autofree char *message = g_strdup_printf (_("Method not found: %s"), frame->method);

      snodo_server_send_dialect_error (connection, dialect, frame->id,
                                       SNODO_RPC_ERROR_METHOD_NOT_FOUND, message, NULL);
      return;
    }

  /* A real 2026-07-28 request pins a stdio connection to that era; a
   * server/discover probe does not. An initialize pins the initialize era
   * here too, as it is read, so that a request read right after it (a
   * pipelining client) is judged by the era it chose. */
  if (dialect->stateless && connection->persistent && method->id != SNODO_METHOD_DISCOVER)
    connection->era = SNODO_ERA_MODERN;
  else if (!dialect->stateless && connection->persistent && method->id == SNODO_METHOD_INITIALIZE)
    {
      connection->era = SNODO_ERA_LEGACY;
      connection->legacy_version = snodo_protocol_negotiate (self->enabled_versions,
                                                             snodo_json_object_get_string (snodo_frame_get_params (frame),
                                                                                           "protocolVersion"));
    }

  if (dialect->stateless && (method->flags & SNODO_METHOD_FLAGS_INPUT) &&
      !snodo_invocation_collect_answers (self->request_state_key, frame,
                                     connection->auth != NULL ? snodo_auth_info_get_principal (connection->auth) : NULL,
                                     &answers, &unrequested, &error))
    {
      snodo_server_send_dialect_error (connection, dialect, frame->id, error->code, error->message, NULL);
      return;
    }

  call = g_new0 (Call, 1);
  call->method = method;
  call->custom = custom;
  /* 2026-07-28 answers say what the server is when the request comes. */
  stamp = dialect->stateless ? snodo_server_ref_stamp (self) : NULL;
  call->invocation = snodo_invocation_new (self, connection, dialect, method, stamp, frame->message,
                                           frame->id, frame->key, frame->params_node,
                                           frame->params_unbuilt ? &frame->params_members : NULL, &meta);
  snodo_invocation_set_input_answers (call->invocation, answers);
  snodo_invocation_set_unrequested_answers (call->invocation, unrequested);

  if (method->flags & SNODO_METHOD_FLAGS_TOOL_CALL)
    {
      JsonNode *name_node = snodo_invocation_get_param (call->invocation, "name");
      const char *name = snodo_json_node_is_string (name_node) ? json_node_get_string (name_node) : NULL;
      JsonNode *arguments = snodo_invocation_get_param (call->invocation, "arguments");
      g_autofree char *message = NULL;

      if (name == NULL)
        message = g_strdup (_("Invalid params: \"name\" must be a string"));
      else if (arguments != NULL && !JSON_NODE_HOLDS_OBJECT (arguments))
        message = g_strdup (_("Invalid params: \"arguments\" must be an object"));
      else if ((call->tool = g_hash_table_lookup (self->tools, name)) == NULL)
        message = g_strdup_printf (_("Unknown tool: %s"), name);

      if (message != NULL)
        {
          if (G_UNLIKELY (snodo_invocation_has_span (call->invocation)))
            snodo_invocation_refuse_span (call->invocation, SNODO_RPC_ERROR_INVALID_PARAMS, message);
          snodo_server_send_dialect_error (connection, dialect, frame->id,
                                           SNODO_RPC_ERROR_INVALID_PARAMS, message, NULL);
          call_free (call);
          return;
        }

      tool_entry_ref (call->tool);
      snodo_invocation_set_ref_name (call->invocation, call->tool->name);
      snodo_invocation_set_tool_call (call->invocation, TRUE);
      snodo_invocation_set_output_schema (call->invocation, snodo_tool_get_output_schema (call->tool->tool));

      /* Arguments that do not fit the tool's schema never reach the
       * handler: a failed tool result (as 2025-11-25 and later say), so
       * that the model can correct itself. */
      {
        if (!snodo_schema_validate_object (snodo_tool_get_input_schema (call->tool->tool),
                                           snodo_invocation_get_arguments (call->invocation), &error))
          {
            g_autofree char *text = g_strdup_printf (_("Invalid arguments: %s"), error->message);
            g_autoptr(GBytes) line = NULL;

            line = snodo_dialect_encode_text_result (dialect, method, stamp, frame->id, text, TRUE);
            snodo_connection_send_related (connection, frame->key, line, NULL, NULL);
            call_free (call);
            return;
          }
      }
      /* run-in-thread set after the tool was added is ignored for a
       * handler that cannot run on a thread. */
      if (snodo_tool_get_run_in_thread (call->tool->tool) && call->tool->native)
        kind = SNODO_WORK_KIND_BLOCKING;
      call->timeout = snodo_tool_get_handler_timeout (call->tool->tool) >= 0 ?
                      (guint) snodo_tool_get_handler_timeout (call->tool->tool) : self->handler_timeout;
    }
  else if (method->flags & SNODO_METHOD_FLAGS_HANDLER)
    call->timeout = self->handler_timeout;

  /* Params that do not fit an application method's schema never reach
   * its handler. */
  if (custom != NULL && !snodo_custom_method_check_params (custom, call->invocation, &error))
    {
      snodo_server_send_dialect_error (connection, dialect, frame->id, error->code, error->message, NULL);
      call_free (call);
      return;
    }

  /* The application's hooks, if any, may refuse or annotate the request. */
  if (G_UNLIKELY (self->hooks.request != NULL) && snodo_server_run_request_hooks (self, call->invocation))
    {
      call_free (call);
      return;
    }

  /* A call may run as a task (snodo-server-tasks.c): answered with the
   * task now, its handler runs as the task's own work. */
  if (G_UNLIKELY (self->tasks != NULL) && call->tool != NULL)
    {
      runner = snodo_server_tasks_divert (self, connection, dialect, frame, call->tool->tool, call->invocation);
      if (runner == NULL)
        {
          call_free (call);
          return;
        }
      if (runner != connection)
        call->timeout = 0;
    }

  /* What the request holds while it is answered: what the transport keeps
   * of it, and the decoded message, which the invocation keeps. A
   * subscription runs on the connection's stream executor, if it has one;
   * an id stays unique across both. */
  executor = runner->executor;
  if (runner->stream_executor != NULL && frame->key != NULL)
    {
      SnodoExecutor *other = runner->stream_executor;

      if (method->id == SNODO_METHOD_SUBSCRIPTIONS_LISTEN)
        {
          other = executor;
          executor = runner->stream_executor;
        }
      if (snodo_executor_has_key (other, runner->owner, frame->key))
        g_set_error_literal (&error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY, "");
    }
  if (error != NULL ||
      !snodo_executor_submit (executor, runner->owner, frame->key, kind, cost + frame->size,
                              snodo_server_run_cb, call, (GDestroyNotify) call_free, &error))
    {
      /* A refused submission leaves the call to us. */
      call_free (call);
      if (runner != connection)
        {
          snodo_server_tasks_refused (self, runner, error);
          return;
        }

      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_DUPLICATE_KEY))
        snodo_server_send_dialect_error (connection, dialect, frame->id, SNODO_RPC_ERROR_INVALID_REQUEST,
                                         _("Invalid request: the id is already in use by a request in progress"),
                                         NULL);
      else
        {
          g_autofree char *message = g_strdup_printf (_("Server overloaded: %s"), error->message);

          snodo_server_send_dialect_error (connection, dialect, frame->id,
                                           SNODO_RPC_ERROR_SERVER_OVERLOADED, message, NULL);
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
      else if (g_str_equal (frame->method, "notifications/cancelled"))
        {
          /* At once, as the transport hands it over: the request's
           * cancellable fires and it gets no answer. A listen subscription
           * ends the same way. */
          JsonNode *request_id = snodo_frame_get_param (frame, "requestId");
          g_autofree char *key = request_id ? snodo_frame_id_key (request_id) : NULL;

          if (key != NULL &&
              (snodo_executor_cancel (connection->executor, connection->owner, key) ||
               (connection->stream_executor != NULL &&
                snodo_executor_cancel (connection->stream_executor, connection->owner, key))))
            g_debug ("Cancelled request %s", key);
        }
      else if (G_UNLIKELY (connection->session != NULL))
        snodo_session_emit_notification (connection->session, frame);
      else
        snodo_server_dispatch_custom_notification (self, frame);
      /* Notifications are never answered, whatever they are. */
      break;

    case SNODO_FRAME_RESPONSE:
      snodo_connection_handle_response (connection, frame);
      break;

    case SNODO_FRAME_IGNORE:
    case SNODO_FRAME_ERROR:
    case SNODO_FRAME_DROP:
    default:
      g_return_if_reached ();
    }
}

static void
snodo_server_finalize (GObject *object)
{
  SnodoServer *self = SNODO_SERVER (object);

  snodo_server_clear_bus (self);
  g_clear_pointer (&self->tasks, snodo_server_tasks_free);
  snodo_server_custom_clear (&self->custom);
  snodo_server_identity_clear (&self->identity);
  snodo_server_hooks_clear (&self->hooks);
  snodo_server_forward_clear (&self->forward);
  g_clear_pointer (&self->catalog, snodo_catalog_free);
  g_clear_pointer (&self->connections, g_ptr_array_unref);
  g_clear_pointer (&self->protocol_versions, g_strfreev);
  g_clear_pointer (&self->request_state_key, snodo_request_state_key_unref);
  g_clear_pointer (&self->tools, g_hash_table_unref);
  g_clear_pointer (&self->tool_order, g_ptr_array_unref);
  g_clear_pointer (&self->name, g_free);
  g_clear_pointer (&self->version, g_free);
  g_clear_pointer (&self->title, g_free);
  g_clear_pointer (&self->instructions, g_free);
  snodo_server_clear_stamp (self);
  g_mutex_clear (&self->stamp_lock);
  g_mutex_clear (&self->custom.lock);

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
    case PROP_PROTOCOL_VERSIONS:
      g_value_set_boxed (value, self->protocol_versions);
      break;
    case PROP_CACHE_TTL:
      g_value_set_uint (value, self->cache_ttl);
      break;
    case PROP_REQUEST_TIMEOUT:
      g_value_set_uint (value, self->request_timeout);
      break;
    case PROP_HANDLER_TIMEOUT:
      g_value_set_uint (value, self->handler_timeout);
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
      snodo_server_clear_stamp (self);
      break;
    case PROP_VERSION:
      g_free (self->version);
      self->version = g_value_dup_string (value);
      snodo_server_clear_stamp (self);
      break;
    case PROP_TITLE:
      snodo_server_set_title (self, g_value_get_string (value));
      break;
    case PROP_INSTRUCTIONS:
      snodo_server_set_instructions (self, g_value_get_string (value));
      break;
    case PROP_PROTOCOL_VERSIONS:
      snodo_server_set_protocol_versions (self, g_value_get_boxed (value));
      break;
    case PROP_CACHE_TTL:
      snodo_server_set_cache_ttl (self, g_value_get_uint (value));
      break;
    case PROP_REQUEST_TIMEOUT:
      snodo_server_set_request_timeout (self, g_value_get_uint (value));
      break;
    case PROP_HANDLER_TIMEOUT:
      snodo_server_set_handler_timeout (self, g_value_get_uint (value));
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
   * Since: 0.1
   */
  properties[PROP_NAME] =
    g_param_spec_string ("name", NULL, NULL, "snodo",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:version: (getter get_version)
   *
   * The server's version, sent to clients in `serverInfo`.
   *
   * Since: 0.1
   */
  properties[PROP_VERSION] =
    g_param_spec_string ("version", NULL, NULL, "0",
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:title: (getter get_title) (setter set_title)
   *
   * A human-readable name for the server, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:instructions: (getter get_instructions) (setter set_instructions)
   *
   * How to use the server, for the model to read, or %NULL.
   *
   * Since: 0.1
   */
  properties[PROP_INSTRUCTIONS] =
    g_param_spec_string ("instructions", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:protocol-versions: (getter get_protocol_versions) (setter set_protocol_versions)
   *
   * The protocol versions the server serves, as written on the wire; by
   * default all three: `2025-06-18`, `2025-11-25` and `2026-07-28`.
   *
   * A client of the initialize era that asks for a version not served is
   * answered with the latest one of that era that is (and with -32022 if
   * none is); a 2026-07-28 request when that version is not served is
   * treated as a server that never heard of it would: its `server/discover`
   * probe gets -32601, and the client falls back to `initialize`.
   *
   * Since: 0.1
   */
  properties[PROP_PROTOCOL_VERSIONS] =
    g_param_spec_boxed ("protocol-versions", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:cache-ttl: (getter get_cache_ttl) (setter set_cache_ttl)
   *
   * How long, in milliseconds, a 2026-07-28 client may reuse the results of
   * `server/discover`, the lists and `resources/read` (`ttlMs`, with the
   * scope `private`). 0, the default, means at once stale: the server's
   * lists may change at any time. [method@Snodo.Server.set_cache_hint]
   * sets another time and scope for the results of one method.
   *
   * Since: 0.1
   */
  properties[PROP_CACHE_TTL] =
    g_param_spec_uint ("cache-ttl", NULL, NULL, 0, G_MAXINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:request-timeout: (getter get_request_timeout) (setter set_request_timeout)
   *
   * How long, in milliseconds, the server waits for a 2025 client to answer
   * a request of its own (an elicitation, a sample, the roots) before it
   * gives up and cancels it. At least 1; 60000 by default, as a person may
   * be answering.
   *
   * Since: 0.1
   */
  properties[PROP_REQUEST_TIMEOUT] =
    g_param_spec_uint ("request-timeout", NULL, NULL, 1, G_MAXUINT, 60000,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * SnodoServer:handler-timeout: (getter get_handler_timeout) (setter set_handler_timeout)
   *
   * How long, in milliseconds, an application's handler (of a tool, a
   * resource, a prompt or a completion) may take to answer, or 0 for no
   * limit, the default. When the time is up, the client is answered with
   * error -32603 saying so, the invocation's cancellable fires, and the
   * handler's answer, if it comes later, is dropped quietly. The time
   * includes any wait for the client's input (see
   * [property@Snodo.Server:request-timeout]). A tool may set its own limit
   * with [property@Snodo.Tool:handler-timeout].
   *
   * Since: 0.1
   */
  properties[PROP_HANDLER_TIMEOUT] =
    g_param_spec_uint ("handler-timeout", NULL, NULL, 0, G_MAXINT, 0,
                       G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
snodo_server_init (SnodoServer *self)
{
  static const char * const all_versions[] = { "2025-06-18", "2025-11-25", "2026-07-28", NULL };
  g_autoptr(GError) error = NULL;

  self->request_timeout = 60000;
  g_mutex_init (&self->stamp_lock);
  for (guint i = 0; i < SNODO_N_METHODS; i++)
    self->hint_ttl[i] = -1;
  g_mutex_init (&self->custom.lock);
  self->connections = g_ptr_array_new_with_free_func ((GDestroyNotify) snodo_connection_unref);
  snodo_server_set_protocol_versions (self, all_versions);
  self->request_state_key = snodo_request_state_key_new_random (&error);
  if (self->request_state_key == NULL)
    g_warning ("No key for 2026-07-28 request states (%s); requests that need input will fail",
               error->message);
  self->tools = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                       (GDestroyNotify) tool_entry_unref);
  self->tool_order = g_ptr_array_new ();
  self->catalog = snodo_catalog_new ();
}

SnodoCatalog *
snodo_server_get_catalog (SnodoServer *self)
{
  return self->catalog;
}

/* The connections being served (SnodoConnection), on the main context. */
GPtrArray *
snodo_server_get_connections (SnodoServer *self)
{
  return self->connections;
}

guint
snodo_server_get_enabled_versions (SnodoServer *self)
{
  return self->enabled_versions;
}

guint
snodo_server_get_n_tools (SnodoServer *self)
{
  return self->tool_order->len;
}

SnodoTool *
snodo_server_get_nth_tool (SnodoServer *self,
                           guint        i)
{
  return ((ToolEntry *) g_ptr_array_index (self->tool_order, i))->tool;
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
 * Since: 0.1
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
 * Since: 0.1
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
 * Since: 0.1
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
 * Since: 0.1
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
 * Since: 0.1
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
  snodo_server_clear_stamp (self);
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
 * Since: 0.1
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
 * Since: 0.1
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
 * Returns: %TRUE if the tool was added; %FALSE if it has no name, or its
 *   name is not valid or is taken, or its icons or the keys of its `_meta`
 *   are not valid
 *
 * Since: 0.1
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
  if (name == NULL)
    {
      /* A tool made with g_object_new() (or Snodo.Tool() in a binding)
       * without its construct-only name. */
      if (destroy != NULL)
        destroy (user_data);
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("A tool needs a name (its “name” property)"));
      return FALSE;
    }
  if (!tool_name_is_valid (name))
    {
      if (destroy != NULL)
        destroy (user_data);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                   _("“%s” is not a valid tool name: use 1 to 128 of A-Z, a-z, 0-9, “_”, “.” and “-”"),
                   name);
      return FALSE;
    }
  if (!snodo_catalog_check_icons (snodo_tool_get_icons (tool), name, error) ||
      !snodo_catalog_check_meta (snodo_description_get_meta (SNODO_DESCRIPTION (tool)), name, error))
    {
      if (destroy != NULL)
        destroy (user_data);
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
  if (snodo_tool_get_run_in_thread (tool) && !snodo_server_handler_is_native (func))
    {
      if (destroy != NULL)
        destroy (user_data);
      g_set_error (error, SNODO_ERROR, SNODO_ERROR_FAILED,
                   _("The tool “%s” runs in a thread, but its handler is not a C function: a handler "
                     "written in Python or JavaScript must run on the main context (unset run-in-thread)"),
                   name);
      return FALSE;
    }

  entry = g_new0 (ToolEntry, 1);
  g_atomic_ref_count_init (&entry->ref_count);
  entry->tool = g_object_ref (tool);
  entry->name = g_ref_string_new (name);
  entry->func = func;
  entry->user_data = user_data;
  entry->destroy = destroy;
  entry->native = snodo_server_handler_is_native (func);

  g_hash_table_insert (self->tools, g_strdup (name), entry);
  g_ptr_array_add (self->tool_order, entry);
  snodo_server_notify_tools_changed (self);
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
 * Since: 0.1
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
  snodo_server_notify_tools_changed (self);
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
 * Since: 0.1
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

gboolean
snodo_server_is_version_enabled (SnodoServer          *self,
                                 SnodoProtocolVersion  version)
{
  return snodo_protocol_versions_contain (self->enabled_versions, version);
}

/* The oldest served version of the initialize era, or UNKNOWN. */
SnodoProtocolVersion
snodo_server_get_oldest_legacy (SnodoServer *self)
{
  return snodo_protocol_versions_oldest_legacy (self->enabled_versions);
}

/**
 * snodo_server_get_protocol_versions:
 * @self: a server
 *
 * Gets the protocol versions the server serves.
 *
 * Returns: (transfer none) (array zero-terminated=1): the versions
 *
 * Since: 0.1
 */
const char * const *
snodo_server_get_protocol_versions (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), NULL);
  return (const char * const *) self->protocol_versions;
}

/**
 * snodo_server_set_protocol_versions:
 * @self: a server
 * @versions: (array zero-terminated=1): the versions to serve, as written
 *   on the wire; at least one, each one Snodo knows
 *
 * Sets the protocol versions the server serves. Connections already in
 * progress keep the version they negotiated.
 *
 * Since: 0.1
 */
void
snodo_server_set_protocol_versions (SnodoServer        *self,
                                    const char * const *versions)
{
  guint enabled = 0;

  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (versions != NULL && versions[0] != NULL);

  for (guint i = 0; versions[i] != NULL; i++)
    {
      SnodoProtocolVersion version = snodo_protocol_version_from_string (versions[i]);

      g_return_if_fail (version != SNODO_PROTOCOL_VERSION_UNKNOWN);
      enabled |= 1u << version;
    }

  if (enabled == self->enabled_versions)
    return;
  self->enabled_versions = enabled;
  g_strfreev (self->protocol_versions);
  self->protocol_versions = g_strdupv ((char **) versions);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROTOCOL_VERSIONS]);
}

/**
 * snodo_server_get_cache_ttl:
 * @self: a server
 *
 * Gets how long 2026-07-28 clients may reuse list and read results.
 *
 * Returns: the time in milliseconds
 *
 * Since: 0.1
 */
guint
snodo_server_get_cache_ttl (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  return self->cache_ttl;
}

/**
 * snodo_server_set_cache_ttl:
 * @self: a server
 * @cache_ttl: the time in milliseconds
 *
 * Sets how long 2026-07-28 clients may reuse list and read results.
 *
 * Since: 0.1
 */
void
snodo_server_set_cache_ttl (SnodoServer *self,
                            guint        cache_ttl)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (cache_ttl <= G_MAXINT);

  if (self->cache_ttl == cache_ttl)
    return;
  self->cache_ttl = cache_ttl;
  snodo_server_clear_stamp (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_CACHE_TTL]);
}

/**
 * snodo_server_set_cache_hint:
 * @self: a server
 * @method: `tools/list`, `resources/list`, `resources/templates/list`,
 *   `prompts/list` or `resources/read`
 * @ttl_ms: how long, in milliseconds, a client may reuse the results of
 *   @method (0: not at all), or -1 for [property@Snodo.Server:cache-ttl]
 * @scope: who may reuse them
 *
 * Sets the cache hint of the results of one method: in 2026-07-28 they say
 * `"ttlMs":` @ttl_ms and `"cacheScope":` @scope. Without a hint, or with
 * @ttl_ms -1, they say [property@Snodo.Server:cache-ttl] and `"private"`.
 * A result whose handler sets `ttlMs` or `cacheScope` itself keeps its
 * own, and so does a read of a resource or template whose
 * [property@Snodo.Resource:cache-ttl] is set. Earlier protocol versions
 * have no cache hints.
 *
 * Use %SNODO_CACHE_SCOPE_PUBLIC only when the results are the same for
 * every caller, whatever their authorization.
 *
 * ```c
 * // The tool list changes only with a new release: an hour, for anyone.
 * snodo_server_set_cache_hint (server, "tools/list", 3600 * 1000, SNODO_CACHE_SCOPE_PUBLIC);
 * ```
 *
 * Since: 0.1
 */
void
snodo_server_set_cache_hint (SnodoServer     *self,
                             const char      *method,
                             int              ttl_ms,
                             SnodoCacheScope  scope)
{
  static const struct { const char *name; SnodoMethodId id; } methods[] = {
    { "tools/list", SNODO_METHOD_TOOLS_LIST },
    { "resources/list", SNODO_METHOD_RESOURCES_LIST },
    { "resources/templates/list", SNODO_METHOD_RESOURCES_TEMPLATES_LIST },
    { "prompts/list", SNODO_METHOD_PROMPTS_LIST },
    { "resources/read", SNODO_METHOD_RESOURCES_READ },
  };
  guint i;

  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (method != NULL);
  g_return_if_fail (ttl_ms >= -1);
  g_return_if_fail (scope == SNODO_CACHE_SCOPE_PRIVATE || scope == SNODO_CACHE_SCOPE_PUBLIC);

  for (i = 0; i < G_N_ELEMENTS (methods); i++)
    if (g_str_equal (method, methods[i].name))
      break;
  g_return_if_fail (i < G_N_ELEMENTS (methods));

  g_mutex_lock (&self->stamp_lock);
  self->hint_ttl[methods[i].id] = ttl_ms;
  self->hint_scope[methods[i].id] = scope;
  g_mutex_unlock (&self->stamp_lock);
}

/* The cache hint of @method set by snodo_server_set_cache_hint(): FALSE
 * when there is none. Any thread. */
gboolean
snodo_server_get_cache_hint (SnodoServer     *self,
                             SnodoMethodId    method,
                             guint           *ttl_ms,
                             SnodoCacheScope *scope)
{
  gboolean found;

  g_mutex_lock (&self->stamp_lock);
  found = self->hint_ttl[method] >= 0;
  *ttl_ms = found ? (guint) self->hint_ttl[method] : 0;
  *scope = self->hint_scope[method];
  g_mutex_unlock (&self->stamp_lock);
  return found;
}

/**
 * snodo_server_get_request_timeout:
 * @self: a server
 *
 * Gets how long the server waits for a client to answer its requests.
 *
 * Returns: the time in milliseconds
 *
 * Since: 0.1
 */
guint
snodo_server_get_request_timeout (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  return self->request_timeout;
}

/**
 * snodo_server_set_request_timeout:
 * @self: a server
 * @request_timeout: the time in milliseconds, at least 1
 *
 * Sets how long the server waits for a client to answer its requests.
 *
 * Since: 0.1
 */
void
snodo_server_set_request_timeout (SnodoServer *self,
                                  guint        request_timeout)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (request_timeout >= 1);

  if (self->request_timeout == request_timeout)
    return;
  self->request_timeout = request_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_REQUEST_TIMEOUT]);
}

/**
 * snodo_server_get_handler_timeout:
 * @self: a server
 *
 * Gets how long a handler may take to answer; see
 * [property@Snodo.Server:handler-timeout].
 *
 * Returns: the time in milliseconds, or 0 for no limit
 *
 * Since: 0.1
 */
guint
snodo_server_get_handler_timeout (SnodoServer *self)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  return self->handler_timeout;
}

/**
 * snodo_server_set_handler_timeout:
 * @self: a server
 * @handler_timeout: the time in milliseconds, or 0 for no limit
 *
 * Sets how long a handler may take to answer; see
 * [property@Snodo.Server:handler-timeout]. It applies to requests that
 * start after the change.
 *
 * Since: 0.1
 */
void
snodo_server_set_handler_timeout (SnodoServer *self,
                                  guint        handler_timeout)
{
  g_return_if_fail (SNODO_IS_SERVER (self));
  g_return_if_fail (handler_timeout <= G_MAXINT);

  if (self->handler_timeout == handler_timeout)
    return;
  self->handler_timeout = handler_timeout;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HANDLER_TIMEOUT]);
}

/**
 * snodo_server_set_request_state_secret:
 * @self: a server
 * @secret: at least 32 bytes of secret
 * @error: return location for an error
 *
 * Sets the secret that protects the `requestState` of 2026-07-28 requests
 * that need input. By default each server makes a random one, which is
 * right for one process; several processes that serve the same clients
 * behind a load balancer share a secret, so that a retry may reach any of
 * them.
 *
 * Returns: %TRUE if @secret was usable
 *
 * Since: 0.1
 */
gboolean
snodo_server_set_request_state_secret (SnodoServer  *self,
                                       GBytes       *secret,
                                       GError      **error)
{
  SnodoRequestStateKey *key;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (secret != NULL, FALSE);

  key = snodo_request_state_key_new (secret, error);
  if (key == NULL)
    return FALSE;
  g_clear_pointer (&self->request_state_key, snodo_request_state_key_unref);
  self->request_state_key = key;
  snodo_server_clear_stamp (self);
  return TRUE;
}
