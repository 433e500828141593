/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo-conformance-client SERVER-URL: the client under test of the
 * official conformance suite's core client scenarios (run-conformance-client
 * runs each). The suite starts a server of the scenario, names it in
 * MCP_CONFORMANCE_SCENARIO, may pin the protocol version in
 * MCP_CONFORMANCE_PROTOCOL_VERSION, and scores what it saw the client do.
 * This client does what any application would with SnodoClient: connects,
 * lists the tools and calls them (the calls MCP_CONFORMANCE_CONTEXT names
 * in toolCalls, else every tool listed, with a value for each required
 * argument), accepting an elicitation with the defaults of its schema;
 * then closes. In the Skills scenarios (sep-2640-client-*) it lists the
 * skills instead and, except in sep-2640-client-no-prefetch, where it only
 * lists them, loads each as a host would when a skill is needed: its
 * SKILL.md read and checked against the entry, then its other files, each
 * checked; a skill whose SKILL.md fails the check is not loaded further.
 * Exit status 0 when every step worked (a check failing is the client
 * doing its part). */

#include "config.h"

#include <stdio.h>

#include <snodo/snodo.h>

typedef struct
{
  GMainLoop *loop;
  GAsyncResult *result;
} Wait;

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Wait *wait = user_data;

  wait->result = g_object_ref (result);
  g_main_loop_quit (wait->loop);
}

static GAsyncResult *
wait_for (Wait *wait)
{
  g_main_loop_run (wait->loop);
  return wait->result;
}

/* An elicitation accepted with every default the schema gives (SEP-1034). */
static gboolean
elicit_cb (SnodoClient        *client,
           SnodoServerRequest *request,
           gpointer            user_data)
{
  JsonObject *params = snodo_server_request_get_params (request);
  JsonNode *schema = params != NULL ? json_object_get_member (params, "requestedSchema") : NULL;
  JsonNode *properties = schema != NULL && JSON_NODE_HOLDS_OBJECT (schema)
                         ? json_object_get_member (json_node_get_object (schema), "properties") : NULL;
  g_autoptr(JsonObject) result = json_object_new ();
  JsonObject *content = json_object_new ();

  if (properties != NULL && JSON_NODE_HOLDS_OBJECT (properties))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *field;

      json_object_iter_init (&iter, json_node_get_object (properties));
      while (json_object_iter_next (&iter, &name, &field))
        {
          JsonNode *fallback = JSON_NODE_HOLDS_OBJECT (field)
                               ? json_object_get_member (json_node_get_object (field), "default") : NULL;

          if (fallback != NULL)
            json_object_set_member (content, name, json_node_copy (fallback));
        }
    }
  json_object_set_string_member (result, "action", "accept");
  json_object_set_object_member (result, "content", content);
  snodo_server_request_return_result (request, result);
  return TRUE;
}

/* Arguments for @tool: a value of its type for each required property;
 * for a required object "schema", the input schema of another tool (the
 * echo of json-schema-2020-12-preservation); add_numbers gets 5 and 3. */
static JsonObject *
make_arguments (JsonObject *tool,
                JsonArray  *tools)
{
  JsonObject *arguments = json_object_new ();
  JsonNode *schema = json_object_get_member (tool, "inputSchema");
  JsonNode *properties = schema != NULL && JSON_NODE_HOLDS_OBJECT (schema)
                         ? json_object_get_member (json_node_get_object (schema), "properties") : NULL;
  JsonNode *required = schema != NULL && JSON_NODE_HOLDS_OBJECT (schema)
                       ? json_object_get_member (json_node_get_object (schema), "required") : NULL;

  if (g_str_equal (json_object_get_string_member_with_default (tool, "name", ""), "add_numbers"))
    {
      json_object_set_int_member (arguments, "a", 5);
      json_object_set_int_member (arguments, "b", 3);
      return arguments;
    }
  if (properties == NULL || !JSON_NODE_HOLDS_OBJECT (properties) || required == NULL || !JSON_NODE_HOLDS_ARRAY (required))
    return arguments;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (required)); i++)
    {
      const char *name = json_array_get_string_element (json_node_get_array (required), i);
      JsonNode *field = name != NULL ? json_object_get_member (json_node_get_object (properties), name) : NULL;
      const char *type = field != NULL && JSON_NODE_HOLDS_OBJECT (field)
                         ? json_object_get_string_member_with_default (json_node_get_object (field), "type", "string")
                         : "string";

      if (name == NULL)
        continue;
      if (g_str_equal (type, "object") && g_str_equal (name, "schema"))
        {
          for (guint t = 0; t < json_array_get_length (tools); t++)
            {
              JsonObject *other = json_array_get_object_element (tools, t);

              if (other != tool && json_object_has_member (other, "inputSchema"))
                {
                  json_object_set_member (arguments, name, json_node_copy (json_object_get_member (other, "inputSchema")));
                  break;
                }
            }
        }
      else if (g_str_equal (type, "object"))
        json_object_set_object_member (arguments, name, json_object_new ());
      else if (g_str_equal (type, "array"))
        json_object_set_array_member (arguments, name, json_array_new ());
      else if (g_str_equal (type, "integer"))
        json_object_set_int_member (arguments, name, 1);
      else if (g_str_equal (type, "number"))
        json_object_set_double_member (arguments, name, 1.5);
      else if (g_str_equal (type, "boolean"))
        json_object_set_boolean_member (arguments, name, TRUE);
      else
        json_object_set_string_member (arguments, name, "value");
    }
  return arguments;
}

