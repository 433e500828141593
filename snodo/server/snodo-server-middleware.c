/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Middlewares: installing them, and running a request through those that
 * apply to it, then its handler. A middleware's answer goes to the
 * middleware before it (snodo_invocation_finish() hands it over through
 * snodo_middleware_chain_take()), the outermost one's to the client. */

#include "config.h"

#include "snodo-answer-private.h"
#include "snodo-invocation-internal.h"
#include "snodo-middleware-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"

gint snodo_server_middlewares;

/* A middleware waiting for the answer of what comes after it. */
typedef struct
{
  SnodoMiddlewareNext     *next;
  SnodoMiddlewareDoneFunc  done;
  gpointer                 user_data;
  GDestroyNotify           destroy;
} Waiting;

struct _SnodoMiddlewareChain
{
  gatomicrefcount  ref_count;
  /* The middlewares that apply (SnodoServerHook), outermost first;
   * immutable. */
  GPtrArray       *middlewares;
  /* The handler, and its data (a reference of the chain's). */
  void           (*handler) (gpointer         data,
                             SnodoInvocation *invocation);
  gpointer         data;
  GDestroyNotify   data_unref;
  /* The handler is a run-in-thread tool's. */
  gboolean         in_thread;
  /* Where the middlewares run (the connection's, a reference). */
  GMainContext    *context;
  /* Waiting, innermost last; and those that received their answer (or
   * were refused), released with the chain (see
   * snodo_middleware_chain_detach()). Under lock: a handler may answer on
   * a worker thread. */
  GMutex           lock;
  GPtrArray       *waiting;
  GPtrArray       *finished;
};

static void
waiting_free (Waiting *waiting)
{
  if (waiting->destroy != NULL)
    waiting->destroy (waiting->user_data);
  g_clear_object (&waiting->next);
  g_free (waiting);
}

SnodoMiddlewareChain *
snodo_middleware_chain_ref (SnodoMiddlewareChain *chain)
{
  g_atomic_ref_count_inc (&chain->ref_count);
  return chain;
}

void
snodo_middleware_chain_unref (SnodoMiddlewareChain *chain)
{
  if (!g_atomic_ref_count_dec (&chain->ref_count))
    return;
  g_ptr_array_unref (chain->middlewares);
  g_ptr_array_unref (chain->waiting);
  g_ptr_array_unref (chain->finished);
  if (chain->data_unref != NULL)
    chain->data_unref (chain->data);
  g_main_context_unref (chain->context);
  g_mutex_clear (&chain->lock);
  g_free (chain);
}

typedef struct
{
  SnodoMiddlewareChain *chain;
  GPtrArray            *waiting;
  GPtrArray            *finished;
} Released;

static void
released_free (Released *released)
{
  g_ptr_array_unref (released->finished);
  g_ptr_array_unref (released->waiting);
  snodo_middleware_chain_unref (released->chain);
  g_free (released);
}

static gboolean
snodo_middleware_chain_released_cb (gpointer user_data)
{
  return G_SOURCE_REMOVE;
}

void
snodo_middleware_chain_detach (SnodoMiddlewareChain *chain,
                               GMainContext         *context)
{
  Released *released = g_new0 (Released, 1);
  GSource *source;

  /* The closures may hold what holds the chain. They are released from
   * the context, never inside the call that was given them: GJS frees a
   * closure released before the function it was passed to returns
   * twice. */
  g_mutex_lock (&chain->lock);
  released->chain = chain;
  released->waiting = g_steal_pointer (&chain->waiting);
  released->finished = g_steal_pointer (&chain->finished);
  chain->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  chain->finished = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  g_mutex_unlock (&chain->lock);

  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] middleware closures");
  g_source_set_callback (source, snodo_middleware_chain_released_cb, released, (GDestroyNotify) released_free);
  g_source_attach (source, context);
  g_source_unref (source);
}

