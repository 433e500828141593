/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The application's hooks on requests and answers: installing and
 * removing them, and running them, the request hooks from dispatch before
 * admission (snodo-server.c), the answer hooks before an answer is written
 * (snodo-invocation.c). See threading.md, "Hooks on requests and
 * answers". */

#include "config.h"

#include <json-glib/json-glib.h>

#include "snodo-answer-private.h"
#include "snodo-invocation.h"
#include "snodo-invocation-private.h"
#include "snodo-server.h"
#include "snodo-server-internal.h"

typedef SnodoServerHook Hook;

static void
hook_clear (Hook *hook)
{
  if (hook->destroy != NULL)
    hook->destroy (hook->user_data);
  g_free (hook->method);
  if (hook->middleware)
    g_atomic_int_dec_and_test (&snodo_server_middlewares);
}

static void
hook_unref (Hook *hook)
{
  g_rc_box_release_full (hook, (GDestroyNotify) hook_clear);
}

void
snodo_server_hook_unref (SnodoServerHook *hook)
{
  hook_unref (hook);
}

/* A new array of @hooks (nullable) with @add (nullable) at the end and
 * without the hook @remove_id; NULL if it would be empty. */
static GPtrArray *
hooks_copy (GPtrArray *hooks,
            Hook      *add,
            guint      remove_id)
{
  GPtrArray *copy = g_ptr_array_new_with_free_func ((GDestroyNotify) hook_unref);

  for (guint i = 0; hooks != NULL && i < hooks->len; i++)
    {
      Hook *hook = g_ptr_array_index (hooks, i);

      if (hook->id != remove_id)
        g_ptr_array_add (copy, g_rc_box_acquire (hook));
    }
  if (add != NULL)
    g_ptr_array_add (copy, add);
  if (copy->len == 0)
    g_clear_pointer (&copy, g_ptr_array_unref);
  return copy;
}

void
snodo_server_hooks_clear (SnodoServerHooks *hooks)
{
  g_clear_pointer (&hooks->request, g_ptr_array_unref);
  g_clear_pointer (&hooks->answer, g_ptr_array_unref);
  g_clear_pointer (&hooks->middleware, g_ptr_array_unref);
}

/* The request hooks see the invocation in turn, until one refuses it.
 * TRUE if it was refused (and answered). */
gboolean
snodo_server_run_request_hooks (SnodoServer     *self,
                                SnodoInvocation *invocation)
{
  g_autoptr(GPtrArray) hooks = g_ptr_array_ref (snodo_server_get_hooks (self)->request);

  for (guint i = 0; i < hooks->len; i++)
    {
      Hook *hook = g_ptr_array_index (hooks, i);

      ((SnodoRequestHookFunc) hook->func) (invocation, hook->user_data);
      if (snodo_invocation_answer_rejection (invocation))
        return TRUE;
    }
  return snodo_invocation_answer_rejection (invocation);
}

gboolean
snodo_server_has_answer_hooks (SnodoServer *self)
{
  return g_atomic_pointer_get (&snodo_server_get_hooks (self)->answer) != NULL;
}

void
snodo_server_run_answer_hooks (SnodoServer     *self,
                               SnodoInvocation *invocation,
                               GBytes          *line)
{
  g_autoptr(GPtrArray) hooks = NULL;
  g_autoptr(SnodoAnswer) answer = NULL;

  /* Removed since the answer was made. */
  if (snodo_server_get_hooks (self)->answer == NULL)
    return;
  hooks = g_ptr_array_ref (snodo_server_get_hooks (self)->answer);

  /* The hooks share one view of the line; a tree is made only for those
   * that take one, or when a hook asks for it. */
  answer = snodo_answer_new (line, snodo_invocation_get_id (invocation));
  for (guint i = 0; i < hooks->len; i++)
    {
      Hook *hook = g_ptr_array_index (hooks, i);

      if (hook->view)
        ((SnodoAnswerViewHookFunc) hook->func) (invocation, answer, hook->user_data);
      else
        ((SnodoAnswerHookFunc) hook->func) (invocation, snodo_answer_get_tree (answer), hook->user_data);
    }
}

guint
snodo_server_hooks_add (SnodoServer  *self,
                        GPtrArray   **hooks,
                        Hook         *hook)
{
  GPtrArray *old = *hooks;

  hook->id = ++snodo_server_get_hooks (self)->last_id;
  g_atomic_pointer_set (hooks, hooks_copy (old, hook, 0));
  g_clear_pointer (&old, g_ptr_array_unref);
  return hook->id;
}

static guint
snodo_server_add_hook (SnodoServer     *self,
                       GPtrArray      **hooks,
                       gpointer         func,
                       gpointer         user_data,
                       GDestroyNotify   destroy,
                       gboolean         view)
{
  Hook *hook = g_rc_box_new0 (Hook);

  hook->func = func;
  hook->user_data = user_data;
  hook->destroy = destroy;
  hook->view = view;
  return snodo_server_hooks_add (self, hooks, hook);
}

