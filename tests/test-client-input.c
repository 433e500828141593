/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* What the server asks of the client's application, answered through
 * SnodoClient::server-request: snodo-demo's ask tool, which elicits a
 * confirmation, in every era (a request of the server in the initialize
 * era, the input_required round trip in 2026-07-28), over stdio and over
 * HTTP. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-test-util.h"

typedef struct
{
  /* How to answer: "accept", "decline", "later" (accept from an idle),
   * "error", "ignore" (the handler does not take it). */
  const char *how;
  guint asked;
  char *message;
} Asked;

static gboolean
answer_later_cb (gpointer user_data)
{
  SnodoServerRequest *request = user_data;
  g_autoptr(JsonObject) result = snodo_test_parse_object ("{\"action\":\"accept\",\"content\":{\"confirm\":false}}");

  snodo_server_request_return_result (request, result);
  return G_SOURCE_REMOVE;
}

static gboolean
server_request_cb (SnodoClient        *client,
                   SnodoServerRequest *request,
                   gpointer            user_data)
{
  Asked *asked = user_data;
  JsonObject *params = snodo_server_request_get_params (request);

  g_assert_cmpstr (snodo_server_request_get_method (request), ==, "elicitation/create");
  asked->asked++;
  g_free (asked->message);
  asked->message = g_strdup (json_object_get_string_member_with_default (params, "message", NULL));
  g_assert_true (json_object_has_member (params, "requestedSchema"));

  if (g_str_equal (asked->how, "ignore"))
    return FALSE;
  if (g_str_equal (asked->how, "accept"))
    {
      g_autoptr(JsonObject) result = snodo_test_parse_object ("{\"action\":\"accept\",\"content\":{\"confirm\":true}}");

      snodo_server_request_return_result (request, result);
    }
  else if (g_str_equal (asked->how, "decline"))
    {
      g_autoptr(JsonObject) result = snodo_test_parse_object ("{\"action\":\"decline\"}");

      snodo_server_request_return_result (request, result);
    }
  else if (g_str_equal (asked->how, "later"))
    g_idle_add_full (G_PRIORITY_DEFAULT, answer_later_cb, g_object_ref (request), g_object_unref);
  else
    snodo_server_request_return_error (request, SNODO_RPC_ERROR_INVALID_PARAMS, "no, thanks");
  return TRUE;
}

/* Calls ask; the text of the result, or NULL with @error set. */
static char *
ask (SnodoClient  *client,
     GError      **error)
{
  g_autoptr(JsonObject) args = snodo_test_parse_object ("{\"question\":\"Ship it?\"}");
  g_autoptr(GAsyncResult) result = NULL;
  g_autoptr(JsonObject) answer = NULL;

  snodo_client_call_tool_async (client, "ask", args, NULL, snodo_test_store_result_cb, &result);
  answer = snodo_client_call_tool_finish (client, snodo_test_wait_result (&result), error);
  if (answer == NULL)
    return NULL;
  if (json_object_get_boolean_member_with_default (answer, "isError", FALSE))
    return g_strconcat ("error: ", json_object_get_string_member (json_array_get_object_element (
                          json_object_get_array_member (answer, "content"), 0), "text"), NULL);
  return snodo_test_first_text (answer);
}

typedef struct
{
  SnodoProtocolVersion pinned;
  gboolean http;
} Case;