gboolean
snodo_middleware_chain_is_waiting (SnodoMiddlewareChain *chain)
{
  gboolean waiting;

  g_mutex_lock (&chain->lock);
  waiting = chain->waiting->len > 0;
  g_mutex_unlock (&chain->lock);
  return waiting;
}

gboolean
snodo_middleware_chain_wait (SnodoMiddlewareChain    *chain,
                             SnodoInvocation         *invocation,
                             SnodoMiddlewareNext     *next,
                             SnodoMiddlewareDoneFunc  done,
                             gpointer                 user_data,
                             GDestroyNotify           destroy)
{
  Waiting *waiting;

  gboolean ended;

  waiting = g_new0 (Waiting, 1);
  waiting->next = g_object_ref (next);
  waiting->done = done;
  waiting->user_data = user_data;
  waiting->destroy = destroy;

  /* Snodo ended the request, or it was cancelled: nothing to pass on. */
  ended = g_atomic_int_get (&invocation->returned) == RETURNED_ENDED ||
          (invocation->work != NULL && snodo_work_is_cancelled (invocation->work));
  g_mutex_lock (&chain->lock);
  g_ptr_array_add (ended ? chain->finished : chain->waiting, waiting);
  g_mutex_unlock (&chain->lock);
  return !ended;
}

typedef struct
{
  SnodoMiddlewareChain *chain;
  Waiting              *waiting;
  SnodoInvocation      *invocation;
  SnodoAnswer          *answer;
} Delivery;

static void
delivery_free (Delivery *delivery)
{
  /* Not delivered (the context went away): the invocation is let go of. */
  if (delivery->waiting != NULL)
    {
      g_mutex_lock (&delivery->chain->lock);
      g_ptr_array_add (delivery->chain->finished, g_steal_pointer (&delivery->waiting));
      g_mutex_unlock (&delivery->chain->lock);
    }
  g_clear_object (&delivery->invocation);
  snodo_answer_unref (delivery->answer);
  snodo_middleware_chain_unref (delivery->chain);
  g_free (delivery);
}

static gboolean
snodo_middleware_chain_deliver_cb (gpointer user_data)
{
  Delivery *delivery = user_data;
  Waiting *waiting = g_steal_pointer (&delivery->waiting);
  SnodoInvocation *invocation = g_steal_pointer (&delivery->invocation);

  /* Snodo ended the request meanwhile: its answer went out. */
  if (g_atomic_int_get (&invocation->returned) == RETURNED_ENDED)
    g_object_unref (invocation);
  else
    waiting->done (waiting->next, invocation, delivery->answer, waiting->user_data);
  g_mutex_lock (&delivery->chain->lock);
  g_ptr_array_add (delivery->chain->finished, waiting);
  g_mutex_unlock (&delivery->chain->lock);
  return G_SOURCE_REMOVE;
}

gboolean
snodo_middleware_chain_take (SnodoMiddlewareChain *chain,
                             SnodoInvocation      *invocation,
                             GBytes               *line)
{
  Waiting *waiting = NULL;
  Delivery *delivery;
  GSource *source;

  /* Snodo's own answer at a deadline goes to the client, past them all. */
  if (g_atomic_int_get (&invocation->returned) == RETURNED_ENDED)
    return FALSE;

  g_mutex_lock (&chain->lock);
  if (chain->waiting->len > 0)
    waiting = g_ptr_array_steal_index (chain->waiting, chain->waiting->len - 1);
  g_mutex_unlock (&chain->lock);
  if (waiting == NULL)
    return FALSE;

  /* The middleware answers next: the request is open again for it (unless
   * Snodo ends it first). It receives the answer on the server's context,
   * in a turn of its own, wherever and however deep the answer was made. */
  g_atomic_int_compare_and_exchange (&invocation->returned, RETURNED_ANSWERED, RETURNED_OPEN);
  delivery = g_new0 (Delivery, 1);
  delivery->chain = snodo_middleware_chain_ref (chain);
  delivery->waiting = waiting;
  delivery->invocation = invocation;
  delivery->answer = snodo_answer_new (line, invocation->id);
  source = g_idle_source_new ();
  g_source_set_priority (source, G_PRIORITY_DEFAULT);
  g_source_set_static_name (source, "[snodo] middleware answer");
  g_source_set_callback (source, snodo_middleware_chain_deliver_cb, delivery, (GDestroyNotify) delivery_free);
  g_source_attach (source, invocation->connection->context);
  g_source_unref (source);
  return TRUE;
}

