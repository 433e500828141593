/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* W3C trace context and spans: what a request carries in `_meta` and what
 * is recorded of it. The exporter is in snodo-otlp.c. */

#include "config.h"

#include <string.h>

#include "snodo-telemetry-private.h"
#include "snodo-wire-private.h"

struct _SnodoSpan
{
  SnodoTraceContext context;
  /* The parent's span id, when the span has a parent. */
  guint8            parent_span_id[8];
  gboolean          has_parent;
  gboolean          recording;
  SnodoSpanKind     kind;
  char             *name;
  char             *tracestate;
  gint64            start_ns;
  GPtrArray        *attributes;
  gboolean          error;
  char             *status_message;
};

/* 0: not read yet, 1: off, 2: on. */
static gint recording_state;

gboolean
snodo_telemetry_recording (void)
{
  gint state = g_atomic_int_get (&recording_state);

  if (G_LIKELY (state != 0))
    return state == 2;

  {
    static gsize once;

    if (g_once_init_enter (&once))
      {
        g_atomic_int_set (&recording_state, snodo_otlp_start () ? 2 : 1);
        g_once_init_leave (&once, 1);
      }
  }
  return g_atomic_int_get (&recording_state) == 2;
}

/**
 * snodo_telemetry_is_enabled:
 *
 * Whether Snodo records spans and exports them, which the standard
 * OpenTelemetry environment decides when this is first asked (by this call
 * or by the first request): `OTEL_TRACES_EXPORTER=otlp` with
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT`, and
 * the protocol (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL` or
 * `OTEL_EXPORTER_OTLP_PROTOCOL`) `http/json` or unset. See the page on
 * tracing for every variable read.
 *
 * Returns: %TRUE when spans are exported
 *
 * Since: 0.1
 */
gboolean
snodo_telemetry_is_enabled (void)
{
  return snodo_telemetry_recording ();
}

/**
 * snodo_telemetry_flush:
 * @timeout_ms: how long to wait at most, in milliseconds
 *
 * Sends the spans that wait for their batch and waits, at most
 * @timeout_ms, for the receiver to take them. A program calls it before it
 * exits, so that the spans of its last requests are not lost; it returns at
 * once when Snodo exports nothing. Any thread but the exporter's own.
 *
 * Since: 0.1
 */
void
snodo_telemetry_flush (guint timeout_ms)
{
  if (g_atomic_int_get (&recording_state) == 2)
    snodo_otlp_flush (timeout_ms);
}

