/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for the dispatcher: the input is what a client writes
 * on one stdio connection. Its lines go through the line framer and the
 * decoder, as SnodoStdioTransport reads them, and on to a SnodoServer with
 * a few tools, a prompt, a resource, a resource template and completions,
 * through a connection whose transport only checks and drops what the
 * server writes. Both protocol eras are reachable: initialize and
 * notifications/initialized, or requests with the 2026-07-28 envelope,
 * requestState retries, the client's answers to the server's requests,
 * cancellations, subscriptions. When the input ends, the connection drains
 * and ends as a transport's would, and every request must finish.
 *
 * Each line the server writes must be one JSON-RPC 2.0 object on one line,
 * and every request must be answered exactly once (at most once when the
 * client cancelled it).
 */

#include "config.h"

#include <string.h>

#include "snodo.h"
#include "snodo-base-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

#define MAX_LINE_BYTES 65536

typedef struct
{
  /* Set by negotiated, as the stdio transport does. */
  GHashTable *headers;
  guint       n_lines;
  /* Id key -> the number of requests the client sent with that id, and
   * the number of answers the server sent; keys the client cancelled. */
  GHashTable *requests;
  GHashTable *answers;
  GHashTable *cancelled;
} Sink;

typedef struct
{
  SnodoSendFunc func;
  gpointer      user_data;
} Sent;

static SnodoServer *server;
static SnodoExecutor *executor;

static void
count (GHashTable *table,
       const char *key)
{
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (table, key));

  g_hash_table_insert (table, g_strdup (key), GUINT_TO_POINTER (n + 1));
}

static gboolean
sent_cb (gpointer data)
{
  Sent *sent = data;

  sent->func (NULL, sent->user_data);
  return G_SOURCE_REMOVE;
}

/* The connection's send: the line is checked and dropped, and @func is
 * called later, never from inside send. */
static void
sink_send (gpointer       transport,
           const char    *related,
           GBytes        *line,
           SnodoSendFunc  func,
           gpointer       user_data)
{
  Sink *sink = transport;
  gsize len;
  const char *text = g_bytes_get_data (line, &len);
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *object;

  g_assert (len > 1 && text[len - 1] == '\n');
  g_assert (memchr (text, '\n', len - 1) == NULL);
  node = snodo_json_parse (text, len - 1, &error);
  g_assert (node != NULL);
  g_assert (JSON_NODE_HOLDS_OBJECT (node));
  object = json_node_get_object (node);
  g_assert (g_strcmp0 (snodo_json_object_get_string (object, "jsonrpc"), "2.0") == 0);
  sink->n_lines++;
  if (!json_object_has_member (object, "method") && json_object_has_member (object, "id"))
    {
      g_autofree char *key = snodo_frame_id_key (json_object_get_member (object, "id"));

      if (key != NULL)
        count (sink->answers, key);
    }
  g_bytes_unref (line);

  if (func != NULL)
    {
      Sent *sent = g_new (Sent, 1);
      GSource *source = g_idle_source_new ();

      sent->func = func;
      sent->user_data = user_data;
      g_source_set_callback (source, sent_cb, sent, g_free);
      g_source_attach (source, NULL);
      g_source_unref (source);
    }
}

static void
sink_negotiated (gpointer             transport,
                 SnodoProtocolVersion version)
{
  Sink *sink = transport;
  const char *string = snodo_protocol_version_to_string (version);

  if (string == NULL)
    return;
  g_clear_pointer (&sink->headers, g_hash_table_unref);
  sink->headers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_insert (sink->headers, g_strdup (SNODO_HEADER_PROTOCOL_VERSION), g_strdup (string));
}

static const SnodoConnectionVTable sink_vtable = {
  .send = sink_send,
  .negotiated = sink_negotiated,
};

/* ---- the server's handlers ---------------------------------------------- */

static void
echo_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);

  snodo_invocation_return_text (invocation, json_object_get_string_member (arguments, "text"));
}

static void
fail_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_tool_error (invocation, "failed on purpose");
}

