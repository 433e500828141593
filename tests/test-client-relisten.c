/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A 2026-07-28 subscriptions/listen over HTTP outlives its stream: the
 * client talks to snodo-demo --http through a TCP proxy of this test,
 * which cuts every connection; the client listens again, the server
 * acknowledges the new subscription, and a later change (the demo's
 * toggle) still arrives, under the new subscription's id. */

#include "config.h"

#include <snodo/snodo.h>

#include "snodo-test-util.h"

/* The proxy: each connection accepted is spliced to the demo's port. */
typedef struct
{
  GSocketService *service;
  GSocketConnectable *upstream;
  guint16 port;
  GPtrArray *connections;
  guint accepted;
} Proxy;

typedef struct
{
  Proxy *proxy;
  GSocketConnection *downstream;
} Pending;

static void
spliced_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_io_stream_splice_finish (result, NULL);
}

static void
upstream_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(GSocketConnection) upstream = NULL;

  upstream = g_socket_client_connect_finish (G_SOCKET_CLIENT (source), result, NULL);
  if (upstream != NULL)
    {
      g_ptr_array_add (pending->proxy->connections, g_object_ref (pending->downstream));
      g_ptr_array_add (pending->proxy->connections, g_object_ref (upstream));
      g_io_stream_splice_async (G_IO_STREAM (pending->downstream), G_IO_STREAM (upstream),
                                G_IO_STREAM_SPLICE_CLOSE_STREAM1 | G_IO_STREAM_SPLICE_CLOSE_STREAM2,
                                G_PRIORITY_DEFAULT, NULL, spliced_cb, NULL);
    }
  g_object_unref (pending->downstream);
  g_free (pending);
}

static gboolean
incoming_cb (GSocketService    *service,
             GSocketConnection *connection,
             GObject           *source_object,
             gpointer           user_data)
{
  Proxy *proxy = user_data;
  g_autoptr(GSocketClient) client = g_socket_client_new ();
  Pending *pending = g_new0 (Pending, 1);

  proxy->accepted++;
  pending->proxy = proxy;
  pending->downstream = g_object_ref (connection);
  g_socket_client_connect_async (client, proxy->upstream, NULL, upstream_cb, pending);
  return TRUE;
}

static void
proxy_start (Proxy      *proxy,
             const char *demo_uri)
{
  g_autoptr(GUri) uri = g_uri_parse (demo_uri, G_URI_FLAGS_NONE, NULL);
  g_autoptr(GError) error = NULL;

  g_assert_nonnull (uri);
  proxy->upstream = g_network_address_new (g_uri_get_host (uri), (guint16) g_uri_get_port (uri));
  proxy->connections = g_ptr_array_new_with_free_func (g_object_unref);
  proxy->service = g_socket_service_new ();
  proxy->port = g_socket_listener_add_any_inet_port (G_SOCKET_LISTENER (proxy->service), NULL, &error);
  g_assert_no_error (error);
  g_signal_connect (proxy->service, "incoming", G_CALLBACK (incoming_cb), proxy);
  g_socket_service_start (proxy->service);
}

/* Cuts every connection, both ways, as a network failure would. */
static void
proxy_cut (Proxy *proxy)
{
  for (guint i = 0; i < proxy->connections->len; i++)
    g_socket_shutdown (g_socket_connection_get_socket (g_ptr_array_index (proxy->connections, i)),
                       TRUE, TRUE, NULL);
  g_ptr_array_set_size (proxy->connections, 0);
}

static void
proxy_stop (Proxy *proxy)
{
  proxy_cut (proxy);
  g_socket_service_stop (proxy->service);
  g_socket_listener_close (G_SOCKET_LISTENER (proxy->service));
  g_clear_object (&proxy->service);
  g_clear_object (&proxy->upstream);
  g_clear_pointer (&proxy->connections, g_ptr_array_unref);
}

typedef struct
{
  guint acknowledged;
  guint changed;
  /* The subscription ids of the acknowledgements and of the changes. */
  GPtrArray *ack_ids;
  GPtrArray *change_ids;
} Seen;

static char *
subscription_id (JsonObject *params)
{
  JsonNode *meta = json_object_get_member (params, "_meta");
  JsonNode *id;

  g_assert_nonnull (meta);
  id = json_object_get_member (json_node_get_object (meta), "io.modelcontextprotocol/subscriptionId");
  g_assert_nonnull (id);
  return json_to_string (id, FALSE);
}

static void
notification_cb (SnodoClient *client,
                 const char  *method,
                 JsonObject  *params,
                 gpointer     user_data)
{
  Seen *seen = user_data;

  if (g_str_equal (method, "notifications/subscriptions/acknowledged"))
    {
      seen->acknowledged++;
      g_ptr_array_add (seen->ack_ids, subscription_id (params));
    }
  else if (g_str_equal (method, "notifications/tools/list_changed"))
    {
      seen->changed++;
      g_ptr_array_add (seen->change_ids, subscription_id (params));
    }
}

