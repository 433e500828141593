/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient's subscriptions and completion against snodo-demo, over
 * stdio and HTTP: subscriptions/listen in 2026-07-28 (acknowledged,
 * resource updates and list changes tagged with the subscription, ended
 * by cancelling), resources/subscribe and unsubscribe in the initialize
 * era, and completion/complete in both. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  /* "method uri subscriptionId", one a notification. */
  GPtrArray *seen;
} Seen;

static void
notification_cb (SnodoClient *client,
                 const char  *method,
                 JsonObject  *params,
                 gpointer     user_data)
{
  Seen *seen = user_data;
  JsonNode *meta = json_object_get_member (params, "_meta");
  gint64 subscription = -1;

  if (g_str_equal (method, "notifications/message") || g_str_equal (method, "notifications/progress"))
    return;
  if (meta != NULL && JSON_NODE_HOLDS_OBJECT (meta) &&
      json_object_has_member (json_node_get_object (meta), "io.modelcontextprotocol/subscriptionId"))
    subscription = json_object_get_int_member (json_node_get_object (meta), "io.modelcontextprotocol/subscriptionId");
  g_ptr_array_add (seen->seen, g_strdup_printf ("%s %s %" G_GINT64_FORMAT, method,
                                                json_object_get_string_member_with_default (params, "uri", "-"),
                                                subscription));
}

/* Waits (ten seconds at most) for a notification whose text starts with
 * @prefix; returns its text. */
static const char *
wait_seen (Seen       *seen,
           const char *prefix)
{
  gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < end)
    {
      for (guint i = 0; i < seen->seen->len; i++)
        if (g_str_has_prefix (seen->seen->pdata[i], prefix))
          return seen->seen->pdata[i];
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
  return NULL;
}

static guint
count_seen (Seen       *seen,
            const char *prefix)
{
  guint n = 0;

  for (guint i = 0; i < seen->seen->len; i++)
    n += g_str_has_prefix (seen->seen->pdata[i], prefix);
  return n;
}

static void
call (SnodoClient *client,
      const char  *tool,
      const char  *arguments)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object (arguments);
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_call_tool_async (client, tool, args, NULL, snodo_test_store_result_cb, &result);
  answer = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error);
  g_assert_no_error (error);
  g_assert_false (json_object_get_boolean_member_with_default (answer, "isError", FALSE));
}

static gboolean
cancel_cb (gpointer user_data)
{
  g_cancellable_cancel (user_data);
  return G_SOURCE_REMOVE;
}

typedef struct
{
  SnodoProtocolVersion pinned;
  gboolean http;
} Case;