typedef struct
{
  SnodoMiddlewareChain *chain;
  guint                 index;
  SnodoInvocation      *invocation;
} Level;

static void
level_free (Level *level)
{
  /* Not run (the context went away): the invocation is let go of. */
  g_clear_object (&level->invocation);
  snodo_middleware_chain_unref (level->chain);
  g_free (level);
}

static gboolean
snodo_middleware_chain_level_cb (gpointer user_data)
{
  Level *level = user_data;
  SnodoMiddlewareChain *chain = level->chain;
  SnodoServerHook *middleware = g_ptr_array_index (chain->middlewares, level->index);
  g_autoptr(SnodoMiddlewareNext) next = snodo_middleware_next_new (chain, level->index + 1);

  ((SnodoMiddlewareFunc) middleware->func) (g_steal_pointer (&level->invocation), next, middleware->user_data);
  return G_SOURCE_REMOVE;
}

static void
snodo_middleware_chain_thread_cb (GTask        *task,
                                  gpointer      source_object,
                                  gpointer      task_data,
                                  GCancellable *cancellable)
{
  Level *level = task_data;

  level->chain->handler (level->chain->data, g_steal_pointer (&level->invocation));
  g_task_return_boolean (task, TRUE);
}

/* Each middleware runs in a turn of the context of its own (a middleware
 * that passes on at once does not nest the next inside it, which GJS
 * does not survive a few levels deep); the handler runs in the turn of
 * the last, or in a thread. */
void
snodo_middleware_chain_run (SnodoMiddlewareChain *chain,
                            guint                 index,
                            SnodoInvocation      *invocation)
{
  Level *level;

  if (index >= chain->middlewares->len && !chain->in_thread)
    {
      chain->handler (chain->data, invocation);
      return;
    }

  level = g_new0 (Level, 1);
  level->chain = snodo_middleware_chain_ref (chain);
  level->index = index;
  level->invocation = invocation;
  if (index >= chain->middlewares->len)
    {
      g_autoptr(GTask) task = g_task_new (NULL, NULL, NULL, NULL);

      g_task_set_source_tag (task, snodo_middleware_chain_run);
      g_task_set_name (task, "[snodo] handler after middlewares");
      g_task_set_task_data (task, level, (GDestroyNotify) level_free);
      g_task_run_in_thread (task, snodo_middleware_chain_thread_cb);
    }
  else
    {
      GSource *source = g_idle_source_new ();

      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_static_name (source, "[snodo] middleware");
      g_source_set_callback (source, snodo_middleware_chain_level_cb, level, (GDestroyNotify) level_free);
      g_source_attach (source, chain->context);
      g_source_unref (source);
    }
}

