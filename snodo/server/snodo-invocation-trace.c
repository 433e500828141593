/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* An invocation's span: started with the request when it brings a trace
 * context or when spans are exported, ended with its answer, and the
 * parent of the requests the server makes while handling it. The
 * attributes follow OpenTelemetry's conventions for MCP. */

#include "config.h"

#include <string.h>

#include "snodo-invocation-internal.h"
#include "snodo-invocation-private.h"
#include "snodo-telemetry-private.h"
#include "snodo-wire-private.h"

void
snodo_invocation_start_span (SnodoInvocation *self)
{
  SnodoSpan *span;
  g_autofree char *id = NULL;

  span = snodo_span_start (self->method, SNODO_SPAN_KIND_SERVER,
                           self->meta.traceparent, self->meta.traceparent_len,
                           self->meta.tracestate, self->meta.tracestate_len);
  if (span == NULL)
    return;
  self->span = span;
  if (!snodo_span_is_recording (span))
    return;

  snodo_span_set_string (span, "mcp.method.name", self->method);
  snodo_span_set_string (span, "mcp.protocol.version",
                         snodo_protocol_version_to_string (self->dialect->version));
  snodo_span_set_string (span, "jsonrpc.protocol.version", "2.0");
  if (JSON_NODE_HOLDS_VALUE (self->id) && json_node_get_value_type (self->id) == G_TYPE_STRING)
    snodo_span_set_string (span, "jsonrpc.request.id", json_node_get_string (self->id));
  else if (JSON_NODE_HOLDS_VALUE (self->id))
    {
      id = g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (self->id));
      snodo_span_set_string (span, "jsonrpc.request.id", id);
    }
  if (self->connection->vtable->network_transport != NULL)
    snodo_span_set_string (span, "network.transport", self->connection->vtable->network_transport);
}

/* The members of the object text @text that the span reads: "code" and
 * "message" of an error, "isError" of a result. */
static void
read_members (const char  *text,
              gsize        len,
              gint64      *code,
              char       **message,
              gboolean    *is_error)
{
  SnodoJsonMemberIter iter;
  const char *name;
  const char *value;
  gsize name_len;
  gsize value_len;

  snodo_json_member_iter_init (&iter, text, len);
  while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
    {
      if (code != NULL && name_len == 6 && memcmp (name, "\"code\"", 6) == 0)
        *code = g_ascii_strtoll (value, NULL, 10);
      else if (message != NULL && name_len == 9 && memcmp (name, "\"message\"", 9) == 0 && value[0] == '"')
        {
          g_free (*message);
          *message = snodo_json_text_dup_string (value, value_len);
        }
      else if (is_error != NULL && name_len == 9 && memcmp (name, "\"isError\"", 9) == 0)
        *is_error = value_len == 4 && memcmp (value, "true", 4) == 0;
    }
}

/* A JSON-RPC error answer: its code as rpc.response.status_code and
 * error.type, its message as the status. */
static void
set_rpc_error (SnodoSpan  *span,
               gint64      code,
               const char *message)
{
  g_autofree char *code_text = g_strdup_printf ("%" G_GINT64_FORMAT, code);

  snodo_span_set_string (span, "rpc.response.status_code", code_text);
  snodo_span_set_error (span, code_text, message);
}

/* Takes the span under lock; NULL when it was taken already. */
static SnodoSpan *
take_span (SnodoInvocation *self)
{
  SnodoSpan *span;

  g_mutex_lock (&self->lock);
  span = g_steal_pointer (&self->span);
  g_mutex_unlock (&self->lock);
  return span;
}