static int
hex_value (char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static gboolean
read_hex (const char *text,
          guint8     *out,
          gsize       n)
{
  gboolean nonzero = FALSE;

  for (gsize i = 0; i < n; i++)
    {
      int high = hex_value (text[2 * i]);
      int low = hex_value (text[2 * i + 1]);

      if (high < 0 || low < 0)
        return FALSE;
      out[i] = (guint8) (high << 4 | low);
      nonzero |= out[i] != 0;
    }
  return nonzero;
}

gboolean
snodo_trace_context_parse (const char        *text,
                           gsize              len,
                           SnodoTraceContext *context)
{
  guint8 version;
  guint8 flags;

  /* version "-" trace-id "-" parent-id "-" flags; a later version may
   * add "-" and more, which is read as version 00. */
  if (text == NULL || len < SNODO_TRACEPARENT_LEN)
    return FALSE;
  if (text[2] != '-' || text[35] != '-' || text[52] != '-')
    return FALSE;
  if (hex_value (text[0]) < 0 || hex_value (text[1]) < 0)
    return FALSE;
  version = (guint8) (hex_value (text[0]) << 4 | hex_value (text[1]));
  if (version == 0xff)
    return FALSE;
  if (version == 0 && len != SNODO_TRACEPARENT_LEN)
    return FALSE;
  if (version != 0 && len > SNODO_TRACEPARENT_LEN && text[SNODO_TRACEPARENT_LEN] != '-')
    return FALSE;
  if (!read_hex (text + 3, context->trace_id, 16) || !read_hex (text + 36, context->span_id, 8))
    return FALSE;
  if (hex_value (text[53]) < 0 || hex_value (text[54]) < 0)
    return FALSE;
  flags = (guint8) (hex_value (text[53]) << 4 | hex_value (text[54]));
  /* Only the sampled bit is known to version 00. */
  context->flags = flags & 0x01;
  return TRUE;
}

static void
write_hex (char         *out,
           const guint8 *bytes,
           gsize         n)
{
  static const char digits[] = "0123456789abcdef";

  for (gsize i = 0; i < n; i++)
    {
      out[2 * i] = digits[bytes[i] >> 4];
      out[2 * i + 1] = digits[bytes[i] & 0x0f];
    }
}

void
snodo_trace_context_format (const SnodoTraceContext *context,
                            char                     out[SNODO_TRACEPARENT_LEN + 1])
{
  memcpy (out, "00-", 3);
  write_hex (out + 3, context->trace_id, 16);
  out[35] = '-';
  write_hex (out + 36, context->span_id, 8);
  out[52] = '-';
  write_hex (out + 53, &context->flags, 1);
  out[SNODO_TRACEPARENT_LEN] = '\0';
}

gboolean
snodo_trace_state_is_valid (const char *text,
                            gsize       len)
{
  if (text == NULL || len == 0 || len > SNODO_TRACESTATE_MAX)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (text[i] < 0x20 || text[i] > 0x7e)
      return FALSE;
  return TRUE;
}

static void
random_bytes (guint8 *out,
              gsize   n)
{
  gboolean nonzero = FALSE;

  while (!nonzero)
    for (gsize i = 0; i < n; i++)
      {
        out[i] = (guint8) g_random_int_range (0, 256);
        nonzero |= out[i] != 0;
      }
}

static gint64
now_ns (void)
{
  return g_get_real_time () * 1000;
}

SnodoSpan *
snodo_span_start (const char    *name,
                  SnodoSpanKind  kind,
                  const char    *traceparent,
                  gsize          traceparent_len,
                  const char    *tracestate,
                  gsize          tracestate_len)
{
  SnodoTraceContext parent;
  gboolean has_parent;
  gboolean recording = snodo_telemetry_recording ();
  SnodoSpan *span;

  has_parent = traceparent != NULL && snodo_trace_context_parse (traceparent, traceparent_len, &parent);
  if (!recording && !has_parent)
    return NULL;

  span = g_new0 (SnodoSpan, 1);
  span->kind = kind;
  if (has_parent && snodo_trace_state_is_valid (tracestate, tracestate_len))
    span->tracestate = g_strndup (tracestate, tracestate_len);

  /* Parent-based, else always on: a parent that is not sampled makes a
   * span that records nothing and passes the parent's context on. */
  if (!recording || (has_parent && !(parent.flags & 0x01)))
    {
      span->context = parent;
      return span;
    }

  span->recording = TRUE;
  span->name = g_strdup (name);
  span->attributes = g_ptr_array_new_with_free_func (g_free);
  span->start_ns = now_ns ();
  if (has_parent)
    {
      memcpy (span->context.trace_id, parent.trace_id, 16);
      memcpy (span->parent_span_id, parent.span_id, 8);
      span->has_parent = TRUE;
    }
  else
    random_bytes (span->context.trace_id, 16);
  random_bytes (span->context.span_id, 8);
  span->context.flags = 0x01;
  return span;
}

gboolean
snodo_span_is_recording (SnodoSpan *span)
{
  return span != NULL && span->recording;
}

void
snodo_span_format_traceparent (SnodoSpan *span,
                               char       out[SNODO_TRACEPARENT_LEN + 1])
{
  snodo_trace_context_format (&span->context, out);
}

const char *
snodo_span_get_tracestate (SnodoSpan *span)
{
  return span->tracestate;
}

void
snodo_span_set_name (SnodoSpan  *span,
                     const char *name)
{
  if (!span->recording)
    return;
  g_free (span->name);
  span->name = g_strdup (name);
}

/* "key" NUL "AnyValue JSON" */
static void
add_attribute (SnodoSpan  *span,
               const char *key,
               const char *value_json)
{
  gsize key_len = strlen (key);
  gsize value_len = strlen (value_json);
  char *pair = g_malloc (key_len + value_len + 2);

  memcpy (pair, key, key_len + 1);
  memcpy (pair + key_len + 1, value_json, value_len + 1);
  g_ptr_array_add (span->attributes, pair);
}

void
snodo_span_set_string (SnodoSpan  *span,
                       const char *key,
                       const char *value)
{
  g_autoptr(GString) json = NULL;

  if (!span->recording || value == NULL)
    return;
  json = g_string_new ("{\"stringValue\":");
  snodo_json_append_string (json, value);
  g_string_append_c (json, '}');
  add_attribute (span, key, json->str);
}

void
snodo_span_set_int (SnodoSpan  *span,
                    const char *key,
                    gint64      value)
{
  char json[64];

  if (!span->recording)
    return;
  /* OTLP/JSON writes 64-bit integers as strings. */
  g_snprintf (json, sizeof json, "{\"intValue\":\"%" G_GINT64_FORMAT "\"}", value);
  add_attribute (span, key, json);
}

void
snodo_span_set_error (SnodoSpan  *span,
                      const char *type,
                      const char *message)
{
  if (!span->recording)
    return;
  span->error = TRUE;
  snodo_span_set_string (span, "error.type", type);
  g_free (span->status_message);
  span->status_message = g_strdup (message);
}

void
snodo_span_end (SnodoSpan *span)
{
  SnodoSpanData *data;

  if (span == NULL)
    return;
  if (!span->recording)
    {
      g_free (span->tracestate);
      g_free (span);
      return;
    }

  data = g_new0 (SnodoSpanData, 1);
  data->context = span->context;
  memcpy (data->parent_span_id, span->parent_span_id, 8);
  data->has_parent = span->has_parent;
  data->kind = span->kind;
  data->name = g_steal_pointer (&span->name);
  data->tracestate = g_steal_pointer (&span->tracestate);
  data->start_ns = span->start_ns;
  data->end_ns = MAX (now_ns (), span->start_ns);
  data->attributes = g_steal_pointer (&span->attributes);
  data->error = span->error;
  data->status_message = g_steal_pointer (&span->status_message);
  g_free (span);
  snodo_otlp_enqueue (data);
}

void
snodo_span_data_free (SnodoSpanData *data)
{
  g_free (data->name);
  g_free (data->tracestate);
  g_clear_pointer (&data->attributes, g_ptr_array_unref);
  g_free (data->status_message);
  g_free (data);
}

/* The context of the handler running on this thread: a copy, as the
 * handler may answer (and its span end) before it returns. */
typedef struct
{
  gboolean set;
  char     traceparent[SNODO_TRACEPARENT_LEN + 1];
  char     tracestate[SNODO_TRACESTATE_MAX + 1];
} Current;

static GPrivate current = G_PRIVATE_INIT (g_free);

void
snodo_trace_set_current (SnodoSpan *span)
{
  Current *now = g_private_get (&current);

  if (span == NULL)
    {
      if (now != NULL)
        now->set = FALSE;
      return;
    }
  if (now == NULL)
    {
      now = g_new0 (Current, 1);
      g_private_set (&current, now);
    }
  now->set = TRUE;
  snodo_trace_context_format (&span->context, now->traceparent);
  g_strlcpy (now->tracestate, span->tracestate != NULL ? span->tracestate : "", sizeof now->tracestate);
}

const char *
snodo_trace_get_current (const char **tracestate)
{
  Current *now = g_private_get (&current);

  if (now == NULL || !now->set)
    return NULL;
  if (tracestate != NULL)
    *tracestate = now->tracestate[0] != '\0' ? now->tracestate : NULL;
  return now->traceparent;
}
