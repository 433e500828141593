/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* _meta on descriptions and results, the extensions capability and the
 * MCP Apps helper: in process, through a SnodoStdioTransport over pipes,
 * in both eras (a 2025-11-25 initialize, or 2026-07-28 requests). */

#include "config.h"

#include <string.h>

#include "snodo.h"

#include "snodo-test-util.h"

typedef struct
{
  SnodoTestPipe pipe;
  gboolean      modern;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  snodo_test_pipe_set_up (&fixture->pipe);
  fixture->modern = GPOINTER_TO_INT (data);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
}

static JsonNode *
fixture_call (Fixture    *fixture,
              const char *method,
              const char *params)
{
  return snodo_test_pipe_call (&fixture->pipe, fixture->modern, method, params);
}

static void
assert_json (JsonNode   *node,
             const char *expected)
{
  g_autoptr(JsonNode) want = snodo_test_parse (expected);

  if (node == NULL || !snodo_test_json_equal (node, want))
    g_error ("Expected %s, got %s", expected, node != NULL ? json_to_string (node, FALSE) : "nothing");
}

/* The capabilities of the server, as a client of the fixture's era learns
 * them: from initialize, or from server/discover. */
static JsonObject *
fixture_capabilities (Fixture *fixture)
{
  g_autoptr(JsonNode) answer = NULL;

  if (fixture->modern)
    answer = fixture_call (fixture, "server/discover", NULL);
  else
    answer = fixture_call (fixture, "initialize",
                           "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                           "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
  return json_object_ref (json_object_get_object_member (snodo_test_get_result (answer), "capabilities"));
}

static void
text_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "ok");
}

/* Answers with a result that carries its own _meta. */
static void
meta_result_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  g_autoptr(JsonNode) result = snodo_test_parse ("{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],"
                                                 "\"_meta\":{\"com.example/trace\":\"t-1\","
                                                 "\"io.modelcontextprotocol/serverInfo\":\"mine\"}}");

  snodo_invocation_return_result (invocation, result);
}

static void
count_cb (guint *count)
{
  (*count)++;
}

static void
set_meta (gpointer    description,
          const char *json)
{
  g_autoptr(JsonNode) meta = snodo_test_parse (json);

  snodo_description_set_meta (SNODO_DESCRIPTION (description), meta);
}

/* ---- _meta on descriptions ------------------------------------------------ */

static void
test_description_property (void)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(JsonNode) meta = snodo_test_parse ("{\"com.example/a\":[1]}");
  g_autoptr(JsonNode) same = snodo_test_parse ("{\"com.example/a\":[1]}");
  g_autoptr(JsonNode) through_property = NULL;
  guint notified = 0;

  g_test_summary ("SnodoDescription:meta keeps a sealed copy, notifies on a change only, and is a property");

  g_signal_connect_swapped (tool, "notify::meta", G_CALLBACK (count_cb), &notified);

  g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (tool)));
  snodo_description_set_meta (SNODO_DESCRIPTION (tool), meta);
  g_assert_true (snodo_description_get_meta (SNODO_DESCRIPTION (tool)) != meta);
  g_assert_true (json_node_is_immutable (snodo_description_get_meta (SNODO_DESCRIPTION (tool))));
  snodo_description_set_meta (SNODO_DESCRIPTION (tool), same);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (tool, "meta", &through_property, NULL);
  assert_json (through_property, "{\"com.example/a\":[1]}");
  g_object_set (tool, "meta", NULL, NULL);
  g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (tool)));
  g_assert_cmpuint (notified, ==, 2);
}