static void
structured_cb (SnodoInvocation *invocation,
               gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autoptr(JsonNode) structured = json_node_init_object (json_node_alloc (), arguments);

  snodo_invocation_report_progress (invocation, 1, 2, "half way");
  snodo_invocation_log_text (invocation, SNODO_LOG_LEVEL_INFO, "fuzz", "a log line");
  snodo_invocation_return_structured (invocation, structured);
}

static void
ask_done_cb (GObject      *object,
             GAsyncResult *result,
             gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (answer == NULL)
    snodo_invocation_return_gerror (invocation, error);
  else
    snodo_invocation_return_text (invocation, "answered");
}

static const char ask_params[] =
  "{\"mode\":\"form\",\"message\":\"Go on?\",\"requestedSchema\":{\"type\":\"object\","
  "\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}}";

static void
ask_cb (SnodoInvocation *invocation,
        gpointer         user_data)
{
  g_autoptr(JsonNode) params = snodo_json_parse (ask_params, strlen (ask_params), NULL);

  /* The invocation is ours until ask_done_cb answers it. */
  snodo_invocation_request_input_async (invocation, "confirm", "elicitation/create", params,
                                        NULL, ask_done_cb, invocation);
}

static void
prompt_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) messages = NULL;

  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, json_object_get_string_member_with_default (arguments, "name", "?"));
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  messages = json_builder_get_root (builder);
  snodo_invocation_return_prompt (invocation, "a greeting", messages);
}

static void
resource_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  snodo_invocation_return_resource_text (invocation, snodo_invocation_get_uri (invocation),
                                         "text/plain", "static text");
}

static void
template_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  JsonObject *variables = snodo_invocation_get_variables (invocation);
  const char *id = json_object_get_string_member_with_default (variables, "id", "");

  if (g_str_equal (id, "missing"))
    snodo_invocation_return_resource_not_found (invocation);
  else
    snodo_invocation_return_resource_text (invocation, snodo_invocation_get_uri (invocation),
                                           "text/plain", id);
}

static void
complete_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  static const char * const values[] = { "alpha", "beta", NULL };

  snodo_invocation_return_completion (invocation, values, 2, FALSE);
}

static void
add_tool (const char    *name,
          const char    *schema,
          SnodoToolFunc  func)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new (name, "a tool for fuzzing");

  if (schema != NULL)
    g_assert (snodo_tool_set_input_schema_from_string (tool, schema, NULL));
  g_assert (snodo_server_add_tool (server, tool, func, NULL, NULL, NULL));
}

static void
make_server (void)
{
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("greet", "Greets someone");
  g_autoptr(SnodoResource) resource = snodo_resource_new ("test://static", "static");
  g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new ("test://t/{id}/data", "by id");

  /* Quiet: the server's debug messages would only slow the fuzzer. */
  g_log_set_handler ("Snodo", G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO | G_LOG_LEVEL_MESSAGE,
                     g_log_default_handler, NULL);
  executor = snodo_executor_new ();
  server = snodo_server_new ("fuzz", "1.0");
  add_tool ("echo", "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"maxLength\":64}},"
                    "\"required\":[\"text\"]}", echo_cb);
  add_tool ("fail", NULL, fail_cb);
  add_tool ("structured", "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}}", structured_cb);
  add_tool ("ask", NULL, ask_cb);
  snodo_prompt_add_argument (prompt, "name", "who", TRUE);
  g_assert (snodo_server_add_prompt (server, prompt, prompt_cb, NULL, NULL, NULL));
  g_assert (snodo_server_add_resource (server, resource, resource_cb, NULL, NULL, NULL));
  g_assert (snodo_server_add_resource_template (server, template, template_cb, NULL, NULL, NULL));
  snodo_server_set_completion_func (server, complete_cb, NULL, NULL);
}

/* ---- the connection ------------------------------------------------------ */

typedef struct
{
  Sink            *sink;
  SnodoConnection *connection;
} Reader;