void
snodo_server_run_middleware (SnodoServer     *self,
                             SnodoInvocation *invocation,
                             gboolean         in_thread,
                             void           (*handler) (gpointer         data,
                                                        SnodoInvocation *invocation),
                             gpointer         data,
                             gpointer       (*data_ref) (gpointer data),
                             GDestroyNotify   data_unref)
{
  GPtrArray *installed = g_atomic_pointer_get (&snodo_server_get_hooks (self)->middleware);
  g_autoptr(GPtrArray) middlewares = NULL;
  SnodoMiddlewareChain *chain;
  const char *method = snodo_invocation_get_method (invocation);

  if (G_LIKELY (installed == NULL) || invocation->middleware != NULL)
    {
      handler (data, invocation);
      return;
    }

  middlewares = g_ptr_array_new_with_free_func ((GDestroyNotify) snodo_server_hook_unref);
  for (guint i = 0; i < installed->len; i++)
    {
      SnodoServerHook *middleware = g_ptr_array_index (installed, i);

      if (middleware->method == NULL || g_str_equal (middleware->method, method))
        g_ptr_array_add (middlewares, g_rc_box_acquire (middleware));
    }
  if (middlewares->len == 0)
    {
      handler (data, invocation);
      return;
    }

  chain = g_new0 (SnodoMiddlewareChain, 1);
  g_atomic_ref_count_init (&chain->ref_count);
  chain->middlewares = g_steal_pointer (&middlewares);
  chain->handler = handler;
  chain->data = data_ref (data);
  chain->data_unref = data_unref;
  chain->in_thread = in_thread;
  chain->context = g_main_context_ref (invocation->connection->context);
  g_mutex_init (&chain->lock);
  chain->waiting = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  chain->finished = g_ptr_array_new_with_free_func ((GDestroyNotify) waiting_free);
  invocation->middleware = chain;
  snodo_middleware_chain_run (chain, 0, invocation);
}

/**
 * snodo_server_add_middleware:
 * @self: a server
 * @method: (nullable): the method it applies to, such as `tools/call`, or
 *   %NULL for every request
 * @func: (scope notified) (closure user_data) (destroy destroy): the
 *   middleware
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the middleware is removed
 *   and no request passes through it any more
 *
 * Installs a middleware: code that runs around the handler of every
 * request of @method (of every request with %NULL), once the request is
 * admitted, and decides what the client gets. It is given the request and
 * what comes next, [class@Snodo.MiddlewareNext]. It may:
 *
 * - pass the request on with [method@Snodo.MiddlewareNext.call], now or
 *   later, and receive the answer of the handler (or of the middlewares
 *   installed after it) before it is written: pass it on with
 *   [method@Snodo.Invocation.return_answer], replace it, or call again
 *   (a retry);
 * - answer itself with any `snodo_invocation_return_*()` function (a
 *   cache, a refusal), and the handler does not run;
 * - time the call, count it, log it.
 *
 * Middlewares run in the order they were installed, the first outermost;
 * they see the requests a handler would run for (tools, resources,
 * prompts, completion, the application's own methods, and the server's
 * methods such as `tools/list` and `ping`), after the request hooks, the
 * server's checks and admission, within the request's deadline
 * ([property@Snodo.Server:handler-timeout]): at the deadline Snodo
 * answers the client itself and what the middlewares answer later is
 * dropped. The client receives one answer, whatever they do.
 *
 * Each middleware runs on the server's context (where its transports
 * run), in a main-loop turn of its own, and so does each
 * [callback@Snodo.MiddlewareDoneFunc], whatever thread answered; the
 * handler runs in the turn of the last middleware, or on a worker thread
 * for a tool that runs in one ([property@Snodo.Tool:run-in-thread]).
 * Middlewares must not block the context. The invocation a middleware is
 * given is its to answer, as a handler's is: passing it on hands it over.
 * With no middleware installed, a request costs nothing more.
 *
 * Returns: the middleware's identifier (never 0), for
 *   [method@Snodo.Server.remove_hook]
 *
 * Since: 0.1
 */
guint
snodo_server_add_middleware (SnodoServer         *self,
                             const char          *method,
                             SnodoMiddlewareFunc  func,
                             gpointer             user_data,
                             GDestroyNotify       destroy)
{
  SnodoServerHook *middleware;

  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  middleware = g_rc_box_new0 (SnodoServerHook);
  middleware->func = (gpointer) func;
  middleware->user_data = user_data;
  middleware->destroy = destroy;
  middleware->method = g_strdup (method);
  middleware->middleware = TRUE;
  g_atomic_int_inc (&snodo_server_middlewares);
  return snodo_server_hooks_add (self, &snodo_server_get_hooks (self)->middleware, middleware);
}
