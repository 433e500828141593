/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include "snodo-middleware-next.h"

G_BEGIN_DECLS

/* One request's way through its middlewares (snodo-server-middleware.c):
 * which middlewares apply, the handler at the end, and the middlewares
 * waiting for an answer, innermost on top. Owned by the invocation
 * (its middleware field), referenced by each SnodoMiddlewareNext. */
typedef struct _SnodoMiddlewareChain SnodoMiddlewareChain;

SnodoMiddlewareChain *snodo_middleware_chain_ref      (SnodoMiddlewareChain *chain);
void                  snodo_middleware_chain_unref    (SnodoMiddlewareChain *chain);
/* From snodo_invocation_finish(): TRUE if a middleware waits for the
 * answer @line, which it was given (with the invocation's reference);
 * FALSE if @line goes to the client (no middleware waits, or Snodo ended
 * the request itself). */
gboolean              snodo_middleware_chain_take     (SnodoMiddlewareChain *chain,
                                                       SnodoInvocation      *invocation,
                                                       GBytes               *line);
/* Whether a middleware waits for the answer being made (then the
 * request's deadline keeps running). */
gboolean              snodo_middleware_chain_is_waiting (SnodoMiddlewareChain *chain);
/* The invocation is finalized: what waits is dropped, from @context.
 * Takes @chain. */
void                  snodo_middleware_chain_detach   (SnodoMiddlewareChain *chain,
                                                       GMainContext         *context);
/* Runs level @index of @chain (a middleware, or the handler past the
 * last) with @invocation, whose reference it takes. */
void                  snodo_middleware_chain_run      (SnodoMiddlewareChain *chain,
                                                       guint                 index,
                                                       SnodoInvocation      *invocation);
/* Pushes what waits for the answer of the levels after @next's; FALSE
 * (and @done is only released) if the request ended. */
gboolean              snodo_middleware_chain_wait     (SnodoMiddlewareChain    *chain,
                                                       SnodoInvocation         *invocation,
                                                       SnodoMiddlewareNext     *next,
                                                       SnodoMiddlewareDoneFunc  done,
                                                       gpointer                 user_data,
                                                       GDestroyNotify           destroy);

SnodoMiddlewareNext  *snodo_middleware_next_new       (SnodoMiddlewareChain *chain,
                                                       guint                 index);

G_END_DECLS
