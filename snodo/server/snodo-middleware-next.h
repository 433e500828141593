/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <gio/gio.h>

#include "snodo-answer.h"
#include "snodo-invocation.h"
#include "snodo-types.h"
#include "snodo-version-macros.h"

G_BEGIN_DECLS

#define SNODO_TYPE_MIDDLEWARE_NEXT (snodo_middleware_next_get_type ())

SNODO_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (SnodoMiddlewareNext, snodo_middleware_next, SNODO, MIDDLEWARE_NEXT, GObject)

/**
 * SnodoMiddlewareDoneFunc:
 * @next: (transfer none): what [method@Snodo.MiddlewareNext.call] was
 *   called on, which may be called again (a retry)
 * @invocation: (transfer full): the request, to answer now or later
 * @answer: (transfer none): what the rest of the chain answered
 * @user_data: the data given to [method@Snodo.MiddlewareNext.call]
 *
 * Receives the answer of the middlewares and handler after a middleware
 * (see [method@Snodo.Server.add_middleware]), before anything is written.
 * The middleware answers the request in turn: with this answer
 * ([method@Snodo.Invocation.return_answer]), with one of its own (any
 * `snodo_invocation_return_*()` function), or by calling @next again.
 *
 * It runs on the server's context, in a turn of its own, whatever thread
 * answered.
 *
 * Since: 0.1
 */
typedef void (*SnodoMiddlewareDoneFunc) (SnodoMiddlewareNext *next,
                                         SnodoInvocation     *invocation,
                                         SnodoAnswer         *answer,
                                         gpointer             user_data);

SNODO_AVAILABLE_IN_ALL
void     snodo_middleware_next_call      (SnodoMiddlewareNext     *self,
                                          SnodoInvocation         *invocation,
                                          SnodoMiddlewareDoneFunc  done,
                                          gpointer                 user_data,
                                          GDestroyNotify           destroy);

SNODO_AVAILABLE_IN_ALL
void     snodo_invocation_return_answer  (SnodoInvocation         *self,
                                          SnodoAnswer             *answer);

G_END_DECLS