static gboolean
call_tool (SnodoClient *client,
           const char  *name,
           JsonObject  *arguments,
           GError     **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop, NULL };
  g_autoptr(JsonObject) answer = NULL;
  g_autofree char *text = NULL;
  g_autoptr(JsonNode) node = NULL;

  snodo_client_call_tool_async (client, name, arguments, NULL, done_cb, &wait);
  answer = snodo_client_call_tool_finish (client, wait_for (&wait), error);
  g_clear_object (&wait.result);
  if (answer == NULL)
    return FALSE;
  node = json_node_init_object (json_node_alloc (), answer);
  text = json_to_string (node, FALSE);
  printf ("%s: %s\n", name, text);
  return TRUE;
}

static GBytes *
read_skill_file (SnodoClient *client,
                 JsonObject  *skill,
                 const char  *uri,
                 GError     **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop, NULL };
  GBytes *bytes;

  snodo_client_read_skill_file_async (client, skill, uri, NULL, done_cb, &wait);
  bytes = snodo_client_read_skill_file_finish (client, wait_for (&wait), error);
  g_clear_object (&wait.result);
  return bytes;
}

/* Loads @skill: its SKILL.md first, checked, then each other file it
 * lists, checked, unless SKILL.md failed. FALSE only when the server did
 * not answer as a server must. */
static gboolean
load_skill (SnodoClient *client,
            JsonObject  *skill)
{
  const char *uri = json_object_get_string_member_with_default (skill, "uri", "");
  JsonNode *resources = json_object_get_member (skill, "resources");
  g_autoptr(GError) error = NULL;
  g_autoptr(GBytes) bytes = NULL;

  bytes = read_skill_file (client, skill, uri, &error);
  if (bytes == NULL)
    {
      printf ("skill %s not loaded: %s\n", uri, error->message);
      return error->domain != SNODO_RPC_ERROR;
    }
  printf ("skill %s: SKILL.md of %" G_GSIZE_FORMAT " bytes, checked\n", uri, g_bytes_get_size (bytes));
  for (guint i = 0; resources != NULL && JSON_NODE_HOLDS_ARRAY (resources) &&
                    i < json_array_get_length (json_node_get_array (resources)); i++)
    {
      JsonNode *node = json_array_get_element (json_node_get_array (resources), i);
      const char *file = JSON_NODE_HOLDS_OBJECT (node)
                         ? json_object_get_string_member_with_default (json_node_get_object (node), "uri", "") : "";
      g_autoptr(GBytes) content = NULL;

      if (g_str_equal (file, uri))
        continue;
      content = read_skill_file (client, skill, file, &error);
      if (content == NULL)
        {
          printf ("skill %s: %s not loaded: %s\n", uri, file, error->message);
          if (error->domain == SNODO_RPC_ERROR)
            return FALSE;
          g_clear_error (&error);
          continue;
        }
      printf ("skill %s: %s of %" G_GSIZE_FORMAT " bytes, checked\n", uri, file, g_bytes_get_size (content));
    }
  return TRUE;
}

/* The Skills scenarios: lists the skills, and loads each when @load (not
 * in sep-2640-client-no-prefetch, which watches that nothing is read
 * before a skill is needed). */
static gboolean
use_skills (SnodoClient *client,
            gboolean     load)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) skills = NULL;
  gboolean ok = TRUE;

  snodo_client_list_skills_async (client, NULL, done_cb, &wait);
  skills = snodo_client_list_skills_finish (client, wait_for (&wait), &error);
  g_clear_object (&wait.result);
  if (skills == NULL)
    {
      g_printerr ("snodo-conformance-client: skills/list: %s\n", error->message);
      return FALSE;
    }
  printf ("%u skills listed\n", json_array_get_length (skills));
  for (guint i = 0; load && i < json_array_get_length (skills); i++)
    {
      JsonNode *node = json_array_get_element (skills, i);

      if (JSON_NODE_HOLDS_OBJECT (node) && !load_skill (client, json_node_get_object (node)))
        ok = FALSE;
    }
  return ok;
}