static void
test_notify (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) completed = NULL;
  g_autoptr(JsonObject) ref = snodo_test_parse_object ("{\"type\":\"ref/prompt\",\"name\":\"greet\"}");
  g_autoptr(JsonObject) completion = NULL;
  g_autofree char *uri = NULL;
  Seen seen = { g_ptr_array_new_with_free_func (g_free) };
  JsonArray *values;

  if (c->http)
    {
      demo = snodo_test_demo_http_start (NULL, &uri);
      client = snodo_client_new_for_uri (uri, &error);
    }
  else
    client = snodo_client_new_for_argv ((const char *[]) { g_getenv ("SNODO_DEMO"), NULL }, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, c->pinned);
  g_signal_connect (client, "notification", G_CALLBACK (notification_cb), &seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  /* Completion, in both eras. */
  snodo_client_complete_async (client, ref, "name", "a", NULL, NULL, snodo_test_store_result_cb, &completed);
  completion = snodo_client_complete_finish (client, snodo_test_wait_result (&completed), &error);
  g_assert_no_error (error);
  values = json_object_get_array_member (completion, "values");
  g_assert_cmpuint (json_array_get_length (values), ==, 2);
  g_assert_cmpstr (json_array_get_string_element (values, 0), ==, "Ada");
  g_assert_cmpstr (json_array_get_string_element (values, 1), ==, "Alan");

  if (snodo_protocol_version_is_stateless (snodo_client_get_protocol_version (client)))
    {
      g_autoptr(JsonObject) filter = snodo_test_parse_object ("{\"toolsListChanged\":true,"
                                                   "\"resourceSubscriptions\":[\"demo://readme\"]}");
      g_autoptr(GCancellable) cancellable = g_cancellable_new ();
      g_autoptr(GAsyncResult) listened = NULL;
      g_autoptr(GAsyncResult) subscribed = NULL;
      const char *ack;
      g_auto(GStrv) ack_parts = NULL;
      g_autofree char *updated = NULL;
      g_autofree char *changed = NULL;
      guint updates;

      snodo_client_subscribe_resource_async (client, "demo://readme", NULL, snodo_test_store_result_cb, &subscribed);
      g_assert_false (snodo_client_subscribe_resource_finish (client, snodo_test_wait_result (&subscribed), &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_clear_error (&error);

      snodo_client_listen_async (client, filter, cancellable, snodo_test_store_result_cb, &listened);
      ack = wait_seen (&seen, "notifications/subscriptions/acknowledged");
      g_assert_nonnull (ack);
      ack_parts = g_strsplit (ack, " ", 3);
      g_assert_cmpstr (ack_parts[2], !=, "-1");

      call (client, "touch", "{\"uri\":\"demo://readme\"}");
      updated = g_strdup_printf ("notifications/resources/updated demo://readme %s", ack_parts[2]);
      g_assert_nonnull (wait_seen (&seen, updated));
      call (client, "toggle", "{}");
      changed = g_strdup_printf ("notifications/tools/list_changed - %s", ack_parts[2]);
      g_assert_nonnull (wait_seen (&seen, changed));

      /* Over 300 ms the subscription is still on; cancelled, it ends. */
      g_timeout_add (300, cancel_cb, cancellable);
      g_assert_null (snodo_client_listen_finish (client, snodo_test_wait_result (&listened), &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      g_clear_error (&error);

      /* The server stops sending: a touch now is not told. */
      updates = count_seen (&seen, "notifications/resources/updated");
      call (client, "touch", "{\"uri\":\"demo://readme\"}");
      call (client, "echo", "{\"text\":\"sync\"}");
      g_usleep (200000);
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_assert_cmpuint (count_seen (&seen, "notifications/resources/updated"), ==, updates);
    }
  else
    {
      g_autoptr(JsonObject) filter = snodo_test_parse_object ("{\"toolsListChanged\":true}");
      g_autoptr(GAsyncResult) listened = NULL;
      g_autoptr(GAsyncResult) subscribed = NULL;
      g_autoptr(GAsyncResult) unsubscribed = NULL;
      guint updates;

      snodo_client_listen_async (client, filter, NULL, snodo_test_store_result_cb, &listened);
      g_assert_null (snodo_client_listen_finish (client, snodo_test_wait_result (&listened), &error));
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_clear_error (&error);

      snodo_client_subscribe_resource_async (client, "demo://readme", NULL, snodo_test_store_result_cb, &subscribed);
      g_assert_true (snodo_client_subscribe_resource_finish (client, snodo_test_wait_result (&subscribed), &error));
      g_assert_no_error (error);
      call (client, "touch", "{\"uri\":\"demo://readme\"}");
      g_assert_nonnull (wait_seen (&seen, "notifications/resources/updated demo://readme -1"));
      /* List changes come unasked. */
      call (client, "toggle", "{}");
      g_assert_nonnull (wait_seen (&seen, "notifications/tools/list_changed"));

      snodo_client_unsubscribe_resource_async (client, "demo://readme", NULL, snodo_test_store_result_cb, &unsubscribed);
      g_assert_true (snodo_client_unsubscribe_resource_finish (client, snodo_test_wait_result (&unsubscribed), &error));
      g_assert_no_error (error);
      updates = count_seen (&seen, "notifications/resources/updated");
      call (client, "touch", "{\"uri\":\"demo://readme\"}");
      call (client, "echo", "{\"text\":\"sync\"}");
      g_usleep (200000);
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_assert_cmpuint (count_seen (&seen, "notifications/resources/updated"), ==, updates);
    }

  snodo_test_close_client (client);
  if (demo != NULL)
    snodo_test_demo_stop (demo);
  g_ptr_array_unref (seen.seen);
}

int
main (int   argc,
      char *argv[])
{
  static const Case cases[] = {
    { SNODO_PROTOCOL_VERSION_UNKNOWN, FALSE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, FALSE },
    { SNODO_PROTOCOL_VERSION_UNKNOWN, TRUE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, TRUE },
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;

#if !SNODO_HAS_HTTP_TRANSPORT
      if (cases[i].http)
        continue;
#endif
      path = g_strdup_printf ("/client-notify/%s/%s", cases[i].http ? "http" : "stdio",
                                               cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                                               ? "2026-07-28" : snodo_protocol_version_to_string (cases[i].pinned));

      g_test_add_data_func (path, &cases[i], test_notify);
    }

  return g_test_run ();
}
