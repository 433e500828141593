/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-middleware-next.h"
#include "snodo-answer-private.h"
#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-wire-private.h"
#include "snodo-invocation-internal.h"
#include "snodo-middleware-private.h"

/**
 * SnodoMiddlewareNext:
 *
 * What comes after a middleware: the middlewares installed after it and,
 * at the end, the request's handler (see
 * [method@Snodo.Server.add_middleware]).
 *
 * A middleware calls [method@Snodo.MiddlewareNext.call] to pass the
 * request on, now or later; its [callback@Snodo.MiddlewareDoneFunc] then
 * receives what they answered, and may call it again to retry.
 *
 * Since: 0.1
 */

struct _SnodoMiddlewareNext
{
  GObject               parent_instance;

  /* The request's chain (a reference), and the level that comes next. */
  SnodoMiddlewareChain *chain;
  guint                 index;
};

G_DEFINE_FINAL_TYPE (SnodoMiddlewareNext, snodo_middleware_next, G_TYPE_OBJECT)

static void
snodo_middleware_next_finalize (GObject *object)
{
  SnodoMiddlewareNext *self = SNODO_MIDDLEWARE_NEXT (object);

  g_clear_pointer (&self->chain, snodo_middleware_chain_unref);

  G_OBJECT_CLASS (snodo_middleware_next_parent_class)->finalize (object);
}

static void
snodo_middleware_next_class_init (SnodoMiddlewareNextClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = snodo_middleware_next_finalize;
}

static void
snodo_middleware_next_init (SnodoMiddlewareNext *self)
{
}

SnodoMiddlewareNext *
snodo_middleware_next_new (SnodoMiddlewareChain *chain,
                           guint                 index)
{
  SnodoMiddlewareNext *self = g_object_new (SNODO_TYPE_MIDDLEWARE_NEXT, NULL);

  self->chain = snodo_middleware_chain_ref (chain);
  self->index = index;
  return self;
}

/**
 * snodo_middleware_next_call:
 * @self: what comes after a middleware
 * @invocation: (transfer full): the request the middleware was given
 * @done: (scope notified) (closure user_data) (destroy destroy): receives
 *   the answer
 * @user_data: data for @done
 * @destroy: (nullable): frees @user_data after @done ran, or when the
 *   request ends without it (cancelled, or past its deadline)
 *
 * Passes the request on to the next middleware, or to its handler after
 * the last. What they answer is not written: @done receives it, and the
 * middleware answers in turn. Called again from @done, it runs them again
 * (a retry). A request that ended meanwhile (cancelled, or answered by
 * Snodo at its deadline) is not passed on.
 *
 * Since: 0.1
 */
void
snodo_middleware_next_call (SnodoMiddlewareNext     *self,
                            SnodoInvocation         *invocation,
                            SnodoMiddlewareDoneFunc  done,
                            gpointer                 user_data,
                            GDestroyNotify           destroy)
{
  g_return_if_fail (SNODO_IS_MIDDLEWARE_NEXT (self));
  g_return_if_fail (SNODO_IS_INVOCATION (invocation));
  g_return_if_fail (done != NULL);

  if (!snodo_middleware_chain_wait (self->chain, invocation, self, done, user_data, destroy))
    {
      g_object_unref (invocation);
      return;
    }
  snodo_middleware_chain_run (self->chain, self->index, invocation);
}

/**
 * snodo_invocation_return_answer:
 * @self: (transfer full): an invocation
 * @answer: an answer, such as one a [callback@Snodo.MiddlewareDoneFunc]
 *   received
 *
 * Answers with @answer: its result or its error, as it is. An answer to
 * this request (what a middleware received) is written as it was made;
 * one to another request (a middleware's cache) is written with this
 * request's id. Callable from any thread, once.
 *
 * Since: 0.1
 */
void
snodo_invocation_return_answer (SnodoInvocation *self,
                                SnodoAnswer     *answer)
{
  g_autoptr(GBytes) line = NULL;
  JsonNode *id;

  g_return_if_fail (SNODO_IS_INVOCATION (self));
  g_return_if_fail (self->server != NULL);  /* made bare, for no request */
  g_return_if_fail (answer != NULL);

  if (!snodo_invocation_claim (self))
    return;

  id = snodo_answer_get_id (answer);
  if (id == self->id || (id != NULL && self->id != NULL && json_node_equal (id, self->id)))
    line = g_bytes_ref (snodo_answer_get_bytes (answer));
  else
    {
      JsonObject *tree = json_node_get_object (snodo_answer_get_tree (answer));
      JsonNode *error_node = json_object_get_member (tree, "error");
      JsonNode *result = json_object_get_member (tree, "result");
      JsonObject *error = error_node != NULL && JSON_NODE_HOLDS_OBJECT (error_node) ?
                          json_node_get_object (error_node) : NULL;

      if (error != NULL)
        line = snodo_frame_encode_error (self->id, json_object_get_int_member_with_default (error, "code", -32603),
                                         json_object_get_string_member_with_default (error, "message", ""),
                                         json_object_get_member (error, "data"));
      else if (result != NULL)
        line = snodo_frame_encode_result (self->id, result);
      else
        line = snodo_frame_encode_error (self->id, SNODO_RPC_ERROR_INTERNAL_ERROR,
                                         _("Internal error: an answer without result or error"), NULL);
    }
  snodo_invocation_finish (self, line);
}