int
main (int   argc,
      char *argv[])
{
  const char *scenario = g_getenv ("MCP_CONFORMANCE_SCENARIO");
  const char *version_string = g_getenv ("MCP_CONFORMANCE_PROTOCOL_VERSION");
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  Wait wait = { loop, NULL };
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) tools = NULL;
  g_autoptr(JsonObject) capabilities = json_object_new ();
  gboolean ok = TRUE;
  const char *context;
  g_autoptr(JsonNode) context_node = NULL;
  g_autoptr(JsonArray) calls_asked = NULL;

  if (argc != 2)
    {
      g_printerr ("usage: snodo-conformance-client SERVER-URL\n");
      return 2;
    }
  g_set_prgname ("snodo-conformance-client");
  printf ("scenario %s, server %s\n", scenario != NULL ? scenario : "(none)", argv[1]);

  client = snodo_client_new_for_uri (argv[1], &error);
  if (client == NULL)
    {
      g_printerr ("snodo-conformance-client: %s\n", error->message);
      return 1;
    }
  if (version_string != NULL && version_string[0] != '\0')
    {
      SnodoProtocolVersion version = snodo_protocol_version_from_string (version_string);

      if (version != SNODO_PROTOCOL_VERSION_UNKNOWN)
        snodo_client_set_pinned_version (client, version);
    }
  json_object_set_object_member (capabilities, "elicitation", json_object_new ());
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (elicit_cb), NULL);

  snodo_client_connect_async (client, NULL, done_cb, &wait);
  if (!snodo_client_connect_finish (client, wait_for (&wait), &error))
    {
      g_printerr ("snodo-conformance-client: connect: %s\n", error->message);
      return 1;
    }
  g_clear_object (&wait.result);
  printf ("connected, protocol %s\n", snodo_protocol_version_to_string (snodo_client_get_protocol_version (client)));

  if (scenario != NULL && g_str_has_prefix (scenario, "sep-2640-client-"))
    {
      ok = use_skills (client, !g_str_equal (scenario, "sep-2640-client-no-prefetch"));
      goto close;
    }

  snodo_client_list_tools_async (client, NULL, done_cb, &wait);
  tools = snodo_client_list_tools_finish (client, wait_for (&wait), &error);
  g_clear_object (&wait.result);
  if (tools == NULL)
    {
      g_printerr ("snodo-conformance-client: tools/list: %s\n", error->message);
      ok = FALSE;
    }
  /* The calls the scenario asks for, or every tool listed. */
  context = g_getenv ("MCP_CONFORMANCE_CONTEXT");
  if (context != NULL && context[0] != '\0')
    {
      JsonNode *calls;

      context_node = json_from_string (context, NULL);
      calls = context_node != NULL && JSON_NODE_HOLDS_OBJECT (context_node)
              ? json_object_get_member (json_node_get_object (context_node), "toolCalls") : NULL;
      if (calls != NULL && JSON_NODE_HOLDS_ARRAY (calls))
        calls_asked = json_array_ref (json_node_get_array (calls));
    }
  for (guint i = 0; calls_asked != NULL && i < json_array_get_length (calls_asked); i++)
    {
      JsonObject *call = json_array_get_object_element (calls_asked, i);
      const char *name = json_object_get_string_member_with_default (call, "name", "");
      JsonNode *arguments = json_object_get_member (call, "arguments");

      if (!call_tool (client, name, arguments != NULL && JSON_NODE_HOLDS_OBJECT (arguments)
                                    ? json_node_get_object (arguments) : NULL, &error))
        {
          g_printerr ("snodo-conformance-client: tools/call %s: %s\n", name, error->message);
          g_clear_error (&error);
          ok = FALSE;
        }
    }
  for (guint i = 0; calls_asked == NULL && tools != NULL && i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *name = json_object_get_string_member_with_default (tool, "name", "");
      g_autoptr(JsonObject) arguments = make_arguments (tool, tools);

      if (!call_tool (client, name, arguments, &error))
        {
          g_printerr ("snodo-conformance-client: tools/call %s: %s\n", name, error->message);
          /* A JSON-RPC error is the server's answer (a scenario server
           * may serve no calls): the client did its part. */
          if (error->domain != SNODO_RPC_ERROR)
            ok = FALSE;
          g_clear_error (&error);
        }
    }

close:
  snodo_client_close_async (client, NULL, done_cb, &wait);
  if (!snodo_client_close_finish (client, wait_for (&wait), &error))
    {
      g_printerr ("snodo-conformance-client: close: %s\n", error->message);
      ok = FALSE;
    }
  g_clear_object (&wait.result);
  return ok ? 0 : 1;
}