static void
test_lists (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", "A tool");
  g_autoptr(SnodoTool) plain = snodo_tool_new ("plain", NULL);
  g_autoptr(SnodoResource) resource = snodo_resource_new ("app://r", "r");
  g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new ("app://r/{x}", "rt");
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonNode) tools = NULL;
  g_autoptr(JsonNode) resources = NULL;
  g_autoptr(JsonNode) templates = NULL;
  g_autoptr(JsonNode) prompts = NULL;
  JsonArray *list;

  g_test_summary ("_meta is sent with every kind of description in its list, in both eras, and only when set");

  set_meta (tool, "{\"com.example/tool\":{\"n\":1},\"ui\":{\"resourceUri\":\"ui://x/y\"}}");
  set_meta (resource, "{\"com.example/resource\":true}");
  set_meta (template, "{\"com.example/template\":\"t\"}");
  set_meta (prompt, "{\"prompt-key\":[1,2]}");
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, text_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, plain, text_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_resource (fixture->pipe.server, resource, text_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_resource_template (fixture->pipe.server, template, text_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, text_cb, NULL, NULL, NULL));

  capabilities = fixture_capabilities (fixture);
  g_assert_false (json_object_has_member (capabilities, "extensions"));

  tools = fixture_call (fixture, "tools/list", NULL);
  list = json_object_get_array_member (snodo_test_get_result (tools), "tools");
  assert_json (json_array_get_element (list, 0),
               "{\"name\":\"t\",\"description\":\"A tool\",\"inputSchema\":{\"type\":\"object\"},"
               "\"_meta\":{\"com.example/tool\":{\"n\":1},\"ui\":{\"resourceUri\":\"ui://x/y\"}}}");
  assert_json (json_array_get_element (list, 1), "{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\"}}");

  resources = fixture_call (fixture, "resources/list", NULL);
  assert_json (json_array_get_element (json_object_get_array_member (snodo_test_get_result (resources), "resources"), 0),
               "{\"uri\":\"app://r\",\"name\":\"r\",\"_meta\":{\"com.example/resource\":true}}");
  templates = fixture_call (fixture, "resources/templates/list", NULL);
  assert_json (json_array_get_element (json_object_get_array_member (snodo_test_get_result (templates), "resourceTemplates"), 0),
               "{\"uriTemplate\":\"app://r/{x}\",\"name\":\"rt\",\"_meta\":{\"com.example/template\":\"t\"}}");
  prompts = fixture_call (fixture, "prompts/list", NULL);
  assert_json (json_array_get_element (json_object_get_array_member (snodo_test_get_result (prompts), "prompts"), 0),
               "{\"name\":\"p\",\"_meta\":{\"prompt-key\":[1,2]}}");

  /* The list result's own _meta is the server's alone in 2026-07-28. */
  if (fixture->modern)
    g_assert_true (json_object_has_member (json_object_get_object_member (snodo_test_get_result (tools), "_meta"),
                                           "io.modelcontextprotocol/serverInfo"));
  else
    g_assert_false (json_object_has_member (snodo_test_get_result (tools), "_meta"));
}

