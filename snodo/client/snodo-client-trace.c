/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The client's spans and trace context: each request it sends carries a
 * `traceparent` in its _meta when it is part of a trace (the caller's own,
 * or that of the server handler it is sent from) or when spans are
 * exported; each request of the server it answers is a span of its own. */

#include "config.h"

#include <string.h>

#include "snodo-client-private.h"
#include "snodo-telemetry-private.h"
#include "snodo-wire-private.h"

static void
set_common (SnodoSpan   *span,
            const char  *method,
            JsonObject  *params,
            const char  *id)
{
  const char *name;

  if (!snodo_span_is_recording (span))
    return;
  snodo_span_set_string (span, "mcp.method.name", method);
  snodo_span_set_string (span, "jsonrpc.protocol.version", "2.0");
  if (id != NULL)
    snodo_span_set_string (span, "jsonrpc.request.id", id);
  name = params != NULL ? snodo_json_object_get_string (params, "name") : NULL;
  if (name != NULL && (g_str_equal (method, "tools/call") || g_str_equal (method, "prompts/get")))
    {
      g_autofree char *span_name = g_strdup_printf ("%s %s", method, name);

      snodo_span_set_name (span, span_name);
      snodo_span_set_string (span, g_str_equal (method, "tools/call") ? "gen_ai.tool.name" : "gen_ai.prompt.name",
                             name);
    }
}

SnodoSpan *
snodo_client_trace_request (SnodoClient *self,
                            const char  *method,
                            JsonObject  *params,
                            gint64       id)
{
  const char *traceparent = NULL;
  const char *tracestate = NULL;
  JsonObject *meta = NULL;
  char child[SNODO_TRACEPARENT_LEN + 1];
  g_autofree char *id_text = NULL;
  SnodoSpan *span;

  if (json_object_has_member (params, "_meta") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (params, "_meta")))
    {
      meta = json_object_get_object_member (params, "_meta");
      traceparent = snodo_json_object_get_string (meta, "traceparent");
      tracestate = snodo_json_object_get_string (meta, "tracestate");
    }
  if (traceparent == NULL)
    traceparent = snodo_trace_get_current (&tracestate);
  if (traceparent == NULL && !snodo_telemetry_recording ())
    return NULL;

  span = snodo_span_start (method, SNODO_SPAN_KIND_CLIENT,
                           traceparent, traceparent != NULL ? strlen (traceparent) : 0,
                           tracestate, tracestate != NULL ? strlen (tracestate) : 0);
  if (span == NULL)
    return NULL;
  id_text = g_strdup_printf ("%" G_GINT64_FORMAT, id);
  set_common (span, method, params, id_text);
  if (snodo_client_get_uri (self) != NULL)
    snodo_span_set_string (span, "network.transport", "tcp");
  else
    snodo_span_set_string (span, "network.transport", "pipe");

  if (meta == NULL)
    {
      json_object_set_object_member (params, "_meta", json_object_new ());
      meta = json_object_get_object_member (params, "_meta");
    }
  snodo_span_format_traceparent (span, child);
  json_object_set_string_member (meta, "traceparent", child);
  if (snodo_span_get_tracestate (span) != NULL)
    json_object_set_string_member (meta, "tracestate", snodo_span_get_tracestate (span));
  else if (json_object_has_member (meta, "tracestate"))
    json_object_remove_member (meta, "tracestate");
  return span;
}

/* Ends @span with the response @message (NULL: none came, as
 * error.type @no_answer_type). */
void
snodo_client_trace_response (SnodoSpan  *span,
                             JsonObject *message,
                             const char *no_answer_type)
{
  if (span == NULL)
    return;
  if (message == NULL)
    snodo_span_set_error (span, no_answer_type, NULL);
  else if (json_object_has_member (message, "error") &&
           JSON_NODE_HOLDS_OBJECT (json_object_get_member (message, "error")))
    {
      JsonObject *error = json_object_get_object_member (message, "error");
      JsonNode *code = json_object_get_member (error, "code");
      g_autofree char *code_text = g_strdup_printf ("%" G_GINT64_FORMAT,
                                                    snodo_json_node_is_number (code) ? json_node_get_int (code) : 0);

      snodo_span_set_string (span, "rpc.response.status_code", code_text);
      snodo_span_set_error (span, code_text, snodo_json_object_get_string (error, "message"));
    }
  else if (json_object_has_member (message, "result") &&
           JSON_NODE_HOLDS_OBJECT (json_object_get_member (message, "result")))
    {
      JsonObject *result = json_object_get_object_member (message, "result");
      JsonNode *is_error = json_object_get_member (result, "isError");

      if (is_error != NULL && JSON_NODE_HOLDS_VALUE (is_error) &&
          json_node_get_value_type (is_error) == G_TYPE_BOOLEAN && json_node_get_boolean (is_error))
        snodo_span_set_error (span, "tool_error", NULL);
    }
  snodo_span_end (span);
}

/* A request of the server the client answers: a span, child of the
 * context in its _meta; NULL when there is none and spans are not
 * exported. */
SnodoSpan *
snodo_client_trace_server_request (const char *method,
                                   JsonObject *params)
{
  JsonObject *meta = NULL;
  const char *traceparent = NULL;
  const char *tracestate = NULL;
  SnodoSpan *span;

  if (params != NULL && json_object_has_member (params, "_meta") &&
      JSON_NODE_HOLDS_OBJECT (json_object_get_member (params, "_meta")))
    {
      meta = json_object_get_object_member (params, "_meta");
      traceparent = snodo_json_object_get_string (meta, "traceparent");
      tracestate = snodo_json_object_get_string (meta, "tracestate");
    }
  if (traceparent == NULL && !snodo_telemetry_recording ())
    return NULL;
  span = snodo_span_start (method, SNODO_SPAN_KIND_SERVER,
                           traceparent, traceparent != NULL ? strlen (traceparent) : 0,
                           tracestate, tracestate != NULL ? strlen (tracestate) : 0);
  if (span != NULL)
    set_common (span, method, params, NULL);
  return span;
}
