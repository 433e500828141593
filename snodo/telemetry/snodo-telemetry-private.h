/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib.h>

#include "snodo-telemetry.h"

G_BEGIN_DECLS

/*
 * Trace context and spans, inside the library.
 *
 * W3C trace context (`traceparent`, `tracestate`) travels in the `_meta` of
 * MCP requests; a span is recorded for each request a server answers and
 * each request a client sends, and exported over OTLP/HTTP with the JSON
 * encoding when the standard OpenTelemetry environment asks for it
 * (snodo-otlp.c). With the exporter off, nothing is recorded: a span is
 * only made when a request brings a trace context, to carry that context
 * on unchanged to the requests made while handling it.
 */

/* "00-" 32 hex "-" 16 hex "-" 2 hex */
#define SNODO_TRACEPARENT_LEN 55
#define SNODO_TRACESTATE_MAX 512

typedef enum
{
  SNODO_SPAN_KIND_INTERNAL = 1,
  SNODO_SPAN_KIND_SERVER = 2,
  SNODO_SPAN_KIND_CLIENT = 3,
} SnodoSpanKind;

typedef struct
{
  guint8 trace_id[16];
  guint8 span_id[8];
  guint8 flags;
} SnodoTraceContext;

typedef struct _SnodoSpan SnodoSpan;

/* Whether spans are exported: the environment asked for it (read once).
 * After the first call, one atomic read. */
gboolean    snodo_telemetry_recording       (void);

/* Reads a version-00 (or later, read as 00) traceparent; FALSE when it is
 * not one (wrong length or case, an all-zero id, version ff). */
gboolean    snodo_trace_context_parse       (const char              *text,
                                             gsize                    len,
                                             SnodoTraceContext       *context);
/* Writes @context as a traceparent: SNODO_TRACEPARENT_LEN characters and
 * a NUL. */
void        snodo_trace_context_format      (const SnodoTraceContext *context,
                                             char                     out[SNODO_TRACEPARENT_LEN + 1]);
/* Whether @text is a tracestate worth passing on: at most 512 bytes of
 * printable ASCII. */
gboolean    snodo_trace_state_is_valid      (const char              *text,
                                             gsize                    len);

/* Starts a span of @name, the child of @traceparent (NULL or not a valid
 * one: a new trace) and carrying @tracestate on. Returns NULL when there is
 * nothing to do: not recording and no parent. Not recording, or the parent
 * not sampled, the span records nothing and its context is the parent's.
 * Any thread. */
SnodoSpan  *snodo_span_start                (const char              *name,
                                             SnodoSpanKind            kind,
                                             const char              *traceparent,
                                             gsize                    traceparent_len,
                                             const char              *tracestate,
                                             gsize                    tracestate_len);
/* Whether the span is recorded (and its attributes kept). */
gboolean    snodo_span_is_recording         (SnodoSpan               *span);
/* The context to give the requests made within the span. */
void        snodo_span_format_traceparent   (SnodoSpan               *span,
                                             char                     out[SNODO_TRACEPARENT_LEN + 1]);
/* The tracestate to pass on, or NULL. */
const char *snodo_span_get_tracestate       (SnodoSpan               *span);
/* Changes the span's name (before it ends). */
void        snodo_span_set_name             (SnodoSpan               *span,
                                             const char              *name);
/* Attributes, kept only when the span records. */
void        snodo_span_set_string           (SnodoSpan               *span,
                                             const char              *key,
                                             const char              *value);
void        snodo_span_set_int              (SnodoSpan               *span,
                                             const char              *key,
                                             gint64                   value);
/* Marks the span failed: error.type @type, and @message as its status. */
void        snodo_span_set_error            (SnodoSpan               *span,
                                             const char              *type,
                                             const char              *message);
/* Ends and frees the span: queued for export when it records. */
void        snodo_span_end                  (SnodoSpan               *span);

/* The context of the handler running on this thread, set by the server
 * around the handler's call (@span NULL: none): a client request sent from
 * inside it is its child. A copy is kept, so the span may end meanwhile. */
void        snodo_trace_set_current         (SnodoSpan               *span);
/* That context's traceparent (and its tracestate, or NULL), or NULL. */
const char *snodo_trace_get_current         (const char             **tracestate);

/* The exporter (snodo-otlp.c). */

/* A finished span, as the exporter takes it. */
typedef struct
{
  SnodoTraceContext context;
  guint8            parent_span_id[8];
  gboolean          has_parent;
  SnodoSpanKind     kind;
  char             *name;
  char             *tracestate;
  gint64            start_ns;
  gint64            end_ns;
  /* "key" "\0" JSON value text, pairs, as OTLP/JSON AnyValue objects. */
  GPtrArray        *attributes;
  gboolean          error;
  char             *status_message;
} SnodoSpanData;

void        snodo_span_data_free            (SnodoSpanData           *data);

/* Reads the environment; TRUE when it asks for OTLP/HTTP JSON export and
 * an exporter could be started. */
gboolean    snodo_otlp_start                (void);
/* Takes @data: queued, or dropped and counted when the queue is full. */
void        snodo_otlp_enqueue              (SnodoSpanData           *data);
/* Sends what is queued and waits up to @timeout_ms for it. */
void        snodo_otlp_flush                (guint                    timeout_ms);
/* Spans dropped on a full queue, and spans the receiver did not take. */
guint64     snodo_otlp_get_dropped          (void);
guint64     snodo_otlp_get_exported         (void);

/* The JSON body of an ExportTraceServiceRequest for @spans, pure: the
 * exporter's encoding, tested on its own. */
char       *snodo_otlp_encode               (GPtrArray               *spans,
                                             const char              *service_name,
                                             const char              *resource_attributes);

G_END_DECLS