static void
test_ask (gconstpointer data)
{
  const Case *c = data;
  g_autoptr(GSubprocess) demo = NULL;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GAsyncResult) connected = NULL;
  g_autoptr(JsonObject) capabilities = snodo_test_parse_object ("{\"elicitation\":{\"form\":{}}}");
  g_autofree char *uri = NULL;
  Asked asked = { "accept", 0, NULL };
  char *text;

  if (c->http)
    {
      demo = snodo_test_demo_http_start (NULL, &uri);
      client = snodo_client_new_for_uri (uri, &error);
    }
  else
    client = snodo_client_new_for_argv ((const char *[]) { g_getenv ("SNODO_DEMO"), NULL }, &error);
  g_assert_no_error (error);
  snodo_client_set_pinned_version (client, c->pinned);
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (server_request_cb), &asked);
  snodo_client_connect_async (client, NULL, snodo_test_store_result_cb, &connected);
  g_assert_true (snodo_client_connect_finish (client, snodo_test_wait_result (&connected), &error));
  g_assert_no_error (error);
  if (c->pinned == SNODO_PROTOCOL_VERSION_UNKNOWN)
    g_assert_cmpint (snodo_client_get_protocol_version (client), ==, SNODO_PROTOCOL_VERSION_2026_07_28);

  text = ask (client, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "confirmed");
  g_free (text);
  g_assert_cmpuint (asked.asked, ==, 1);
  g_assert_cmpstr (asked.message, ==, "Ship it?");

  asked.how = "decline";
  text = ask (client, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "declined");
  g_free (text);

  /* Answered later, from the main loop. */
  asked.how = "later";
  text = ask (client, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (text, ==, "not confirmed");
  g_free (text);

  /* An error of the application: the server sees it in the initialize
   * era; in 2026-07-28 the call fails with it. */
  asked.how = "error";
  text = ask (client, &error);
  if (snodo_protocol_version_is_stateless (snodo_client_get_protocol_version (client)))
    {
      g_assert_null (text);
      g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
      g_clear_error (&error);
    }
  else
    {
      g_assert_no_error (error);
      /* The demo reports the client's error as a tool error. */
      g_assert_nonnull (text);
      g_assert_true (g_str_has_prefix (text, "error: "));
      g_assert_nonnull (strstr (text, "no, thanks"));
      g_free (text);
    }

  /* Nobody takes it: refused, and the call ends all the same. */
  asked.how = "ignore";
  text = ask (client, &error);
  if (text != NULL)
    {
      g_assert_true (g_str_has_prefix (text, "error: "));
      g_assert_nonnull (strstr (text, "-32601"));
    }
  else
    g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_METHOD_NOT_FOUND);
  g_free (text);
  g_clear_error (&error);
  g_assert_cmpuint (asked.asked, ==, 5);

  /* Nothing declared: the server does not ask. */
  snodo_client_set_capabilities (client, NULL);
  if (snodo_protocol_version_is_stateless (snodo_client_get_protocol_version (client)))
    {
      text = ask (client, &error);
      g_assert_null (text);
      g_assert_nonnull (error);
      g_assert_nonnull (strstr (error->message, "capability"));
      g_clear_error (&error);
      g_assert_cmpuint (asked.asked, ==, 5);
    }

  snodo_test_close_client (client);
  if (demo != NULL)
    snodo_test_demo_stop (demo);
  g_free (asked.message);
}

int
main (int   argc,
      char *argv[])
{
  static const Case cases[] = {
    { SNODO_PROTOCOL_VERSION_UNKNOWN, FALSE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, FALSE },
    { SNODO_PROTOCOL_VERSION_2025_06_18, FALSE },
    { SNODO_PROTOCOL_VERSION_UNKNOWN, TRUE },
    { SNODO_PROTOCOL_VERSION_2025_11_25, TRUE },
    { SNODO_PROTOCOL_VERSION_2025_06_18, TRUE },
  };

  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = NULL;

#if !SNODO_HAS_HTTP_TRANSPORT
      if (cases[i].http)
        continue;
#endif
      path = g_strdup_printf ("/client-input/ask/%s/%s", cases[i].http ? "http" : "stdio",
                                               cases[i].pinned == SNODO_PROTOCOL_VERSION_UNKNOWN
                                               ? "negotiated" : snodo_protocol_version_to_string (cases[i].pinned));

      g_test_add_data_func (path, &cases[i], test_ask);
    }

  return g_test_run ();
}