static void
test_invalid (void)
{
  const struct
  {
    const char *meta;
    const char *why;
  } cases[] = {
    { "{\"io.modelcontextprotocol/x\":1}", "reserved" },
    { "{\"dev.mcp/x\":1}", "reserved" },
    { "{\"org.modelcontextprotocol.api/x\":1}", "reserved" },
    { "{\"com.mcp.tools/x\":1}", "reserved" },
    { "{\"mcp.dev/x\":1}", "reserved" },
    { "{\"tools.mcp.com/x\":1}", "reserved" },
    { "{\"-x\":1}", "not a valid key" },
    { "{\"x-\":1}", "not a valid key" },
    { "{\"com.example/a/b\":1}", "not a valid key" },
    { "{\"1com.example/a\":1}", "not a valid key" },
    { "{\"com..example/a\":1}", "not a valid key" },
    { "{\"/a\":1}", "not a valid key" },
    { "{\"com.example-/a\":1}", "not a valid key" },
    { "{\"a b\":1}", "not a valid key" },
  };
  const char *valid[] = {
    "{}", "{\"ui\":{\"anything\":[null]}}", "{\"com.example.mcp/x\":1}", "{\"com.example/\":1}",
    "{\"a.b-c_d\":1,\"x\":2,\"\":3}", "{\"com.exa-mple.v2/x.y\":1}", "{\"progressToken\":1}",
  };

  g_test_summary ("_meta keys are checked when a description is added: well formed, and not in MCP's prefixes");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
      g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
      g_autoptr(SnodoResource) resource = snodo_resource_new ("app://r", "r");
      g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new ("app://r/{x}", "rt");
      g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
      g_autoptr(GError) error = NULL;

      set_meta (tool, cases[i].meta);
      set_meta (resource, cases[i].meta);
      set_meta (template, cases[i].meta);
      set_meta (prompt, cases[i].meta);
      g_assert_false (snodo_server_add_tool (server, tool, text_cb, NULL, NULL, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      if (strstr (error->message, cases[i].why) == NULL)
        g_error ("%s: %s", cases[i].meta, error->message);
      g_clear_error (&error);
      g_assert_false (snodo_server_add_resource (server, resource, text_cb, NULL, NULL, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_clear_error (&error);
      g_assert_false (snodo_server_add_resource_template (server, template, text_cb, NULL, NULL, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_clear_error (&error);
      g_assert_false (snodo_server_add_prompt (server, prompt, text_cb, NULL, NULL, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_assert_null (snodo_server_lookup_tool (server, "t"));
    }

  for (guint i = 0; i < G_N_ELEMENTS (valid); i++)
    {
      g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
      g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
      g_autoptr(GError) error = NULL;

      set_meta (tool, valid[i]);
      if (!snodo_server_add_tool (server, tool, text_cb, NULL, NULL, &error))
        g_error ("%s was refused: %s", valid[i], error->message);
    }

  if (g_test_undefined ())
    {
      g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
      g_autoptr(JsonNode) array = snodo_test_parse ("[1]");

      g_test_expect_message ("Snodo", G_LOG_LEVEL_CRITICAL, "*JSON_NODE_HOLDS_OBJECT*");
      snodo_description_set_meta (SNODO_DESCRIPTION (tool), array);
      g_test_assert_expected_messages ();
      g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (tool)));
    }
}

/* ---- _meta on results ----------------------------------------------------- */

static void
test_result_meta (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("m", NULL);
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonNode) answer = NULL;
  JsonObject *meta;

  g_test_summary ("A handler's _meta on its result is sent as it is; 2026-07-28 adds serverInfo to it");

  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, meta_result_cb, NULL, NULL, NULL));
  capabilities = fixture_capabilities (fixture);
  answer = fixture_call (fixture, "tools/call", "\"name\":\"m\",\"arguments\":{}");
  meta = json_object_get_object_member (snodo_test_get_result (answer), "_meta");
  g_assert_cmpstr (json_object_get_string_member (meta, "com.example/trace"), ==, "t-1");
  if (fixture->modern)
    {
      /* The server's own key is the server's. */
      assert_json (json_object_get_member (meta, "io.modelcontextprotocol/serverInfo"),
                   "{\"name\":\"test\",\"version\":\"1\"}");
      g_assert_cmpuint (json_object_get_size (meta), ==, 2);
      g_assert_cmpstr (json_object_get_string_member (snodo_test_get_result (answer), "resultType"), ==, "complete");
    }
  else
    assert_json (json_object_get_member (snodo_test_get_result (answer), "_meta"),
                 "{\"com.example/trace\":\"t-1\",\"io.modelcontextprotocol/serverInfo\":\"mine\"}");
}

/* ---- Extensions ------------------------------------------------------------- */

static void
test_extensions (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(JsonNode) settings = snodo_test_parse ("{\"version\":\"1.2\",\"features\":[\"a\"]}");
  g_autoptr(JsonNode) not_object = snodo_test_parse ("[]");
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonObject) later = NULL;
  g_autoptr(GError) error = NULL;
  const char *bad_names[] = { "ui", "com.example/", "/x", "com.example", "1com.example/x", "com.example/x/y",
                              "com.example/-x", "" };

  g_test_summary ("Extensions are advertised in initialize and server/discover, as registered");

  g_assert_true (snodo_server_add_extension (fixture->pipe.server, "com.example/one", settings, &error));
  g_assert_no_error (error);
  g_assert_true (snodo_server_add_extension (fixture->pipe.server, "io.modelcontextprotocol/ui", NULL, &error));
  g_assert_no_error (error);
  g_assert_false (snodo_server_add_extension (fixture->pipe.server, "com.example/one", NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  g_assert_false (snodo_server_add_extension (fixture->pipe.server, "com.example/two", not_object, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);
  for (guint i = 0; i < G_N_ELEMENTS (bad_names); i++)
    {
      g_assert_false (snodo_server_add_extension (fixture->pipe.server, bad_names[i], NULL, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_clear_error (&error);
    }
  g_assert_true (snodo_server_add_extension (fixture->pipe.server, "com.example/gone", NULL, NULL));
  g_assert_true (snodo_server_remove_extension (fixture->pipe.server, "com.example/gone"));
  g_assert_false (snodo_server_remove_extension (fixture->pipe.server, "com.example/gone"));
  assert_json (snodo_server_get_extension (fixture->pipe.server, "com.example/one"), "{\"version\":\"1.2\",\"features\":[\"a\"]}");
  g_assert_true (json_node_is_immutable (snodo_server_get_extension (fixture->pipe.server, "com.example/one")));
  g_assert_null (snodo_server_get_extension (fixture->pipe.server, "com.example/gone"));

  capabilities = fixture_capabilities (fixture);
  g_assert_true (json_object_has_member (capabilities, "tools"));
  assert_json (json_object_get_member (capabilities, "extensions"),
               "{\"com.example/one\":{\"version\":\"1.2\",\"features\":[\"a\"]},\"io.modelcontextprotocol/ui\":{}}");
  /* In the order they were registered. */
  {
    g_autoptr(GList) names = json_object_get_members (json_object_get_object_member (capabilities, "extensions"));

    g_assert_cmpstr (names->data, ==, "com.example/one");
  }

  /* Registered while serving: the next capabilities have it (2026-07-28
   * asks every time; a 2025 client would see it on its next initialize,
   * as nothing announces it). */
  g_assert_true (snodo_server_add_extension (fixture->pipe.server, "com.example/late", NULL, NULL));
  if (fixture->modern)
    {
      later = fixture_capabilities (fixture);
      g_assert_true (json_object_has_member (json_object_get_object_member (later, "extensions"), "com.example/late"));
    }
  else
    {
      /* Nothing is sent: the next message is the ping's answer. */
      g_autoptr(JsonNode) pong = fixture_call (fixture, "ping", NULL);

      assert_json (json_object_get_member (json_node_get_object (pong), "result"), "{}");
    }
}

/* ---- MCP Apps --------------------------------------------------------------- */

#define VIEW_HTML "<!DOCTYPE html><html><body><p id=\"t\"></p></body></html>"

static void
test_app (Fixture       *fixture,
          gconstpointer  data)
{
  g_autoptr(SnodoTool) tool = snodo_tool_new ("clock", "Tells the time");
  g_autoptr(SnodoResource) view = snodo_resource_new ("ui://test/clock", "clock-view");
  g_autoptr(JsonNode) ui = snodo_test_parse ("{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]},"
                                             "\"permissions\":{\"clipboardWrite\":{}},\"domain\":\"x.example.com\","
                                             "\"prefersBorder\":true,\"visibility\":[\"model\",\"app\"]}");
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonNode) tools = NULL;
  g_autoptr(JsonNode) resources = NULL;
  g_autoptr(JsonNode) read = NULL;
  g_autoptr(GError) error = NULL;
  JsonObject *content;
  guint changed = 0;

  g_test_summary ("add_app links a tool to its ui:// view, serves the HTML as text/html;profile=mcp-app "
                  "and advertises io.modelcontextprotocol/ui");

  /* What the application put in the tool's _meta already is kept. */
  set_meta (tool, "{\"com.example/k\":1,\"ui\":{\"other\":true}}");
  g_assert_true (snodo_server_add_tool (fixture->pipe.server, tool, text_cb, NULL, NULL, NULL));
  g_signal_connect_swapped (tool, "notify::meta", G_CALLBACK (count_cb), &changed);
  g_assert_true (snodo_server_add_app (fixture->pipe.server, tool, view, VIEW_HTML, ui, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (changed, ==, 1);
  g_assert_cmpstr (snodo_resource_get_mime_type (view), ==, "text/html;profile=mcp-app");
  g_assert_cmpstr (SNODO_APP_MIME_TYPE, ==, "text/html;profile=mcp-app");

  capabilities = fixture_capabilities (fixture);
  assert_json (json_object_get_member (capabilities, "extensions"), "{\"io.modelcontextprotocol/ui\":{}}");

  tools = fixture_call (fixture, "tools/list", NULL);
  assert_json (json_object_get_member (json_array_get_object_element (json_object_get_array_member (snodo_test_get_result (tools),
                                                                                                    "tools"), 0),
                                       "_meta"),
               "{\"com.example/k\":1,\"ui\":{\"other\":true,\"resourceUri\":\"ui://test/clock\","
               "\"visibility\":[\"model\",\"app\"]}}");

  resources = fixture_call (fixture, "resources/list", NULL);
  assert_json (json_array_get_element (json_object_get_array_member (snodo_test_get_result (resources), "resources"), 0),
               "{\"uri\":\"ui://test/clock\",\"name\":\"clock-view\",\"mimeType\":\"text/html;profile=mcp-app\","
               "\"_meta\":{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]},"
               "\"permissions\":{\"clipboardWrite\":{}},\"domain\":\"x.example.com\",\"prefersBorder\":true}}}");

  read = fixture_call (fixture, "resources/read", "\"uri\":\"ui://test/clock\"");
  content = json_array_get_object_element (json_object_get_array_member (snodo_test_get_result (read), "contents"), 0);
  g_assert_cmpstr (json_object_get_string_member (content, "uri"), ==, "ui://test/clock");
  g_assert_cmpstr (json_object_get_string_member (content, "mimeType"), ==, "text/html;profile=mcp-app");
  g_assert_cmpstr (json_object_get_string_member (content, "text"), ==, VIEW_HTML);
  assert_json (json_object_get_member (content, "_meta"),
               "{\"ui\":{\"csp\":{\"connectDomains\":[\"https://api.example.com\"]},"
               "\"permissions\":{\"clipboardWrite\":{}},\"domain\":\"x.example.com\",\"prefersBorder\":true}}");
}

static void
test_app_plain (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
  g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
  g_autoptr(SnodoTool) second = snodo_tool_new ("t2", NULL);
  g_autoptr(SnodoResource) view = snodo_resource_new ("ui://a/b", "b");
  g_autoptr(SnodoResource) other = snodo_resource_new ("ui://a/c", "c");
  g_autoptr(JsonNode) settings = snodo_test_parse ("{\"mine\":1}");

  g_test_summary ("Without settings a view has no _meta; an extension registered before is kept");

  g_assert_true (snodo_server_add_extension (server, SNODO_APP_EXTENSION, settings, NULL));
  g_assert_true (snodo_server_add_app (server, tool, view, "<html></html>", NULL, NULL));
  g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (view)));
  assert_json (snodo_description_get_meta (SNODO_DESCRIPTION (tool)), "{\"ui\":{\"resourceUri\":\"ui://a/b\"}}");
  assert_json (snodo_server_get_extension (server, SNODO_APP_EXTENSION), "{\"mine\":1}");
  /* A second app of the same server. */
  g_assert_true (snodo_server_add_app (server, second, other, "<html></html>", NULL, NULL));
  assert_json (snodo_server_get_extension (server, SNODO_APP_EXTENSION), "{\"mine\":1}");
}

static void
test_app_invalid (void)
{
  const struct
  {
    const char *uri;
    const char *mime_type;
    const char *ui;
    const char *tool_meta;
  } cases[] = {
    { "app://x", NULL, NULL, NULL },
    { "ui://x", "text/html", NULL, NULL },
    { "ui://x", NULL, "[]", NULL },
    { "ui://x", NULL, "{\"csp\":[]}", NULL },
    { "ui://x", NULL, "{\"csp\":{\"connectDomains\":\"https://a\"}}", NULL },
    { "ui://x", NULL, "{\"csp\":{\"frameDomains\":[1]}}", NULL },
    { "ui://x", NULL, "{\"permissions\":{\"camera\":true}}", NULL },
    { "ui://x", NULL, "{\"domain\":1}", NULL },
    { "ui://x", NULL, "{\"prefersBorder\":\"yes\"}", NULL },
    { "ui://x", NULL, "{\"visibility\":[]}", NULL },
    { "ui://x", NULL, "{\"visibility\":[\"user\"]}", NULL },
    { "ui://x", NULL, "{\"visibility\":[\"app\",\"app\"]}", NULL },
    { "ui://x", NULL, "{\"resourceUri\":\"ui://y\"}", NULL },
    { "ui://x", NULL, NULL, "{\"ui\":\"x\"}" },
  };

  g_test_summary ("add_app refuses what MCP Apps does not allow, and then changes nothing");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
      g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
      g_autoptr(SnodoResource) view = snodo_resource_new (cases[i].uri, "v");
      g_autoptr(JsonNode) ui = cases[i].ui != NULL ? snodo_test_parse (cases[i].ui) : NULL;
      g_autoptr(GError) error = NULL;

      if (cases[i].mime_type != NULL)
        snodo_resource_set_mime_type (view, cases[i].mime_type);
      if (cases[i].tool_meta != NULL)
        set_meta (tool, cases[i].tool_meta);
      g_assert_false (snodo_server_add_app (server, tool, view, "<html></html>", ui, &error));
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_assert_null (snodo_server_get_extension (server, SNODO_APP_EXTENSION));
      g_assert_cmpstr (snodo_resource_get_mime_type (view), ==, cases[i].mime_type);
      g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (view)));
    }

  /* A view whose URI is taken: the resource is put back as it was. */
  {
    g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
    g_autoptr(SnodoTool) tool = snodo_tool_new ("t", NULL);
    g_autoptr(SnodoResource) first = snodo_resource_new ("ui://x", "first");
    g_autoptr(SnodoResource) view = snodo_resource_new ("ui://x", "v");
    g_autoptr(JsonNode) ui = snodo_test_parse ("{\"prefersBorder\":false}");
    g_autoptr(GError) error = NULL;

    g_assert_true (snodo_server_add_resource (server, first, text_cb, NULL, NULL, NULL));
    g_assert_false (snodo_server_add_app (server, tool, view, "<html></html>", ui, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
    g_assert_null (snodo_resource_get_mime_type (view));
    g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (view)));
    g_assert_null (snodo_description_get_meta (SNODO_DESCRIPTION (tool)));
    g_assert_null (snodo_server_get_extension (server, SNODO_APP_EXTENSION));
  }
}

int
main (int   argc,
      char *argv[])
{
  const struct
  {
    const char *era;
    gboolean    modern;
  } eras[] = { { "2025-11-25", FALSE }, { "2026-07-28", TRUE } };

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/meta/description/property", test_description_property);
  g_test_add_func ("/meta/description/invalid", test_invalid);
  g_test_add_func ("/meta/app/plain", test_app_plain);
  g_test_add_func ("/meta/app/invalid", test_app_invalid);
  for (guint i = 0; i < G_N_ELEMENTS (eras); i++)
    {
      g_autofree char *lists = g_strdup_printf ("/meta/%s/lists", eras[i].era);
      g_autofree char *results = g_strdup_printf ("/meta/%s/result", eras[i].era);
      g_autofree char *extensions = g_strdup_printf ("/meta/%s/extensions", eras[i].era);
      g_autofree char *app = g_strdup_printf ("/meta/%s/app", eras[i].era);
      gconstpointer modern = GINT_TO_POINTER (eras[i].modern);

      g_test_add (lists, Fixture, modern, fixture_set_up, test_lists, fixture_tear_down);
      g_test_add (results, Fixture, modern, fixture_set_up, test_result_meta, fixture_tear_down);
      g_test_add (extensions, Fixture, modern, fixture_set_up, test_extensions, fixture_tear_down);
      g_test_add (app, Fixture, modern, fixture_set_up, test_app, fixture_tear_down);
    }

  return g_test_run ();
}
