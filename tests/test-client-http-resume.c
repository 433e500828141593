/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient against snodo-demo --http=0: the tool interrupt closes the
 * event stream of its answer half-way (SEP-1699), and the client comes
 * back with GET and Last-Event-ID for the rest of it, its result
 * included, whether the result came while it was away (replayed) or
 * after it was back (live); over 2025-06-18 the stream stays open. */

#include "config.h"


#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  GSubprocess *process;
  char        *uri;
} Demo;

static void
demo_start (Demo *demo)
{
  demo->process = snodo_test_demo_http_start ((const char * const []) { "--stream-retry=300", NULL }, &demo->uri);
}

static void
demo_stop (Demo *demo)
{
  snodo_test_demo_stop (demo->process);
  g_clear_object (&demo->process);
  g_clear_pointer (&demo->uri, g_free);
}

/* Waits for @slot, at most 30 s. */
static GAsyncResult *
wait_result (GAsyncResult **slot)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (*slot == NULL && g_get_monotonic_time () < deadline)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }
  g_assert_nonnull (*slot);
  return *slot;
}

static void
progress_cb (SnodoClient *client,
             const char  *method,
             double       progress,
             double       total,
             const char  *message,
             gpointer     user_data)
{
  GString *seen = user_data;

  g_string_append_printf (seen, "%g;", progress);
}

/* Calls interrupt {ms}: its text; the progress seen in @seen; how long
 * it took in @elapsed_ms. */
static char *
call_interrupt (SnodoClient *client,
                gint64       ms,
                GString     *seen,
                gint64      *elapsed_ms)
{
  g_autoptr(JsonObject) arguments = json_object_new ();
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;
  gint64 start = g_get_monotonic_time ();
  gulong id;

  json_object_set_int_member (arguments, "ms", ms);
  id = g_signal_connect (client, "progress", G_CALLBACK (progress_cb), seen);
  snodo_client_call_tool_async (client, "interrupt", arguments, NULL, snodo_test_store_result_cb, &result);
  answer = snodo_client_call_tool_finish (client, wait_result (&result), &error);
  g_signal_handler_disconnect (client, id);
  g_assert_no_error (error);
  *elapsed_ms = (g_get_monotonic_time () - start) / 1000;
  return snodo_test_first_text (answer);
}

static void
test_interrupt (gconstpointer data)
{
  SnodoProtocolVersion version = GPOINTER_TO_INT (data);
  Demo demo = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) closed = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) live = g_string_new (NULL);
  g_autoptr(GString) replayed = g_string_new (NULL);
  g_autofree char *live_text = NULL;
  g_autofree char *replayed_text = NULL;
  gint64 elapsed;

  g_test_summary ("SnodoClient resumes the event stream that snodo-demo's interrupt closes, "
                  "and gets its result, live or replayed (2025-11-25); 2025-06-18 keeps it");

  demo_start (&demo);
  client = snodo_client_new_for_uri (demo.uri, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, version);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, wait_result (&connected), &error));
  g_assert_no_error (error);

  /* The result 1.5 s after the stream closed: the client is back 300 ms
   * after, and gets progress 2 and the result as they come. */
  live_text = call_interrupt (client, 1500, live, &elapsed);
  g_assert_cmpint (elapsed, >=, 1400);
  g_assert_cmpstr (live->str, ==, "1;2;");

  /* The result 50 ms after: kept, and replayed when the client is back. */
  replayed_text = call_interrupt (client, 50, replayed, &elapsed);
  g_assert_cmpstr (replayed->str, ==, "1;2;");

  if (version == SNODO_PROTOCOL_VERSION_2025_11_25)
    {
      g_assert_cmpstr (live_text, ==, "interrupted");
      g_assert_cmpstr (replayed_text, ==, "interrupted");
      /* Not before the client's 300 ms wait. */
      g_assert_cmpint (elapsed, >=, 250);
    }
  else
    {
      g_assert_cmpstr (live_text, ==, "not interrupted");
      g_assert_cmpstr (replayed_text, ==, "not interrupted");
    }

  snodo_client_close_async (client, NULL, snodo_test_store_result_cb, &closed);
  g_assert_true (snodo_client_close_finish (client, wait_result (&closed), &error));
  g_assert_no_error (error);
  demo_stop (&demo);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/client-http/resume/interrupt/2025-11-25",
                        GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_11_25), test_interrupt);
  g_test_add_data_func ("/client-http/resume/interrupt/2025-06-18",
                        GINT_TO_POINTER (SNODO_PROTOCOL_VERSION_2025_06_18), test_interrupt);

  return g_test_run ();
}