/* As SnodoStdioTransport's line callback. */
static void
line_cb (SnodoLineFramerEvent  event,
         const char           *line,
         gsize                 len,
         gpointer              user_data)
{
  Reader *reader = user_data;
  g_auto(SnodoFrame) frame = { 0, };

  if (event == SNODO_LINE_FRAMER_OVERSIZED)
    {
      snodo_connection_send (reader->connection,
                             snodo_frame_encode_error (NULL, SNODO_RPC_ERROR_INVALID_REQUEST, "too long", NULL),
                             NULL, NULL);
      return;
    }

  snodo_dialect_decode_lazy (line, len, &frame);
  if ((frame.kind == SNODO_FRAME_REQUEST || frame.kind == SNODO_FRAME_ERROR) && frame.key != NULL)
    count (reader->sink->requests, frame.key);
  if (frame.kind == SNODO_FRAME_NOTIFICATION && g_str_equal (frame.method, "notifications/cancelled"))
    {
      JsonNode *request_id = snodo_frame_get_param (&frame, "requestId");
      g_autofree char *key = request_id ? snodo_frame_id_key (request_id) : NULL;

      if (key != NULL)
        g_hash_table_add (reader->sink->cancelled, g_steal_pointer (&key));
    }
  switch (frame.kind)
    {
    case SNODO_FRAME_IGNORE:
    case SNODO_FRAME_DROP:
      break;

    case SNODO_FRAME_ERROR:
      /* A malformed answer to a request of the server's: dropped, as the
       * stdio transport does. */
      if (frame.response_key != NULL && snodo_connection_awaits (reader->connection, frame.response_key))
        break;
      {
        g_autoptr(GBytes) error = snodo_frame_encode_error (frame.id, frame.error_code,
                                                            frame.error_message, NULL);

        snodo_connection_send (reader->connection, error, NULL, NULL);
        break;
      }

    case SNODO_FRAME_REQUEST:
    case SNODO_FRAME_NOTIFICATION:
    case SNODO_FRAME_RESPONSE:
      snodo_server_dispatch (server, reader->connection, &frame, reader->sink->headers, len);
      break;

    default:
      g_assert_not_reached ();
    }

  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static gboolean
wake_cb (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(SnodoLineFramer) framer = snodo_line_framer_new (MAX_LINE_BYTES);
  g_autoptr(GObject) owner = g_object_new (G_TYPE_OBJECT, NULL);
  Sink sink = { NULL, 0, NULL, NULL, NULL };
  Reader reader = { &sink, NULL };
  GSource *wake;
  gint64 give_up;
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  if (server == NULL)
    make_server ();
  sink.requests = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sink.answers = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sink.cancelled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  reader.connection = snodo_connection_new (&sink_vtable, &sink, owner, executor,
                                            g_main_context_default ());
  snodo_server_connection_started (server, reader.connection);

  snodo_line_framer_push (framer, data, size, line_cb, &reader);
  snodo_line_framer_finish (framer, line_cb, &reader);

  /* The end of input: as the stdio transport, drain, then wait for the
   * work of this connection (a handler waiting for the client fails now). */
  snodo_server_connection_draining (server, reader.connection);
  wake = g_timeout_source_new (10);
  g_source_set_callback (wake, wake_cb, NULL, NULL);
  g_source_attach (wake, NULL);
  give_up = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (snodo_executor_get_n_live_for_owner (executor, owner) > 0)
    {
      /* Every request ends once the input did: anything else is a hang. */
      g_assert (g_get_monotonic_time () < give_up);
      g_main_context_iteration (NULL, TRUE);
    }
  snodo_source_destroy_and_unref (wake);

  snodo_server_connection_ended (server, reader.connection, TRUE);
  snodo_connection_detach (reader.connection);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_pointer (&reader.connection, snodo_connection_unref);

  /* One answer per request; none for a request the client cancelled. */
  g_hash_table_iter_init (&iter, sink.answers);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_assert (GPOINTER_TO_UINT (value) <= GPOINTER_TO_UINT (g_hash_table_lookup (sink.requests, key)));
  g_hash_table_iter_init (&iter, sink.requests);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (sink.cancelled, key))
      g_assert (GPOINTER_TO_UINT (value) == GPOINTER_TO_UINT (g_hash_table_lookup (sink.answers, key)));

  g_clear_pointer (&sink.headers, g_hash_table_unref);
  g_clear_pointer (&sink.requests, g_hash_table_unref);
  g_clear_pointer (&sink.answers, g_hash_table_unref);
  g_clear_pointer (&sink.cancelled, g_hash_table_unref);
  return 0;
}
