/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The pure parts of tracing: W3C trace context read and written, the
 * OTLP/JSON encoding, and the exporter's bounded queue (which drops and
 * counts, never blocks). The whole path, across processes, is tested in
 * introspection/test-trace.py. */

#include "config.h"

#include "snodo-test-util.h"

#include <string.h>

#include "snodo-telemetry-private.h"
#include "snodo-json-private.h"

static void
test_traceparent_parse (void)
{
  static const struct
  {
    const char *text;
    gboolean    valid;
    guint8      flags;
  } cases[] = {
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", TRUE, 1 },
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", TRUE, 0 },
    /* Unknown flags are dropped, the sampled bit kept. */
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03", TRUE, 1 },
    /* A later version is read as 00, with what follows ignored. */
    { "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-abc", TRUE, 1 },
    { "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", FALSE, 0 },
    /* 00 has exactly this length. */
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-", FALSE, 0 },
    { "00-00000000000000000000000000000000-00f067aa0ba902b7-01", FALSE, 0 },
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", FALSE, 0 },
    /* Upper case is not hex here. */
    { "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", FALSE, 0 },
    { "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", FALSE, 0 },
    { "00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", FALSE, 0 },
    { "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01", FALSE, 0 },
    { "", FALSE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SnodoTraceContext context = { 0, };
      gboolean valid = snodo_trace_context_parse (cases[i].text, strlen (cases[i].text), &context);

      g_test_message ("%s", cases[i].text);
      g_assert_cmpint (valid, ==, cases[i].valid);
      if (valid)
        {
          char out[SNODO_TRACEPARENT_LEN + 1];

          g_assert_cmpint (context.flags, ==, cases[i].flags);
          g_assert_cmpint (context.trace_id[0], ==, 0x4b);
          g_assert_cmpint (context.span_id[7], ==, 0xb7);
          snodo_trace_context_format (&context, out);
          g_assert_cmpint (strlen (out), ==, SNODO_TRACEPARENT_LEN);
          /* Written back as version 00. */
          g_assert_true (g_str_has_prefix (out, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0"));
          g_assert_cmpint (out[54], ==, cases[i].flags ? '1' : '0');
        }
    }
  g_assert_false (snodo_trace_context_parse (NULL, 0, &(SnodoTraceContext) { 0, }));
}

static void
test_tracestate (void)
{
  g_autofree char *long_state = g_strnfill (SNODO_TRACESTATE_MAX + 1, 'a');

  g_assert_true (snodo_trace_state_is_valid ("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE", 39));
  g_assert_false (snodo_trace_state_is_valid ("", 0));
  g_assert_false (snodo_trace_state_is_valid ("a=\n", 3));
  g_assert_false (snodo_trace_state_is_valid (long_state, strlen (long_state)));
  g_assert_true (snodo_trace_state_is_valid (long_state, SNODO_TRACESTATE_MAX));
}

/* Without an exporter (the environment asks for none here), a span is
 * made only to carry a parent's context on, unchanged. */
static void
test_span_passes_context_on (void)
{
  const char *parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  char out[SNODO_TRACEPARENT_LEN + 1];
  SnodoSpan *span;

  g_assert_false (snodo_telemetry_is_enabled ());
  g_assert_null (snodo_span_start ("tools/call", SNODO_SPAN_KIND_SERVER, NULL, 0, NULL, 0));
  g_assert_null (snodo_span_start ("tools/call", SNODO_SPAN_KIND_SERVER, "junk", 4, NULL, 0));

  span = snodo_span_start ("tools/call", SNODO_SPAN_KIND_SERVER, parent, strlen (parent), "a=b", 3);
  g_assert_nonnull (span);
  g_assert_false (snodo_span_is_recording (span));
  snodo_span_format_traceparent (span, out);
  g_assert_cmpstr (out, ==, parent);
  g_assert_cmpstr (snodo_span_get_tracestate (span), ==, "a=b");
  snodo_span_set_string (span, "k", "v");
  snodo_span_set_error (span, "x", "y");

  /* The thread's current context is a copy: the span may end. */
  g_assert_null (snodo_trace_get_current (NULL));
  snodo_trace_set_current (span);
  snodo_span_end (span);
  {
    const char *state = NULL;

    g_assert_cmpstr (snodo_trace_get_current (&state), ==, parent);
    g_assert_cmpstr (state, ==, "a=b");
  }
  snodo_trace_set_current (NULL);
  g_assert_null (snodo_trace_get_current (NULL));
}

static void
test_encode (void)
{
  g_autoptr(GPtrArray) spans = g_ptr_array_new_with_free_func ((GDestroyNotify) snodo_span_data_free);
  SnodoSpanData *span = g_new0 (SnodoSpanData, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *json = NULL;
  JsonObject *resource_spans;
  JsonObject *encoded;
  JsonArray *attributes;
  gboolean seen_tool = FALSE;
  gboolean seen_service = FALSE;
  gboolean seen_extra = FALSE;

  memset (span->context.trace_id, 0xab, 16);
  memset (span->context.span_id, 0x01, 8);
  memset (span->parent_span_id, 0x02, 8);
  span->has_parent = TRUE;
  span->kind = SNODO_SPAN_KIND_SERVER;
  span->name = g_strdup ("tools/call \"quoted\"");
  span->start_ns = G_GINT64_CONSTANT (1700000000000000000);
  span->end_ns = G_GINT64_CONSTANT (1700000000000001000);
  span->attributes = g_ptr_array_new_with_free_func (g_free);
  {
    static const char pair[] = "gen_ai.tool.name\0{\"stringValue\":\"echo\"}";

    g_ptr_array_add (span->attributes, g_memdup2 (pair, sizeof pair));
  }
  span->error = TRUE;
  span->status_message = g_strdup ("Invalid params");
  g_ptr_array_add (spans, span);

  json = snodo_otlp_encode (spans, "svc", "{\"key\":\"deployment\",\"value\":{\"stringValue\":\"test\"}}");
  root = json_from_string (json, &error);
  g_assert_no_error (error);

  resource_spans = json_array_get_object_element (json_object_get_array_member (json_node_get_object (root),
                                                                                "resourceSpans"), 0);
  attributes = json_object_get_array_member (json_object_get_object_member (resource_spans, "resource"),
                                             "attributes");
  for (guint i = 0; i < json_array_get_length (attributes); i++)
    {
      JsonObject *attribute = json_array_get_object_element (attributes, i);
      const char *key = json_object_get_string_member (attribute, "key");
      const char *value = json_object_get_string_member (json_object_get_object_member (attribute, "value"),
                                                         "stringValue");

      seen_service |= g_str_equal (key, "service.name") && g_str_equal (value, "svc");
      seen_extra |= g_str_equal (key, "deployment") && g_str_equal (value, "test");
    }
  g_assert_true (seen_service);
  g_assert_true (seen_extra);

  encoded = json_array_get_object_element (
    json_object_get_array_member (json_array_get_object_element (json_object_get_array_member (resource_spans,
                                                                                               "scopeSpans"), 0),
                                  "spans"), 0);
  g_assert_cmpstr (json_object_get_string_member (encoded, "traceId"), ==, "abababababababababababababababab");
  g_assert_cmpstr (json_object_get_string_member (encoded, "spanId"), ==, "0101010101010101");
  g_assert_cmpstr (json_object_get_string_member (encoded, "parentSpanId"), ==, "0202020202020202");
  g_assert_cmpstr (json_object_get_string_member (encoded, "name"), ==, "tools/call \"quoted\"");
  g_assert_cmpint (json_object_get_int_member (encoded, "kind"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (encoded, "startTimeUnixNano"), ==, "1700000000000000000");
  g_assert_cmpstr (json_object_get_string_member (encoded, "endTimeUnixNano"), ==, "1700000000000001000");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (encoded, "status"), "code"), ==, 2);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (encoded, "status"), "message"),
                   ==, "Invalid params");
  attributes = json_object_get_array_member (encoded, "attributes");
  for (guint i = 0; i < json_array_get_length (attributes); i++)
    {
      JsonObject *attribute = json_array_get_object_element (attributes, i);

      seen_tool |= g_str_equal (json_object_get_string_member (attribute, "key"), "gen_ai.tool.name");
    }
  g_assert_true (seen_tool);
}

/* With an exporter whose receiver never answers and a queue of 4, ten
 * spans: four wait, six are dropped and counted, nothing blocks; a flush
 * returns within its time. Run in a child, whose environment asks for
 * the exporter. */
static void
test_queue_bounded (void)
{
  if (g_test_subprocess ())
    {
      const char *parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
      gint64 start;

      /* The exporter warns that the receiver refuses. */
      g_log_set_always_fatal (G_LOG_FATAL_MASK);
      g_assert_true (snodo_telemetry_is_enabled ());
      for (guint i = 0; i < 10; i++)
        {
          SnodoSpan *span = snodo_span_start ("ping", SNODO_SPAN_KIND_SERVER, parent, strlen (parent), NULL, 0);
          char out[SNODO_TRACEPARENT_LEN + 1];

          g_assert_true (snodo_span_is_recording (span));
          snodo_span_format_traceparent (span, out);
          /* The same trace, a span of its own. */
          g_assert_true (g_str_has_prefix (out, "00-4bf92f3577b34da6a3ce929d0e0e4736-"));
          g_assert_false (g_str_has_prefix (out, parent + 35));
          snodo_span_end (span);
        }
      g_assert_cmpuint (snodo_otlp_get_dropped (), ==, 6);
      start = g_get_monotonic_time ();
      snodo_telemetry_flush (300);
      g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
      return;
    }

  {
    /* A port that refuses: bound, never listened on. */
    g_autoptr(GSocket) socket = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM,
                                              G_SOCKET_PROTOCOL_TCP, NULL);
    g_autoptr(GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
    g_autoptr(GSocketAddress) address = g_inet_socket_address_new (loopback, 0);
    g_autoptr(GSocketAddress) bound = NULL;
    g_autofree char *endpoint = NULL;

    g_assert_true (g_socket_bind (socket, address, FALSE, NULL));
    bound = g_socket_get_local_address (socket, NULL);
    endpoint = g_strdup_printf ("http://127.0.0.1:%u",
                                g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound)));
    /* The child inherits them; this process read its own at the first
     * case. */
    g_setenv ("OTEL_TRACES_EXPORTER", "otlp", TRUE);
    g_setenv ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint, TRUE);
    g_setenv ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json", TRUE);
    g_setenv ("OTEL_BSP_MAX_QUEUE_SIZE", "4", TRUE);
    g_setenv ("OTEL_BSP_SCHEDULE_DELAY", "100000", TRUE);
    g_test_trap_subprocess (NULL, 10 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_DEFAULT);
    g_unsetenv ("OTEL_TRACES_EXPORTER");
    g_unsetenv ("OTEL_EXPORTER_OTLP_ENDPOINT");
    g_unsetenv ("OTEL_EXPORTER_OTLP_PROTOCOL");
    g_unsetenv ("OTEL_BSP_MAX_QUEUE_SIZE");
    g_unsetenv ("OTEL_BSP_SCHEDULE_DELAY");
    g_test_trap_assert_passed ();
  }
}

int
main (int   argc,
      char *argv[])
{
  /* This process exports nothing unless a case's child asks for it. */
  if (!g_getenv ("SNODO_TEST_TRACE_CHILD"))
    {
      g_unsetenv ("OTEL_TRACES_EXPORTER");
      g_setenv ("SNODO_TEST_TRACE_CHILD", "1", TRUE);
    }
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/trace/traceparent", test_traceparent_parse);
  g_test_add_func ("/snodo/trace/tracestate", test_tracestate);
  g_test_add_func ("/snodo/trace/span-passes-context-on", test_span_passes_context_on);
  g_test_add_func ("/snodo/trace/otlp-encoding", test_encode);
  g_test_add_func ("/snodo/trace/queue-bounded", test_queue_bounded);

  return g_test_run ();
}