static gboolean
wait_count (const guint *count,
            guint        goal)
{
  gint64 end = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;

  while (*count < goal && g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
  return *count >= goal;
}

static void
toggle (SnodoClient *client)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(GError) error = NULL;

  snodo_client_call_tool_async (client, "toggle", args, NULL, snodo_test_store_result_cb, &result);
  answer = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), &error);
  g_assert_no_error (error);
}

static void
test_relisten (void)
{
  g_autoptr(GSubprocess) demo = NULL;
  g_autofree char *demo_uri = NULL;
  g_autofree char *proxy_uri = NULL;
  Proxy proxy = { 0, };
  Seen seen = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) listened = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(JsonObject) filter = snodo_test_parse_object ("{\"toolsListChanged\":true}");
  guint accepted;

  seen.ack_ids = g_ptr_array_new_with_free_func (g_free);
  seen.change_ids = g_ptr_array_new_with_free_func (g_free);
  demo = snodo_test_demo_http_start (NULL, &demo_uri);
  proxy_start (&proxy, demo_uri);
  proxy_uri = g_strdup_printf ("http://127.0.0.1:%u/mcp", proxy.port);

  client = snodo_client_new_for_uri (proxy_uri, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, SNODO_PROTOCOL_VERSION_2026_07_28);
  g_signal_connect (client, "notification", G_CALLBACK (notification_cb), &seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  snodo_client_listen_async (client, filter, cancellable, snodo_test_store_result_cb, &listened);
  g_assert_true (wait_count (&seen.acknowledged, 1));
  toggle (client);
  g_assert_true (wait_count (&seen.changed, 1));
  g_assert_cmpstr (g_ptr_array_index (seen.change_ids, 0), ==, g_ptr_array_index (seen.ack_ids, 0));

  /* The network fails: every connection, the listen stream's too. */
  accepted = proxy.accepted;
  proxy_cut (&proxy);
  g_assert_true (wait_count (&seen.acknowledged, 2));
  g_assert_null (listened);
  g_assert_cmpuint (proxy.accepted, >, accepted);
  g_assert_cmpstr (g_ptr_array_index (seen.ack_ids, 1), !=, g_ptr_array_index (seen.ack_ids, 0));

  toggle (client);
  g_assert_true (wait_count (&seen.changed, 2));
  g_assert_cmpstr (g_ptr_array_index (seen.change_ids, 1), ==, g_ptr_array_index (seen.ack_ids, 1));

  /* Cut again: listened to once more. */
  proxy_cut (&proxy);
  g_assert_true (wait_count (&seen.acknowledged, 3));
  toggle (client);
  g_assert_true (wait_count (&seen.changed, 3));
  g_assert_cmpuint (seen.changed, ==, 3);

  g_cancellable_cancel (cancellable);
  g_assert_null (snodo_client_listen_finish (client, snodo_test_wait_result (&listened), &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  snodo_test_close_client (client);
  proxy_stop (&proxy);
  snodo_test_demo_stop (demo);
  g_ptr_array_unref (seen.ack_ids);
  g_ptr_array_unref (seen.change_ids);
}

/* The server gone for good: the listen fails after its attempts, it does
 * not spin forever. */
static void
test_server_gone (void)
{
  g_autoptr(GSubprocess) demo = NULL;
  g_autofree char *demo_uri = NULL;
  Seen seen = { 0, };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) listened = NULL;
  g_autoptr(JsonObject) filter = snodo_test_parse_object ("{\"toolsListChanged\":true}");
  gint64 start;

  seen.ack_ids = g_ptr_array_new_with_free_func (g_free);
  seen.change_ids = g_ptr_array_new_with_free_func (g_free);
  demo = snodo_test_demo_http_start (NULL, &demo_uri);
  client = snodo_client_new_for_uri (demo_uri, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, SNODO_PROTOCOL_VERSION_2026_07_28);
  g_signal_connect (client, "notification", G_CALLBACK (notification_cb), &seen);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);

  snodo_client_listen_async (client, filter, NULL, snodo_test_store_result_cb, &listened);
  g_assert_true (wait_count (&seen.acknowledged, 1));
  start = g_get_monotonic_time ();
  g_subprocess_force_exit (demo);
  g_assert_null (snodo_client_listen_finish (client, snodo_test_wait_result (&listened), &error));
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  /* 100 ms doubling to 5 s, 9 waits: about 23 s at most. */
  g_assert_cmpint (g_get_monotonic_time () - start, <, 40 * G_USEC_PER_SEC);
  g_assert_cmpuint (seen.acknowledged, ==, 1);

  snodo_test_close_client (client);
  g_subprocess_wait (demo, NULL, NULL);
  g_ptr_array_unref (seen.ack_ids);
  g_ptr_array_unref (seen.change_ids);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/client-relisten/cut", test_relisten);
  g_test_add_func ("/client-relisten/server-gone", test_server_gone);

  return g_test_run ();
}