/* Ends the span with the answer @line (NULL: none was sent). */
void
snodo_invocation_end_span (SnodoInvocation *self,
                           GBytes          *line,
                           const char      *no_answer_type)
{
  SnodoSpan *span = take_span (self);

  if (span == NULL)
    return;
  if (snodo_span_is_recording (span))
    {
      if (self->name != NULL)
        {
          g_autofree char *name = g_strdup_printf ("%s %s", self->method, self->name);

          snodo_span_set_name (span, name);
          if (self->tool_call)
            {
              snodo_span_set_string (span, "gen_ai.tool.name", self->name);
              snodo_span_set_string (span, "gen_ai.operation.name", "execute_tool");
            }
          else if (g_str_equal (self->method, "prompts/get"))
            snodo_span_set_string (span, "gen_ai.prompt.name", self->name);
        }
      if (line == NULL)
        snodo_span_set_error (span, no_answer_type, NULL);
      else
        {
          gsize len;
          const char *text = g_bytes_get_data (line, &len);
          SnodoJsonMemberIter iter;
          const char *name;
          const char *value;
          gsize name_len;
          gsize value_len;

          snodo_json_member_iter_init (&iter, text, len);
          while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
            {
              if (name_len == 7 && memcmp (name, "\"error\"", 7) == 0 && value[0] == '{')
                {
                  gint64 code = 0;
                  g_autofree char *message = NULL;

                  read_members (value, value_len, &code, &message, NULL);
                  set_rpc_error (span, code, message);
                }
              else if (self->tool_call && name_len == 8 && memcmp (name, "\"result\"", 8) == 0 &&
                       value[0] == '{')
                {
                  gboolean is_error = FALSE;

                  read_members (value, value_len, NULL, NULL, &is_error);
                  if (is_error)
                    snodo_span_set_error (span, "tool_error", NULL);
                }
            }
        }
    }
  snodo_span_end (span);
}

/* The params of a request the server sends while handling @self, with
 * the child context in their _meta; @params itself when there is none. */
JsonNode *
snodo_invocation_trace_params (SnodoInvocation *self,
                               JsonNode        *params)
{
  char traceparent[SNODO_TRACEPARENT_LEN + 1];
  const char *tracestate;
  JsonNode *copy;
  JsonObject *object;
  JsonNode *meta;

  g_autofree char *state = NULL;

  if (G_LIKELY (self->span == NULL))
    return params != NULL ? json_node_ref (params) : NULL;

  g_mutex_lock (&self->lock);
  if (self->span == NULL)
    {
      g_mutex_unlock (&self->lock);
      return params != NULL ? json_node_ref (params) : NULL;
    }
  snodo_span_format_traceparent (self->span, traceparent);
  state = g_strdup (snodo_span_get_tracestate (self->span));
  g_mutex_unlock (&self->lock);
  tracestate = state;
  copy = params != NULL ? json_node_copy (params) : json_node_init_object (json_node_alloc (), json_object_new ());
  object = json_node_get_object (copy);
  meta = json_object_get_member (object, SNODO_META);
  if (meta == NULL || !JSON_NODE_HOLDS_OBJECT (meta))
    {
      json_object_set_object_member (object, SNODO_META, json_object_new ());
      meta = json_object_get_member (object, SNODO_META);
    }
  json_object_set_string_member (json_node_get_object (meta), "traceparent", traceparent);
  if (tracestate != NULL)
    json_object_set_string_member (json_node_get_object (meta), "tracestate", tracestate);
  return copy;
}

void
snodo_invocation_refuse_span (SnodoInvocation *self,
                              int              code,
                              const char      *message)
{
  SnodoSpan *span = take_span (self);

  if (span == NULL)
    return;
  if (snodo_span_is_recording (span))
    set_rpc_error (span, code, message);
  snodo_span_end (span);
}

gboolean
snodo_invocation_has_span (SnodoInvocation *self)
{
  return self->span != NULL;
}

/* Marks the thread as running @self's handler (NULL: none). */
void
snodo_invocation_enter_handler (SnodoInvocation *self)
{
  /* Before the handler runs: nothing else has the span yet. */
  snodo_trace_set_current (self != NULL ? self->span : NULL);
}

/**
 * snodo_invocation_dup_traceparent:
 * @self: an invocation
 *
 * The W3C trace context for the requests a handler makes on behalf of this
 * one — a call through a [class@Snodo.Client] to another server, an HTTP
 * request of its own (the `traceparent` header) — when there is one: the
 * request brought a `traceparent` in its `_meta`, or Snodo exports spans
 * (see [func@Snodo.telemetry_is_enabled]). A client request sent from
 * inside the handler's own call carries it by itself; one sent later (from
 * a callback) can pass it in the `_meta` of its params.
 *
 * Returns: (transfer full) (nullable): the `traceparent`, or %NULL
 *
 * Since: 0.1
 */
char *
snodo_invocation_dup_traceparent (SnodoInvocation *self)
{
  char traceparent[SNODO_TRACEPARENT_LEN + 1];

  g_return_val_if_fail (SNODO_IS_INVOCATION (self), NULL);

  g_mutex_lock (&self->lock);
  if (self->span == NULL)
    {
      g_mutex_unlock (&self->lock);
      return NULL;
    }
  snodo_span_format_traceparent (self->span, traceparent);
  g_mutex_unlock (&self->lock);
  return g_strdup (traceparent);
}