/**
 * snodo_server_add_request_hook:
 * @self: a server
 * @func: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the hook is removed and has
 *   finished running
 *
 * Installs a hook that sees every request a client sends before it is
 * admitted (before it waits for the executor and before its handler runs):
 * for logging, metrics, rate limits or authorization by tool. It may
 * attach data for the handler ([method@Snodo.Invocation.set_annotation])
 * or refuse the request with an error answer
 * ([method@Snodo.Invocation.reject]).
 *
 * Hooks run in the order they were installed, on the context the server's
 * transports run on (the thread-default main context where they were
 * started), where they must also be installed and removed. A request the
 * server answers without admitting it (a method it does not know, a tool
 * it does not have, arguments that do not fit the tool's schema, an id in
 * use) is not seen; notifications and answers of the client are not
 * requests. With no hook installed, a request costs nothing more.
 *
 * Returns: the hook's identifier (never 0), for
 *   [method@Snodo.Server.remove_hook]
 *
 * Since: 0.1
 */
guint
snodo_server_add_request_hook (SnodoServer          *self,
                               SnodoRequestHookFunc  func,
                               gpointer              user_data,
                               GDestroyNotify        destroy)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  return snodo_server_add_hook (self, &snodo_server_get_hooks (self)->request, (gpointer) func, user_data, destroy, FALSE);
}

/**
 * snodo_server_add_answer_hook:
 * @self: a server
 * @func: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the hook is removed and has
 *   finished running
 *
 * Installs a hook that sees every answer to an admitted request (and to a
 * request a request hook refused) just before it is written: its result
 * or its error, as the JSON-RPC message, in the request's protocol
 * version. An answer dropped because the request was cancelled is not
 * seen.
 *
 * Hooks run in the order they were installed, on the context the server's
 * transports run on, whatever thread the handler answered from: an answer
 * made on a worker thread (see [property@Snodo.Tool:run-in-thread]) goes
 * there first, after the progress and log lines sent before it. They must
 * be installed and removed on that context too. With no hook installed,
 * an answer costs nothing more.
 *
 * The answer is given as a tree, which Snodo parses from the line it
 * wrote: installed, such a hook costs about as much as the request itself
 * (in 2026-07-28 more). [method@Snodo.Server.add_answer_view_hook] gives
 * the line instead, and a tree only if the hook asks for it. Hooks of both
 * kinds share one parse.
 *
 * Returns: the hook's identifier (never 0), for
 *   [method@Snodo.Server.remove_hook]
 *
 * Since: 0.1
 */
guint
snodo_server_add_answer_hook (SnodoServer         *self,
                              SnodoAnswerHookFunc  func,
                              gpointer             user_data,
                              GDestroyNotify       destroy)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  return snodo_server_add_hook (self, &snodo_server_get_hooks (self)->answer, (gpointer) func, user_data, destroy, FALSE);
}

/**
 * snodo_server_add_answer_view_hook:
 * @self: a server
 * @func: (scope notified) (closure user_data) (destroy destroy): the hook
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the hook is removed and has
 *   finished running
 *
 * Installs a hook that sees every answer an answer hook sees (see
 * [method@Snodo.Server.add_answer_hook]), at the same moment and in the
 * same order, as a [class@Snodo.Answer]: the line Snodo is about to write,
 * whether it is an error and its code, the request's id, read without
 * parsing the answer. [method@Snodo.Answer.get_tree] parses it, once, for
 * a hook that needs more.
 *
 * Returns: the hook's identifier (never 0), for
 *   [method@Snodo.Server.remove_hook]
 *
 * Since: 0.1
 */
guint
snodo_server_add_answer_view_hook (SnodoServer             *self,
                                   SnodoAnswerViewHookFunc  func,
                                   gpointer                 user_data,
                                   GDestroyNotify           destroy)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), 0);
  g_return_val_if_fail (func != NULL, 0);

  return snodo_server_add_hook (self, &snodo_server_get_hooks (self)->answer, (gpointer) func, user_data, destroy, TRUE);
}

/**
 * snodo_server_remove_hook:
 * @self: a server
 * @id: what [method@Snodo.Server.add_request_hook],
 *   [method@Snodo.Server.add_answer_hook],
 *   [method@Snodo.Server.add_answer_view_hook] or
 *   [method@Snodo.Server.add_middleware] returned
 *
 * Removes a hook or a middleware, on the context where it runs. A hook may remove itself
 * or others while it runs; the requests and answers already being seen by
 * the hooks finish with the hooks they started with, and the requests
 * already passing through middlewares with the middlewares they started
 * with.
 *
 * Returns: %TRUE if the hook was installed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_hook (SnodoServer *self,
                          guint        id)
{
  SnodoServerHooks *all = snodo_server_get_hooks (self);
  GPtrArray **lists[] = { &all->request, &all->answer, &all->middleware };

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);

  for (guint l = 0; l < G_N_ELEMENTS (lists) && id != 0; l++)
    {
      GPtrArray *old = *lists[l];

      for (guint i = 0; old != NULL && i < old->len; i++)
        if (((Hook *) g_ptr_array_index (old, i))->id == id)
          {
            g_atomic_pointer_set (lists[l], hooks_copy (old, NULL, id));
            g_ptr_array_unref (old);
            return TRUE;
          }
    }
  return FALSE;
}
