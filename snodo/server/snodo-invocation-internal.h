/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <json-glib/json-glib.h>

#include "snodo-connection-private.h"
#include "snodo-invocation.h"
#include "snodo-protocol-private.h"
#include "snodo-server.h"
#include "snodo-telemetry-private.h"
#include "snodo-work.h"

G_BEGIN_DECLS

/*
 * Inside SnodoInvocation: its fields and how it ends, shared by
 * snodo-invocation.c (the request, its progress, logs and input) and
 * snodo-invocation-return.c (the snodo_invocation_return_*() family) only.
 */

/* What request hooks attached (sealed once the handler runs), or NULL;
 * and the error a hook refused the request with (code 0: none). */
typedef struct
{
  JsonObject *annotations;
  int         reject_code;
  char       *reject_message;
} SnodoHooked;

struct _SnodoInvocation
{
  GObject             parent_instance;

  /* All immutable after construction (set before the handler runs), so a
   * handler may read them from any thread. */
  SnodoServer        *server;
  SnodoConnection    *connection;
  const SnodoDialect *dialect;
  /* The request message when it was decoded whole, else NULL (not sealed:
   * see snodo_invocation_new()). */
  JsonNode           *message;
  JsonNode           *id;
  /* snodo_frame_id_key (id): what the invocation's lines belong to. */
  char               *key;
  const char         *method;
  /* "params" of the request (an empty object when absent). Until
   * snodo_invocation_get_params() builds it (under lock), its _meta may be
   * only in meta, a null node holding its place (meta.deferred). When the
   * request was decoded with params unbuilt (has_members), it is NULL until
   * then, and its members are in members for good: the same nodes, never
   * changed, which snodo_invocation_get_param() reads without the lock. */
  JsonNode           *params;
  gboolean            has_members;
  SnodoJsonMembers    members;
  SnodoRequestMeta    meta;
  /* "arguments" for tools/call (an empty object when absent). */
  JsonObject         *arguments;
  char               *name;
  /* The executor's work, set before the handler runs. */
  SnodoWork          *work;
  gboolean            tool_call;
  /* For a tool call: the tool's output schema (sealed), or NULL. */
  JsonNode           *output_schema;
  /* The method's entry in the dialect table, for shaping the result. */
  const SnodoMethod  *method_entry;
  /* 2026-07-28: what the answer says of the server, and the key of its
   * requestState (owned); NULL before. */
  SnodoStamp         *stamp;
  /* 2026-07-28: the answers to input requests made in earlier rounds
   * (replaced, never changed in place, under the lock once the handler
   * runs), and those the client sent without being asked, which count
   * only when the handler accepts them. */
  JsonObject         *input_answers;
  JsonObject         *unrequested_answers;
  gboolean            accepts_unrequested_input;
  /* What request hooks did, made by the first that did something (one
   * pointer, so that a server without hooks pays for nothing else). */
  SnodoHooked        *hooked;
  /* The middlewares it passes through (snodo-server-middleware.c), or
   * NULL when none applies: set before the first runs. */
  struct _SnodoMiddlewareChain *middleware;
  /* The task it runs as (snodo-server-tasks.c), or NULL. */
  GObject            *task_run;
  /* Who the request comes from (the connection's when it was made), or
   * NULL without authorization. */
  SnodoAuthInfo      *auth;
  /* The request's span (snodo-invocation-trace.c), or NULL: with one it
   * brought a trace context or spans are exported. Set before the handler
   * runs; taken under lock when the answer goes. */
  SnodoSpan          *span;

  /* Who ended the invocation (atomic, set once): OPEN, ANSWERED by the
   * handler, or ENDED by Snodo (a deadline, a release without an answer,
   * an abandoned cancellation), after which a late answer is dropped
   * quietly. */
  gint                returned;
  /* The handler has been given the invocation (set before it runs). */
  gboolean            dispatched;
  /* The handler's deadline (handler-timeout), or NULL. Under lock. */
  SnodoDeadline      *deadline;
  guint               deadline_ms;

  /* Progress: the token ("progressToken" in the request's _meta), the last
   * value sent, and how many notifications are not written yet (atomic),
   * which bounds what a chatty handler can queue. Under lock. */
  GMutex              lock;
  JsonNode           *progress_token;
  double              last_progress;
  gboolean            progress_sent;
  gint                progress_in_flight;
  /* 2026-07-28: inputs asked for in this round, answered together
   * (PendingInput). Under lock. */
  GPtrArray          *pending_inputs;
  /* What a failed input request lacked, as a ClientCapabilities object,
   * for the -32021 data. Under lock. */
  JsonObject         *required_capabilities;
};

enum
{
  RETURNED_OPEN = 0,
  RETURNED_ANSWERED = 1,
  RETURNED_ENDED = 2,
};

/* Takes the invocation's reference, sends @line unless the request was
 * cancelled, and completes the work once the line is written. */
void     snodo_invocation_finish (SnodoInvocation *self,
                                  GBytes          *line);
/* The handler answers: TRUE when the answer is the one (see
 * snodo-invocation.c). */
gboolean snodo_invocation_claim  (SnodoInvocation *self);
/* Snodo ends the request itself with error -32603 and @message. */
void     snodo_invocation_end    (SnodoInvocation *self,
                                  const char      *message);
/* Whether the request is neither answered nor cancelled. */
gboolean snodo_invocation_is_live (SnodoInvocation *self);
/* The span (snodo-invocation-trace.c). */
void      snodo_invocation_start_span (SnodoInvocation *self);
/* Ends it with the answer @line, or with no answer (@line NULL) as
 * error.type @no_answer_type. */
void      snodo_invocation_end_span   (SnodoInvocation *self,
                                       GBytes          *line,
                                       const char      *no_answer_type);
/* @params with the child trace context in _meta (a copy), or a new
 * reference to @params (nullable) when there is none. */
JsonNode *snodo_invocation_trace_params (SnodoInvocation *self,
                                         JsonNode        *params);
/* Builds params from members left unbuilt, for code that reads params
 * whole. With the lock held. */
void     snodo_invocation_build_params_locked (SnodoInvocation *self);

G_END_DECLS
