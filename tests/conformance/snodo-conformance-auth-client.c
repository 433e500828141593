/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The client the official conformance suite's client scenarios run:
 *
 *   snodo-conformance-auth-client SERVER-URL
 *
 * with the scenario in MCP_CONFORMANCE_SCENARIO, its data (a client id
 * and secret registered beforehand) in MCP_CONFORMANCE_CONTEXT and the
 * protocol version in MCP_CONFORMANCE_PROTOCOL_VERSION. It connects with
 * SnodoClient and SnodoClientOAuth, lists the tools, calls the first, and
 * exits with 0 when all of that worked. The user's browser is played by
 * plain HTTP requests that follow the authorization URL's redirects to
 * the client's loopback listener (the suite's authorization server
 * redirects at once). */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <libsoup/soup.h>
#include <snodo/snodo.h>

/* The URL of the client's metadata document the suite expects. */
#define CONFORMANCE_CLIENT_METADATA_URL "https://conformance-test.local/client-metadata.json"

static SoupSession *browser;

static GAsyncResult *
wait_for (GAsyncResult **slot)
{
  while (*slot == NULL)
    g_main_context_iteration (NULL, TRUE);
  return *slot;
}

static void
store_result_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  GAsyncResult **slot = user_data;

  *slot = g_object_ref (result);
}

static void
browsed_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) body = soup_session_send_and_read_finish (SOUP_SESSION (source), result, &error);

  if (body == NULL)
    g_printerr ("browser: %s\n", error->message);
}

static gboolean
authorize_cb (SnodoClientOAuth *oauth,
              const char       *url,
              gpointer          user_data)
{
  g_autoptr(SoupMessage) message = soup_message_new ("GET", url);

  if (message == NULL)
    return FALSE;
  soup_session_send_and_read_async (browser, message, G_PRIORITY_DEFAULT, NULL, browsed_cb, NULL);
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  const char *scenario = g_getenv ("MCP_CONFORMANCE_SCENARIO");
  const char *context = g_getenv ("MCP_CONFORMANCE_CONTEXT");
  const char *version = g_getenv ("MCP_CONFORMANCE_PROTOCOL_VERSION");
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(SnodoClientOAuth) oauth = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(GAsyncResult) listed = NULL;
  g_autoptr(GAsyncResult) called = NULL;
  g_autoptr(GAsyncResult) closed = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) answer = NULL;
  g_autoptr(JsonObject) arguments = json_object_new ();
  const char *tool = NULL;

  if (argc < 2)
    {
      g_printerr ("usage: snodo-conformance-auth-client SERVER-URL\n");
      return 2;
    }
  browser = soup_session_new ();

  client = snodo_client_new_for_uri (argv[argc - 1], &error);
  if (client == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  if (version != NULL && snodo_protocol_version_from_string (version) != SNODO_PROTOCOL_VERSION_UNKNOWN)
    snodo_client_set_pinned_version (client, snodo_protocol_version_from_string (version));

  oauth = snodo_client_oauth_new ();
  snodo_client_oauth_set_open_browser (oauth, FALSE);
  snodo_client_oauth_set_client_metadata_url (oauth, CONFORMANCE_CLIENT_METADATA_URL);
  if (context != NULL)
    {
      g_autoptr(JsonNode) node = json_from_string (context, NULL);
      JsonObject *object = node != NULL && JSON_NODE_HOLDS_OBJECT (node) ? json_node_get_object (node) : NULL;

      if (object != NULL && json_object_has_member (object, "client_id"))
        snodo_client_oauth_set_client (oauth, json_object_get_string_member (object, "client_id"),
                                       json_object_get_string_member_with_default (object, "client_secret", NULL));
    }
  if (scenario != NULL && g_str_has_prefix (scenario, "auth/client-credentials"))
    snodo_client_oauth_set_client_credentials (oauth, TRUE);
  g_signal_connect (oauth, "authorize", G_CALLBACK (authorize_cb), NULL);
  snodo_client_set_oauth (client, oauth);

  snodo_client_connect_async (client, NULL, store_result_cb, &connected);
  if (!snodo_client_connect_finish (client, wait_for (&connected), &error))
    goto failed;
  snodo_client_list_tools_async (client, NULL, store_result_cb, &listed);
  tools = snodo_client_list_tools_finish (client, wait_for (&listed), &error);
  if (tools == NULL)
    goto failed;
  if (json_array_get_length (tools) > 0)
    tool = json_object_get_string_member (json_array_get_object_element (tools, 0), "name");
  if (tool != NULL)
    {
      snodo_client_call_tool_async (client, tool, arguments, NULL, store_result_cb, &called);
      answer = snodo_client_call_tool_finish (client, wait_for (&called), &error);
      if (answer == NULL)
        goto failed;
    }
  snodo_client_close_async (client, NULL, store_result_cb, &closed);
  snodo_client_close_finish (client, wait_for (&closed), NULL);
  g_object_unref (browser);
  return 0;

failed:
  g_printerr ("snodo-conformance-auth-client: %s\n", error->message);
  g_object_unref (browser);
  return 1;
}
