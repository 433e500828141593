/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Resources, resource templates, prompts and completion: black-box through
 * snodo-demo, the catalog's store on its own, and in-process through a
 * SnodoStdioTransport over pipes. */

#include "config.h"

#include <string.h>

#include "snodo.h"
#include "snodo-catalog-private.h"
#include "snodo-protocol-private.h"
#include "snodo-server-methods.h"

#include "snodo-test-peer.h"
#include "snodo-test-util.h"

#define ANSWER_TIMEOUT 10000

/* ---- Reading answers -------------------------------------------------- */

static JsonObject *
get_result (JsonNode *message)
{
  JsonObject *object = json_node_get_object (message);

  if (!json_object_has_member (object, "result"))
    g_error ("Expected a result, got %s", json_to_string (message, FALSE));
  return json_object_get_object_member (object, "result");
}

static const char *
get_error_message (JsonNode *message)
{
  return json_object_get_string_member (json_object_get_object_member (json_node_get_object (message), "error"),
                                        "message");
}

static void
assert_json (JsonNode   *node,
             const char *expected)
{
  g_autoptr(JsonNode) want = snodo_test_parse (expected);

  if (!snodo_test_json_equal (node, want))
    g_error ("Expected %s, got %s", expected, json_to_string (node, FALSE));
}

static void
assert_result (JsonNode   *message,
               const char *expected)
{
  g_autoptr(JsonNode) result = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (result, get_result (message));
  assert_json (result, expected);
}

static void
assert_error (JsonNode   *message,
              gint64      code,
              const char *text)
{
  g_assert_nonnull (message);
  g_assert_cmpint (test_message_get_error_code (message), ==, code);
  if (text != NULL)
    g_assert_cmpstr (get_error_message (message), ==, text);
}

/* ---- Black box: snodo-demo -------------------------------------------- */

static TestProcess *
spawn_demo (void)
{
  const char *argv[] = { g_getenv ("SNODO_DEMO"), NULL };
  TestProcess *demo;

  g_assert_nonnull (argv[0]);
  demo = test_process_spawn (argv);
  test_process_initialize (demo, "2025-11-25");
  return demo;
}

static JsonNode *
demo_call (TestProcess *demo,
           gint64       id,
           const char  *method,
           const char  *params)
{
  g_autofree char *line = NULL;
  JsonNode *answer;

  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\"%s%s}",
                          id, method, params ? ",\"params\":" : "", params ? params : "");
  test_process_send (demo, line);
  answer = test_process_read_id (demo, id, ANSWER_TIMEOUT);
  g_assert_nonnull (answer);
  return answer;
}

static void
demo_finish (TestProcess *demo)
{
  test_process_close_stdin (demo);
  g_assert_cmpint (test_process_wait (demo, ANSWER_TIMEOUT), ==, 0);
  test_process_free (demo);
}

static void
test_demo_capabilities (void)
{
  const char *argv[] = { g_getenv ("SNODO_DEMO"), NULL };
  TestProcess *demo = test_process_spawn (argv);
  g_autoptr(JsonNode) init = NULL;
  JsonObject *capabilities;

  g_test_summary ("A server with resources, prompts and a completion handler says so in initialize");

  init = demo_call (demo, 1, "initialize",
                    "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                    "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}");
  capabilities = json_object_get_object_member (get_result (init), "capabilities");
  assert_json (json_object_get_member (capabilities, "resources"), "{\"subscribe\":true,\"listChanged\":true}");
  assert_json (json_object_get_member (capabilities, "prompts"), "{\"listChanged\":true}");
  assert_json (json_object_get_member (capabilities, "completions"), "{}");
  demo_finish (demo);
}

static void
test_demo_resources (void)
{
  TestProcess *demo = spawn_demo ();
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(JsonNode) read = NULL;
  g_autoptr(JsonNode) templates = NULL;
  g_autoptr(JsonNode) echo = NULL;
  g_autoptr(JsonNode) decoded = NULL;
  JsonObject *content;

  g_test_summary ("resources/list, resources/read, resources/templates/list and a read through a template");

  list = demo_call (demo, 1, "resources/list", NULL);
  assert_result (list, "{\"resources\":[{\"uri\":\"demo://readme\",\"name\":\"readme\","
                       "\"title\":\"About snodo-demo\",\"mimeType\":\"text/markdown\"},"
                       "{\"uri\":\"ui://snodo-demo/chart\",\"name\":\"chart-view\","
                       "\"title\":\"Chart of the tool chart\",\"mimeType\":\"text/html;profile=mcp-app\","
                       "\"_meta\":{\"ui\":{\"prefersBorder\":true}}}]}");

  read = demo_call (demo, 2, "resources/read", "{\"uri\":\"demo://readme\"}");
  content = json_array_get_object_element (json_object_get_array_member (get_result (read), "contents"), 0);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (get_result (read), "contents")), ==, 1);
  g_assert_cmpstr (json_object_get_string_member (content, "uri"), ==, "demo://readme");
  g_assert_cmpstr (json_object_get_string_member (content, "mimeType"), ==, "text/markdown");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (content, "text"), "# snodo-demo\n"));

  templates = demo_call (demo, 3, "resources/templates/list", "{\"cursor\":\"\"}");
  assert_result (templates, "{\"resourceTemplates\":[{\"uriTemplate\":\"demo://echo/{text}\",\"name\":\"echo\","
                            "\"description\":\"Returns the text of its URI\",\"mimeType\":\"text/plain\"}]}");

  echo = demo_call (demo, 4, "resources/read", "{\"uri\":\"demo://echo/hello\"}");
  assert_result (echo, "{\"contents\":[{\"uri\":\"demo://echo/hello\",\"mimeType\":\"text/plain\",\"text\":\"hello\"}]}");

  /* Variables are percent-decoded; the content keeps the URI as read. */
  decoded = demo_call (demo, 5, "resources/read", "{\"uri\":\"demo://echo/a%20b%2Fc%C3%A9\"}");
  assert_result (decoded, "{\"contents\":[{\"uri\":\"demo://echo/a%20b%2Fc%C3%A9\",\"mimeType\":\"text/plain\","
                          "\"text\":\"a b/c\\u00e9\"}]}");

  demo_finish (demo);
}

static void
test_demo_resource_errors (void)
{
  TestProcess *demo = spawn_demo ();
  static const struct {
    const char *params;
    gint64      code;
    const char *message;
  } cases[] = {
    { "{\"uri\":\"demo://nothing\"}", -32002, "Resource not found: demo://nothing" },
    /* A variable takes no '/' and is never empty. */
    { "{\"uri\":\"demo://echo/a/b\"}", -32002, "Resource not found: demo://echo/a/b" },
    { "{\"uri\":\"demo://echo/\"}", -32002, "Resource not found: demo://echo/" },
    { "{\"uri\":\"demo://readme/\"}", -32002, "Resource not found: demo://readme/" },
    { "{}", -32602, "Invalid params: \"uri\" must be a string" },
    { "{\"uri\":42}", -32602, "Invalid params: \"uri\" must be a string" },
    { "{\"uri\":{}}", -32602, "Invalid params: \"uri\" must be a string" },
    { "{\"uri\":\"readme\"}", -32602, "Invalid params: \"uri\" must be an absolute URI" },
    { "{\"uri\":\"demo://echo/%zz\"}", -32602, "Invalid params: \"uri\" must be an absolute URI" },
    { NULL, -32602, "Invalid params: \"uri\" must be a string" },
  };

  g_test_summary ("An unknown resource is -32002 naming the URI; a missing or invalid uri is -32602");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) answer = demo_call (demo, 10 + i, "resources/read", cases[i].params);

      assert_error (answer, cases[i].code, cases[i].message);
    }
  demo_finish (demo);
}

static void
test_demo_prompts (void)
{
  TestProcess *demo = spawn_demo ();
  g_autoptr(JsonNode) list = NULL;
  g_autoptr(JsonNode) get = NULL;
  static const struct {
    const char *params;
    const char *message;
  } cases[] = {
    { "{\"name\":\"greet\"}", "Invalid params: missing required argument “name”" },
    { "{\"name\":\"greet\",\"arguments\":{}}", "Invalid params: missing required argument “name”" },
    { "{\"name\":\"greet\",\"arguments\":{\"other\":\"x\"}}", "Invalid params: missing required argument “name”" },
    { "{\"name\":\"greet\",\"arguments\":{\"name\":5}}", "Invalid params: argument “name” must be a string" },
    { "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\",\"x\":null}}", "Invalid params: argument “x” must be a string" },
    { "{\"name\":\"greet\",\"arguments\":[\"Ada\"]}", "Invalid params: \"arguments\" must be an object" },
    { "{\"name\":\"nope\",\"arguments\":{\"name\":\"Ada\"}}", "Unknown prompt: nope" },
    { "{\"name\":7}", "Invalid params: \"name\" must be a string" },
    { "{}", "Invalid params: \"name\" must be a string" },
  };

  g_test_summary ("prompts/list and prompts/get; a missing or non-string argument and an unknown prompt are -32602");

  list = demo_call (demo, 1, "prompts/list", "{}");
  assert_result (list, "{\"prompts\":[{\"name\":\"greet\",\"description\":\"Asks for a warm greeting\","
                       "\"arguments\":[{\"name\":\"name\",\"description\":\"Who to greet\",\"required\":true}]}]}");

  get = demo_call (demo, 2, "prompts/get", "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}");
  assert_result (get, "{\"description\":\"A warm greeting\",\"messages\":[{\"role\":\"user\","
                      "\"content\":{\"type\":\"text\",\"text\":\"Please greet Ada warmly.\"}}]}");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) answer = demo_call (demo, 10 + i, "prompts/get", cases[i].params);

      assert_error (answer, -32602, cases[i].message);
    }
  demo_finish (demo);
}

static void
test_demo_completion (void)
{
  TestProcess *demo = spawn_demo ();
  static const struct {
    const char *value;
    const char *expected;
  } cases[] = {
    { "a", "{\"completion\":{\"values\":[\"Ada\",\"Alan\"],\"total\":2}}" },
    { "Gr", "{\"completion\":{\"values\":[\"Grace\"],\"total\":1}}" },
    { "", "{\"completion\":{\"values\":[\"Ada\",\"Alan\",\"Grace\",\"Linus\"],\"total\":4}}" },
    { "z", "{\"completion\":{\"values\":[],\"total\":0}}" },
  };
  static const char *const invalid[] = {
    "{\"argument\":{\"name\":\"name\",\"value\":\"a\"}}",
    "{\"ref\":\"greet\",\"argument\":{\"name\":\"name\",\"value\":\"a\"}}",
    "{\"ref\":{\"type\":\"ref/tool\",\"name\":\"greet\"},\"argument\":{\"name\":\"name\",\"value\":\"a\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\"},\"argument\":{\"name\":\"name\",\"value\":\"a\"}}",
    "{\"ref\":{\"type\":\"ref/resource\",\"name\":\"x\"},\"argument\":{\"name\":\"name\",\"value\":\"a\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{\"name\":\"name\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{\"name\":1,\"value\":\"a\"}}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{\"name\":\"name\",\"value\":\"a\"},"
    "\"context\":[]}",
    "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},\"argument\":{\"name\":\"name\",\"value\":\"a\"},"
    "\"context\":{\"arguments\":{\"x\":1}}}",
  };

  g_test_summary ("completion/complete asks the handler; a request of the wrong shape is -32602 "
                  "without reaching it");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *params = g_strdup_printf ("{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"greet\"},"
                                                 "\"argument\":{\"name\":\"name\",\"value\":\"%s\"},"
                                                 "\"context\":{\"arguments\":{}}}", cases[i].value);
      g_autoptr(JsonNode) answer = demo_call (demo, 1 + i, "completion/complete", params);

      assert_result (answer, cases[i].expected);
    }

  /* A reference the handler does not know gets nothing. */
  {
    g_autoptr(JsonNode) answer = demo_call (demo, 9, "completion/complete",
                                            "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"demo://echo/{text}\"},"
                                            "\"argument\":{\"name\":\"text\",\"value\":\"a\"}}");

    assert_result (answer, "{\"completion\":{\"values\":[],\"total\":0}}");
  }

  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr(JsonNode) answer = demo_call (demo, 20 + i, "completion/complete", invalid[i]);

      assert_error (answer, -32602, NULL);
    }
  demo_finish (demo);
}

/* ---- URI templates ------------------------------------------------------ */

static void
test_uri_template_parse (void)
{
  static const char *const invalid[] = {
    "t://a/{x", "t://a/x}", "t://a/{}", "t://a/{a-b}", "t://a/{=x}", "t://a/{|x}", "t://a/{x,}",
    "t://a/{x:0}", "t://a/{x:10000}", "t://a/{x*y}", "t://a/{x:}", "t://a/{.}", "t://a/{x..y}",
    "t://a/{{x}}", "no-scheme/{x}", "{x}", "{+x}", "",
  };
  static const char *const valid[] = {
    "t://a/{x}", "t://{x}/{y_2}", "t://a/{x}{y}", "t://a", "t://a/{X9}.txt?q={q}",
    /* Levels 2 to 4; a variable may be used twice. */
    "t://a/{+x}", "t://a/{x,y}", "t://{x}/{x}", "t://a{/p*}{?q,r:3}{&s*}{#f}", "t://a/{a.b%41,x:9999}",
    "t://a/{;m}{.e}",
  };

  g_test_summary ("RFC 6570 expressions: an operator, variables of A-Z a-z 0-9 _ . and escapes with a "
                  "prefix or explode; in an absolute URI");

  for (guint i = 0; i < G_N_ELEMENTS (invalid); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (invalid[i], &error);

      g_assert_null (template);
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
    }
  for (guint i = 0; i < G_N_ELEMENTS (valid); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (valid[i], &error);

      g_assert_no_error (error);
      g_assert_nonnull (template);
    }
}

static void
test_uri_template_match (void)
{
  static const struct {
    const char *template;
    const char *uri;
    const char *variables;
  } cases[] = {
    { "t://a/{x}", "t://a/b", "{\"x\":\"b\"}" },
    { "t://a/{x}", "t://a/b/c", NULL },
    { "t://a/{x}", "t://a/", NULL },
    { "t://a/{x}", "t://A/b", NULL },
    { "t://{x}/{y}", "t://1/2", "{\"x\":\"1\",\"y\":\"2\"}" },
    /* Leftmost shortest, with the rest still matching. */
    { "t://{a}.{b}", "t://x.y.z", "{\"a\":\"x\",\"b\":\"y.z\"}" },
    { "t://f/{a}.txt", "t://f/x.y.txt", "{\"a\":\"x.y\"}" },
    { "t://f/{a}.txt", "t://f/.txt", NULL },
    { "t://f/{a}{b}", "t://f/xyz", "{\"a\":\"x\",\"b\":\"yz\"}" },
    { "t://f/{a}{b}", "t://f/x", NULL },
    { "t://f/{a}", "t://f/%41%2F%C3%A9", "{\"a\":\"A/\\u00e9\"}" },
    { "t://f/{a}", "t://f/%C3", NULL },
    { "t://f/{a}", "t://f/%00", NULL },
    { "t://a", "t://a", "{}" },
    { "t://a", "t://ab", NULL },
    /* A value never cuts an escape or a character: the shortest run that
     * decodes, not the shortest run (found by fuzz-uri-template). */
    { "t://f/{a}{b}", "t://f/}x", "{\"a\":\"}\",\"b\":\"x\"}" },
    { "t://f/{a}{b}", "t://f/%7Dx", "{\"a\":\"}\",\"b\":\"x\"}" },
    { "t://f/{a}{b}", "t://f/%C3%A9x", "{\"a\":\"\u00e9\",\"b\":\"x\"}" },
    { "t://f/{a}{b}", "t://f/\xc3\xa9x", "{\"a\":\"\u00e9\",\"b\":\"x\"}" },
    { "t://g/{a}7{b}", "t://g/%7D7x", "{\"a\":\"}\",\"b\":\"x\"}" },
    { "t://f/{a}{b}", "t://f/%C3", NULL },
    { "t://f/{a}x", "t://f/%zzx", NULL },
    { "t://f/{a}{b}", "t://f/%41%00", NULL },
    { "t://f/{a}{b}", "t://f/%E2%82%AC%E2%82%AC", "{\"a\":\"\u20ac\",\"b\":\"\u20ac\"}" },
    /* A variable the template also cuts with a prefix takes no list or
     * map, which could not expand (found by fuzz-uri-template). */
    { "t://h{?var*}", "t://h?ids=1&ids=2", "{\"var\":{\"ids\":\"2\"}}" },
    { "t://h{?var:1,var*}", "t://h?ids=1&ids=2", NULL },
    { "t://h{/seg*}{?var:1,var*}", "t://h/a/b?ids=1&ids=2", NULL },
    { "t://h{?var:1,var*}", "t://h?var=a", "{\"var\":\"a\"}" },
  };

  g_test_summary ("Matching reverses level-1 expansion: literals as they are, variables as non-empty "
                  "runs without '/', percent-decoded");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (cases[i].template, NULL);
      g_autoptr(JsonObject) variables = snodo_uri_template_match (template, cases[i].uri);

      g_test_message ("%s ~ %s", cases[i].template, cases[i].uri);
      if (cases[i].variables == NULL)
        g_assert_null (variables);
      else
        {
          g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

          g_assert_nonnull (variables);
          json_node_set_object (node, variables);
          assert_json (node, cases[i].variables);
        }
    }
}

static void
test_uri_template_long (void)
{
  g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse ("t://{a}x{b}x{c}x{d}x{e}y", NULL);
  g_autoptr(JsonObject) variables = NULL;
  GString *uri = g_string_new ("t://");
  gint64 start;

  g_test_summary ("Matching a hostile URI of a million characters takes linear time");

  for (guint i = 0; i < 1000000; i++)
    g_string_append_c (uri, 'x');
  start = g_get_monotonic_time ();
  variables = snodo_uri_template_match (template, uri->str);
  g_assert_null (variables);
  g_string_append_c (uri, 'y');
  variables = snodo_uri_template_match (template, uri->str);
  g_assert_nonnull (variables);
  g_assert_cmpstr (json_object_get_string_member (variables, "a"), ==, "x");
  g_assert_cmpint (strlen (json_object_get_string_member (variables, "e")), ==, 1000000 - 8);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 5 * G_USEC_PER_SEC);
  g_string_free (uri, TRUE);
}

/* ---- The store, without a server ---------------------------------------- */

static void
store_handler_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  g_assert_not_reached ();
}

static void
store_destroy_cb (gpointer data)
{
  (*(guint *) data)++;
}

static void
assert_page (SnodoCatalog     *catalog,
             SnodoCatalogList  list,
             const char       *params_json,
             gboolean          with_icons,
             const char       *expected)
{
  g_autoptr(JsonNode) params = snodo_test_parse (params_json);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) page = NULL;

  page = snodo_catalog_list_page (catalog, list, json_node_get_object (params), with_icons, &error);
  g_assert_no_error (error);
  assert_json (page, expected);
}

static void
test_store (void)
{
  SnodoCatalog *catalog = snodo_catalog_new ();
  g_autoptr(SnodoResource) resource = snodo_resource_new ("t://notes/today", "today");
  g_autoptr(SnodoResource) taken = snodo_resource_new ("t://notes/today", "again");
  g_autoptr(SnodoResourceTemplate) notes = snodo_resource_template_new ("t://notes/{day}", "notes");
  g_autoptr(SnodoResourceTemplate) files = snodo_resource_template_new ("t://{kind}/{name}", "files");
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("review", "Reviews a change");
  g_autoptr(JsonNode) icons = snodo_test_parse ("[{\"src\":\"https://example.org/i.png\"}]");
  g_autoptr(JsonObject) variables = NULL;
  g_autoptr(JsonObject) capabilities = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) bad_cursor = snodo_test_parse ("{\"cursor\":\"nope\"}");
  g_autoptr(JsonNode) page = NULL;
  g_autoptr(JsonNode) got = json_node_new (JSON_NODE_OBJECT);
  SnodoCatalogEntry *entry;
  SnodoCatalogFunc func;
  gpointer user_data;
  guint n_destroyed = 0;

  g_test_summary ("The catalog keeps, finds, lists and checks entries on its own, without a server");

  g_assert_false (snodo_catalog_has_resources (catalog));
  g_assert_false (snodo_catalog_has_prompts (catalog));
  g_assert_false (snodo_catalog_has_completion (catalog));

  snodo_resource_set_icons (resource, icons);
  g_assert_true (snodo_catalog_add_resource (catalog, resource, store_handler_cb,
                                             &n_destroyed, store_destroy_cb, &error));
  g_assert_no_error (error);
  g_assert_true (snodo_catalog_add_resource_template (catalog, files, store_handler_cb,
                                                      &n_destroyed, store_destroy_cb, &error));
  g_assert_true (snodo_catalog_add_resource_template (catalog, notes, store_handler_cb,
                                                      &n_destroyed, store_destroy_cb, &error));
  g_assert_true (snodo_catalog_add_prompt (catalog, prompt, store_handler_cb,
                                           &n_destroyed, store_destroy_cb, &error));
  g_assert_no_error (error);

  /* A taken URI is refused, and the refused handler's data freed at once. */
  g_assert_false (snodo_catalog_add_resource (catalog, taken, store_handler_cb,
                                              &n_destroyed, store_destroy_cb, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  g_assert_cmpuint (n_destroyed, ==, 1);

  snodo_catalog_add_capabilities (catalog, capabilities);
  json_node_set_object (got, capabilities);
  assert_json (got, "{\"resources\":{\"subscribe\":true,\"listChanged\":true},"
                    "\"prompts\":{\"listChanged\":true}}");

  /* The exact URI first; then the first template added that matches. */
  entry = snodo_catalog_find_resource (catalog, "t://notes/today", &variables);
  g_assert_nonnull (entry);
  g_assert_true (snodo_catalog_entry_get_description (entry) == SNODO_DESCRIPTION (resource));
  g_assert_cmpuint (json_object_get_size (variables), ==, 0);
  g_assert_true (json_object_is_immutable (variables));
  g_clear_pointer (&variables, json_object_unref);

  entry = snodo_catalog_find_resource (catalog, "t://notes/monday", &variables);
  g_assert_true (snodo_catalog_entry_get_description (entry) == SNODO_DESCRIPTION (files));
  g_assert_cmpstr (json_object_get_string_member (variables, "kind"), ==, "notes");
  g_assert_cmpstr (json_object_get_string_member (variables, "name"), ==, "monday");
  g_clear_pointer (&variables, json_object_unref);
  g_assert_null (snodo_catalog_find_resource (catalog, "t://nothing", &variables));
  g_assert_null (variables);

  entry = snodo_catalog_find_prompt (catalog, "review");
  func = snodo_catalog_entry_get_func (entry, &user_data);
  g_assert_true (func == store_handler_cb);
  g_assert_true (user_data == &n_destroyed);
  g_assert_null (snodo_catalog_find_prompt (catalog, "nothing"));

  /* Lists: in the order added, icons only when asked, a page at a time. */
  assert_page (catalog, SNODO_CATALOG_RESOURCES, "{}", FALSE,
               "{\"resources\":[{\"uri\":\"t://notes/today\",\"name\":\"today\"}]}");
  assert_page (catalog, SNODO_CATALOG_RESOURCES, "{\"cursor\":null}", TRUE,
               "{\"resources\":[{\"uri\":\"t://notes/today\",\"name\":\"today\","
               "\"icons\":[{\"src\":\"https://example.org/i.png\"}]}]}");
  assert_page (catalog, SNODO_CATALOG_PROMPTS, "{}", FALSE,
               "{\"prompts\":[{\"name\":\"review\",\"description\":\"Reviews a change\"}]}");
  snodo_catalog_set_page_size (catalog, 1);
  {
    g_autofree char *second = snodo_cursor_encode ("resourceTemplates", 1);
    g_autofree char *expected = g_strdup_printf ("{\"resourceTemplates\":[{\"uriTemplate\":"
                                                 "\"t://{kind}/{name}\",\"name\":\"files\"}],"
                                                 "\"nextCursor\":\"%s\"}", second);
    g_autofree char *params = g_strdup_printf ("{\"cursor\":\"%s\"}", second);

    assert_page (catalog, SNODO_CATALOG_RESOURCE_TEMPLATES, "{}", FALSE, expected);
    assert_page (catalog, SNODO_CATALOG_RESOURCE_TEMPLATES, params, FALSE,
                 "{\"resourceTemplates\":[{\"uriTemplate\":\"t://notes/{day}\",\"name\":\"notes\"}]}");
  }
  page = snodo_catalog_list_page (catalog, SNODO_CATALOG_RESOURCES,
                                  json_node_get_object (bad_cursor), FALSE, &error);
  g_assert_null (page);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
  g_clear_error (&error);

  /* An entry outlives its removal while someone holds it. */
  entry = snodo_catalog_entry_ref (snodo_catalog_find_prompt (catalog, "review"));
  g_assert_true (snodo_catalog_remove_prompt (catalog, "review"));
  g_assert_false (snodo_catalog_remove_prompt (catalog, "review"));
  g_assert_null (snodo_catalog_find_prompt (catalog, "review"));
  g_assert_false (snodo_catalog_has_prompts (catalog));
  g_assert_cmpuint (n_destroyed, ==, 1);
  snodo_catalog_entry_unref (entry);
  g_assert_cmpuint (n_destroyed, ==, 2);

  /* Removing the resource uncovers the template behind its URI. */
  g_assert_true (snodo_catalog_remove_resource (catalog, "t://notes/today"));
  entry = snodo_catalog_find_resource (catalog, "t://notes/today", &variables);
  g_assert_true (snodo_catalog_entry_get_description (entry) == SNODO_DESCRIPTION (files));
  g_assert_cmpuint (n_destroyed, ==, 3);

  snodo_catalog_set_completion_func (catalog, store_handler_cb, &n_destroyed, store_destroy_cb);
  g_assert_true (snodo_catalog_has_completion (catalog));
  g_assert_null (snodo_catalog_entry_get_description (snodo_catalog_get_completion (catalog)));

  snodo_catalog_free (catalog);
  g_assert_cmpuint (n_destroyed, ==, 6);
}

/* ---- In process: a transport over pipes --------------------------------- */

typedef struct
{
  SnodoTestPipe        pipe;
  /* What handlers and destroy notifies saw. */
  guint                n_destroyed;
  SnodoInvocation     *held;
} Fixture;

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  snodo_test_pipe_set_up (&fixture->pipe);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
}

static void
fixture_send (Fixture    *fixture,
              const char *method,
              const char *params)
{
  g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"%s\"%s%s}\n",
                                           fixture->pipe.next_id++, method,
                                           params ? ",\"params\":" : "", params ? params : "");
  snodo_test_pipe_write (&fixture->pipe, line);
}

/* Sends a request and reads its answer. */
static JsonNode *
fixture_call (Fixture    *fixture,
              const char *method,
              const char *params)
{
  JsonNode *answer;

  fixture_send (fixture, method, params);
  answer = snodo_test_pipe_read (&fixture->pipe);
  g_assert_cmpint (test_message_get_id (answer), ==, fixture->pipe.next_id - 1);
  return answer;
}

static JsonObject *
fixture_initialize (Fixture    *fixture,
                    const char *version)
{
  g_autofree char *params = g_strdup_printf ("{\"protocolVersion\":\"%s\",\"capabilities\":{},"
                                             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}", version);
  g_autoptr(JsonNode) answer = fixture_call (fixture, "initialize", params);
  JsonObject *capabilities = json_object_get_object_member (get_result (answer), "capabilities");

  return json_object_ref (capabilities);
}

static void
count_destroy_cb (gpointer data)
{
  ((Fixture *) data)->n_destroyed++;
}

static const char *
or_null (const char *text)
{
  return text != NULL ? text : "(null)";
}

/* Answers with what the invocation says about the request. */
static void
describe_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  g_autoptr(JsonNode) arguments = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) variables = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *arguments_text = NULL;
  g_autofree char *variables_text = NULL;
  g_autofree char *text = NULL;

  json_node_set_object (arguments, snodo_invocation_get_arguments (invocation));
  json_node_set_object (variables, snodo_invocation_get_variables (invocation));
  arguments_text = json_to_string (arguments, FALSE);
  variables_text = json_to_string (variables, FALSE);
  text = g_strdup_printf ("%s|%s|%s|%s", or_null (snodo_invocation_get_name (invocation)),
                          or_null (snodo_invocation_get_uri (invocation)), arguments_text, variables_text);

  if (g_str_equal (snodo_invocation_get_method (invocation), "resources/read"))
    snodo_invocation_return_resource_text (invocation, NULL, NULL, text);
  else
    {
      const char *values[] = { text, NULL };

      snodo_invocation_return_completion (invocation, values, -1, FALSE);
    }
}

static const char *
answer_text (JsonNode *answer)
{
  JsonObject *result = get_result (answer);

  if (json_object_has_member (result, "contents"))
    return json_object_get_string_member (json_array_get_object_element (json_object_get_array_member (result,
                                                                                                       "contents"), 0),
                                          "text");
  return json_array_get_string_element (json_object_get_array_member (json_object_get_object_member (result,
                                                                                                      "completion"),
                                                                      "values"), 0);
}

static void
add_resource (Fixture    *fixture,
              const char *uri,
              const char *name)
{
  g_autoptr(SnodoResource) resource = snodo_resource_new (uri, name);
  g_autoptr(GError) error = NULL;

  g_assert_true (snodo_server_add_resource (fixture->pipe.server, resource, describe_cb, fixture,
                                            count_destroy_cb, &error));
  g_assert_no_error (error);
}

static void
add_template (Fixture    *fixture,
              const char *uri_template,
              const char *name)
{
  g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new (uri_template, name);
  g_autoptr(GError) error = NULL;

  g_assert_true (snodo_server_add_resource_template (fixture->pipe.server, template, describe_cb, fixture,
                                                     count_destroy_cb, &error));
  g_assert_no_error (error);
}

static void
test_pagination (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *cursor = NULL;
  guint seen = 0;
  guint pages = 0;
  static const char *const bad[] = {
    "\"Zm9v\"", "\"not base64!\"", "42", "{}",
    /* resources:100, but not in the exact form the server writes it. */
    "\"cmVzb3VyY2VzOjEwMA\"", "\" cmVzb3VyY2VzOjEwMA==\"",
  };

  g_test_summary ("250 resources come in pages of 100 in order, nextCursor only while more remain; a forged "
                  "cursor, a cursor of another list and a cursor past the end are -32602; \"\" is the first page");

  for (guint i = 0; i < 250; i++)
    {
      g_autofree char *uri = g_strdup_printf ("test://item/%03u", i);
      g_autofree char *name = g_strdup_printf ("item %u", i);

      add_resource (fixture, uri, name);
    }
  json_object_unref (fixture_initialize (fixture, "2025-11-25"));

  do
    {
      g_autofree char *params = cursor ? g_strdup_printf ("{\"cursor\":\"%s\"}", cursor) : NULL;
      g_autoptr(JsonNode) answer = fixture_call (fixture, "resources/list", params);
      JsonObject *result = get_result (answer);
      JsonArray *resources = json_object_get_array_member (result, "resources");

      g_assert_cmpuint (json_array_get_length (resources), ==, pages < 2 ? 100 : 50);
      for (guint i = 0; i < json_array_get_length (resources); i++)
        {
          g_autofree char *uri = g_strdup_printf ("test://item/%03u", seen++);

          g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (resources, i), "uri"),
                           ==, uri);
        }
      g_clear_pointer (&cursor, g_free);
      if (json_object_has_member (result, "nextCursor"))
        cursor = g_strdup (json_object_get_string_member (result, "nextCursor"));
      pages++;
    }
  while (cursor != NULL);
  g_assert_cmpuint (pages, ==, 3);
  g_assert_cmpuint (seen, ==, 250);

  /* "" and null are the first page. */
  {
    g_autoptr(JsonNode) empty = fixture_call (fixture, "resources/list", "{\"cursor\":\"\"}");
    g_autoptr(JsonNode) null = fixture_call (fixture, "resources/list", "{\"cursor\":null}");

    g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                       json_object_get_array_member (get_result (empty), "resources"), 0), "uri"), ==, "test://item/000");
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (get_result (null), "resources")), ==, 100);
  }

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *params = g_strdup_printf ("{\"cursor\":%s}", bad[i]);
      g_autoptr(JsonNode) answer = fixture_call (fixture, "resources/list", params);

      g_test_message ("cursor %s", bad[i]);
      assert_error (answer, -32602, NULL);
    }

  /* Another list's cursor, a cursor past the end, and a real cursor of
   * resources given to another list. */
  {
    g_autofree char *prompts = snodo_cursor_encode ("prompts", 100);
    g_autofree char *end = snodo_cursor_encode ("resources", 250);
    g_autofree char *far = snodo_cursor_encode ("resources", 100000);
    g_autofree char *good = snodo_cursor_encode ("resources", 200);
    const char *cursors[] = { prompts, end, far };
    g_autofree char *params = g_strdup_printf ("{\"cursor\":\"%s\"}", good);
    g_autoptr(JsonNode) page = fixture_call (fixture, "resources/list", params);
    g_autoptr(JsonNode) templates = fixture_call (fixture, "resources/templates/list", params);

    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (get_result (page), "resources")), ==, 50);
    assert_error (templates, -32602, "Invalid params: invalid cursor");
    for (guint i = 0; i < G_N_ELEMENTS (cursors); i++)
      {
        g_autofree char *bad_params = g_strdup_printf ("{\"cursor\":\"%s\"}", cursors[i]);
        g_autoptr(JsonNode) answer = fixture_call (fixture, "resources/list", bad_params);

        assert_error (answer, -32602, "Invalid params: invalid cursor");
      }
  }

  /* The page size is a setting of the catalog. */
  {
    g_autoptr(JsonNode) answer = NULL;
    g_autofree char *next = snodo_cursor_encode ("resources", 7);

    snodo_catalog_set_page_size (snodo_server_get_catalog (fixture->pipe.server), 7);
    answer = fixture_call (fixture, "resources/list", NULL);
    g_assert_cmpuint (json_array_get_length (json_object_get_array_member (get_result (answer), "resources")), ==, 7);
    g_assert_cmpstr (json_object_get_string_member (get_result (answer), "nextCursor"), ==, next);
  }
}

static void
test_capabilities (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  g_autoptr(JsonObject) none = NULL;
  g_autoptr(JsonObject) resources = NULL;
  g_autoptr(JsonObject) all = NULL;
  g_autoptr(JsonObject) after = NULL;

  g_test_summary ("initialize offers resources, prompts and completions exactly while some are registered");

  none = fixture_initialize (fixture, "2025-11-25");
  g_assert_false (json_object_has_member (none, "resources"));
  g_assert_false (json_object_has_member (none, "prompts"));
  g_assert_false (json_object_has_member (none, "completions"));

  /* A template alone is enough for resources. */
  add_template (fixture, "test://t/{x}", "t");
  resources = fixture_initialize (fixture, "2025-11-25");
  assert_json (json_object_get_member (resources, "resources"), "{\"subscribe\":true,\"listChanged\":true}");
  g_assert_false (json_object_has_member (resources, "prompts"));

  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, describe_cb, NULL, NULL, NULL));
  snodo_server_set_completion_func (fixture->pipe.server, describe_cb, NULL, NULL);
  all = fixture_initialize (fixture, "2025-11-25");
  assert_json (json_object_get_member (all, "prompts"), "{\"listChanged\":true}");
  assert_json (json_object_get_member (all, "completions"), "{}");

  g_assert_true (snodo_server_remove_resource_template (fixture->pipe.server, "test://t/{x}"));
  g_assert_false (snodo_server_remove_resource_template (fixture->pipe.server, "test://t/{x}"));
  g_assert_true (snodo_server_remove_prompt (fixture->pipe.server, "p"));
  g_assert_false (snodo_server_remove_prompt (fixture->pipe.server, "p"));
  snodo_server_set_completion_func (fixture->pipe.server, NULL, NULL, NULL);
  after = fixture_initialize (fixture, "2025-11-25");
  g_assert_false (json_object_has_member (after, "resources"));
  g_assert_false (json_object_has_member (after, "prompts"));
  g_assert_false (json_object_has_member (after, "completions"));
}

static void
test_registration (Fixture       *fixture,
                   gconstpointer  data)
{
  static const struct {
    const char *uri;
    const char *annotations;
    const char *icons;
  } refused[] = {
    { "relative/path", NULL, NULL },
    { "test://a", "{\"audience\":[\"robot\"]}", NULL },
    { "test://a", "{\"audience\":\"user\"}", NULL },
    { "test://a", "{\"priority\":2}", NULL },
    { "test://a", "{\"priority\":\"high\"}", NULL },
    { "test://a", "{\"lastModified\":\"yesterday\"}", NULL },
    { "test://a", NULL, "[\"https://x/i.png\"]" },
    { "test://a", NULL, "[{\"mimeType\":\"image/png\"}]" },
    { "test://a", NULL, "[{\"src\":\"https://x/i.png\",\"theme\":\"blue\"}]" },
    { "test://a", NULL, "[{\"src\":\"https://x/i.png\",\"sizes\":\"48x48\"}]" },
    { "test://a", NULL, "[{\"src\":\"https://x/i.png\",\"mimeType\":3}]" },
  };
  g_autoptr(SnodoResource) taken = snodo_resource_new ("test://a", "again");
  g_autoptr(SnodoResourceTemplate) bad_template = snodo_resource_template_new ("test://t/{x", "t");
  g_autoptr(SnodoPrompt) unnamed = snodo_prompt_new ("", NULL);
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  g_autoptr(GError) error = NULL;

  g_test_summary ("Invalid URIs, templates, annotations and icons, and taken keys are refused with an error, "
                  "and the destroy notify runs at once");

  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autoptr(SnodoResource) resource = snodo_resource_new (refused[i].uri, "r");
      g_autoptr(JsonNode) annotations = refused[i].annotations ? snodo_test_parse (refused[i].annotations) : NULL;
      g_autoptr(JsonNode) icons = refused[i].icons ? snodo_test_parse (refused[i].icons) : NULL;
      g_autoptr(GError) local_error = NULL;

      snodo_resource_set_annotations (resource, annotations);
      snodo_resource_set_icons (resource, icons);
      g_assert_false (snodo_server_add_resource (fixture->pipe.server, resource, describe_cb, fixture,
                                                 count_destroy_cb, &local_error));
      g_assert_error (local_error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
      g_assert_cmpuint (fixture->n_destroyed, ==, i + 1);
    }
  fixture->n_destroyed = 0;

  add_resource (fixture, "test://a", "a");
  g_assert_false (snodo_server_add_resource (fixture->pipe.server, taken, describe_cb, fixture, count_destroy_cb, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  g_assert_cmpuint (fixture->n_destroyed, ==, 1);

  g_assert_false (snodo_server_add_resource_template (fixture->pipe.server, bad_template, describe_cb, NULL, NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);
  add_template (fixture, "test://t/{x}", "t");
  add_template (fixture, "test://u/{x}", "u");
  {
    g_autoptr(SnodoResourceTemplate) again = snodo_resource_template_new ("test://t/{x}", "again");

    g_assert_false (snodo_server_add_resource_template (fixture->pipe.server, again, describe_cb, NULL, NULL, &error));
    g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
    g_clear_error (&error);
  }

  g_assert_false (snodo_server_add_prompt (fixture->pipe.server, unnamed, describe_cb, NULL, NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, describe_cb, NULL, NULL, &error));
  g_assert_false (snodo_server_add_prompt (fixture->pipe.server, prompt, describe_cb, NULL, NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
  g_clear_error (&error);
  {
    g_autoptr(JsonNode) list = fixture_call (fixture, "prompts/list", NULL);

    /* No "arguments" for a prompt without any. */
    assert_result (list, "{\"prompts\":[{\"name\":\"p\"}]}");
  }

  /* Removing, then adding again, puts an item at the end of its list. */
  g_assert_true (snodo_server_remove_resource_template (fixture->pipe.server, "test://t/{x}"));
  add_template (fixture, "test://t/{x}", "t2");
  {
    g_autoptr(JsonNode) list = fixture_call (fixture, "resources/templates/list", NULL);

    assert_result (list, "{\"resourceTemplates\":[{\"uriTemplate\":\"test://u/{x}\",\"name\":\"u\"},"
                         "{\"uriTemplate\":\"test://t/{x}\",\"name\":\"t2\"}]}");
  }
  g_assert_true (snodo_server_remove_resource (fixture->pipe.server, "test://a"));
  g_assert_false (snodo_server_remove_resource (fixture->pipe.server, "test://a"));
  /* The removed template and resource are gone, and their data with them. */
  g_assert_cmpuint (fixture->n_destroyed, ==, 3);
}

static void
test_descriptions (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(SnodoResource) resource = snodo_resource_new ("test://r", "r");
  g_autoptr(SnodoResourceTemplate) template = snodo_resource_template_new ("test://t/{x}", "t");
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", "A prompt");
  g_autoptr(JsonNode) annotations = snodo_test_parse ("{\"audience\":[\"user\",\"assistant\"],\"priority\":0.5,"
                                                      "\"lastModified\":\"2026-01-02T03:04:05Z\"}");
  g_autoptr(JsonNode) icons = snodo_test_parse ("[{\"src\":\"https://example.com/i.png\",\"mimeType\":\"image/png\","
                                                "\"sizes\":[\"48x48\"],\"theme\":\"dark\"}]");
  const char *versions[] = { "2025-06-18", "2025-11-25" };
  g_autofree char *annotations_text = json_to_string (annotations, FALSE);
  g_autofree char *icons_text = json_to_string (icons, FALSE);

  g_test_summary ("Lists carry every field that is set, omit the others, and carry icons only from 2025-11-25");

  snodo_resource_set_title (resource, "R");
  snodo_resource_set_description (resource, "About r");
  snodo_resource_set_mime_type (resource, "text/plain");
  snodo_resource_set_size (resource, 12);
  snodo_resource_set_annotations (resource, annotations);
  snodo_resource_set_icons (resource, icons);
  snodo_resource_template_set_title (template, "T");
  snodo_resource_template_set_annotations (template, annotations);
  snodo_resource_template_set_icons (template, icons);
  snodo_prompt_set_title (prompt, "P");
  snodo_prompt_set_icons (prompt, icons);
  snodo_prompt_add_argument (prompt, "a", NULL, FALSE);
  snodo_prompt_add_argument (prompt, "b", "The b", TRUE);
  g_assert_true (snodo_server_add_resource (fixture->pipe.server, resource, describe_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_resource_template (fixture->pipe.server, template, describe_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, describe_cb, NULL, NULL, NULL));
  add_resource (fixture, "test://plain", "plain");

  for (guint v = 0; v < G_N_ELEMENTS (versions); v++)
    {
      gboolean icons_sent = v == 1;
      g_autofree char *resources_json = g_strdup_printf (
        "{\"resources\":[{\"uri\":\"test://r\",\"name\":\"r\",\"title\":\"R\",\"description\":\"About r\","
        "\"mimeType\":\"text/plain\",\"size\":12,\"annotations\":%s%s%s},{\"uri\":\"test://plain\",\"name\":\"plain\"}]}",
        annotations_text, icons_sent ? ",\"icons\":" : "", icons_sent ? icons_text : "");
      g_autofree char *templates_json = g_strdup_printf (
        "{\"resourceTemplates\":[{\"uriTemplate\":\"test://t/{x}\",\"name\":\"t\",\"title\":\"T\",\"annotations\":%s%s%s}]}",
        annotations_text, icons_sent ? ",\"icons\":" : "", icons_sent ? icons_text : "");
      g_autofree char *prompts_json = g_strdup_printf (
        "{\"prompts\":[{\"name\":\"p\",\"title\":\"P\",\"description\":\"A prompt\","
        "\"arguments\":[{\"name\":\"a\"},{\"name\":\"b\",\"description\":\"The b\",\"required\":true}]%s%s}]}",
        icons_sent ? ",\"icons\":" : "", icons_sent ? icons_text : "");
      g_autoptr(JsonObject) capabilities = fixture_initialize (fixture, versions[v]);
      g_autoptr(JsonNode) resources = fixture_call (fixture, "resources/list", NULL);
      g_autoptr(JsonNode) templates = fixture_call (fixture, "resources/templates/list", NULL);
      g_autoptr(JsonNode) prompts = fixture_call (fixture, "prompts/list", NULL);

      g_test_message ("version %s", versions[v]);
      assert_result (resources, resources_json);
      assert_result (templates, templates_json);
      assert_result (prompts, prompts_json);
    }
}

static void
test_read_levels (Fixture       *fixture,
                  gconstpointer  data)
{
  g_test_summary ("resources/read through RFC 6570 templates of levels 2 to 4: query, path and explode "
                  "variables reach the handler, lists as JSON arrays, maps as JSON objects");

  add_template (fixture, "test://search{?q,page}", "search");
  add_template (fixture, "test://files{/seg*}", "files");
  add_template (fixture, "test://f/{+path}{?opt*}", "f");

  {
    g_autoptr(JsonNode) query = fixture_call (fixture, "resources/read",
                                              "{\"uri\":\"test://search?q=red%20fish&page=2\"}");
    g_autoptr(JsonNode) partial = fixture_call (fixture, "resources/read", "{\"uri\":\"test://search?page=3\"}");
    g_autoptr(JsonNode) segments = fixture_call (fixture, "resources/read", "{\"uri\":\"test://files/a/b%2Fc/d\"}");
    g_autoptr(JsonNode) reserved = fixture_call (fixture, "resources/read",
                                                 "{\"uri\":\"test://f/x/y.txt?mode=r&n=1\"}");
    g_autoptr(JsonNode) extra = fixture_call (fixture, "resources/read",
                                              "{\"uri\":\"test://search?q=a&page=2&more=1\"}");

    g_assert_cmpstr (answer_text (query), ==,
                     "search|test://search?q=red%20fish&page=2|{}|{\"q\":\"red fish\",\"page\":\"2\"}");
    g_assert_cmpstr (answer_text (partial), ==, "search|test://search?page=3|{}|{\"page\":\"3\"}");
    g_assert_cmpstr (answer_text (segments), ==,
                     "files|test://files/a/b%2Fc/d|{}|{\"seg\":[\"a\",\"b/c\",\"d\"]}");
    g_assert_cmpstr (answer_text (reserved), ==,
                     "f|test://f/x/y.txt?mode=r&n=1|{}|{\"path\":\"x/y.txt\",\"opt\":{\"mode\":\"r\",\"n\":\"1\"}}");
    assert_error (extra, -32002, NULL);
  }
}

/* The ttlMs and cacheScope of @answer's result: "500/private", or "-" when
 * it has neither. */
static char *
cache_hint (JsonNode *answer)
{
  JsonObject *result = get_result (answer);

  if (!json_object_has_member (result, "ttlMs") && !json_object_has_member (result, "cacheScope"))
    return g_strdup ("-");
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%s", json_object_get_int_member (result, "ttlMs"),
                          json_object_get_string_member (result, "cacheScope"));
}

static void
test_cache_hints (Fixture       *fixture,
                  gconstpointer  data)
{
  gboolean modern = GPOINTER_TO_INT (data);
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  static const struct { const char *method, *params, *modern, *legacy; } cases[] = {
    { "tools/list", NULL, "3600000/public", "-" },
    { "resources/list", NULL, "500/private", "-" },
    { "resources/templates/list", NULL, "0/private", "-" },
    { "prompts/list", NULL, "20/public", "-" },
    { "resources/read", "\"uri\":\"test://a\"", "1000/public", "-" },
    { "resources/read", "\"uri\":\"test://t/x\"", "1000/public", "-" },
    /* Their own hints. */
    { "resources/read", "\"uri\":\"test://own\"", "5/private", "-" },
    { "resources/read", "\"uri\":\"test://u/x\"", "0/public", "-" },
  };
  g_autoptr(SnodoResource) own = snodo_resource_new ("test://own", "own");
  g_autoptr(SnodoResourceTemplate) own_template = snodo_resource_template_new ("test://u/{x}", "u");

  g_test_summary ("2026-07-28 read results carry the cache hint of their resource or template, list and "
                  "read results that set for their method, else the server's cache-ttl and private; "
                  "results of 2025 versions carry none");

  snodo_server_set_cache_ttl (fixture->pipe.server, 500);
  snodo_server_set_cache_hint (fixture->pipe.server, "tools/list", 3600000, SNODO_CACHE_SCOPE_PUBLIC);
  snodo_server_set_cache_hint (fixture->pipe.server, "resources/templates/list", 0, SNODO_CACHE_SCOPE_PRIVATE);
  snodo_server_set_cache_hint (fixture->pipe.server, "prompts/list", 20, SNODO_CACHE_SCOPE_PUBLIC);
  snodo_server_set_cache_hint (fixture->pipe.server, "resources/read", 1000, SNODO_CACHE_SCOPE_PUBLIC);
  /* Set and then unset: the server-wide default again. */
  snodo_server_set_cache_hint (fixture->pipe.server, "resources/list", 7, SNODO_CACHE_SCOPE_PUBLIC);
  snodo_server_set_cache_hint (fixture->pipe.server, "resources/list", -1, SNODO_CACHE_SCOPE_PRIVATE);
  add_resource (fixture, "test://a", "a");
  add_template (fixture, "test://t/{x}", "t");
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, describe_cb, NULL, NULL, NULL));
  snodo_resource_set_cache_ttl (own, 5);
  g_object_set (own_template, "cache-ttl", 0, "cache-scope", SNODO_CACHE_SCOPE_PUBLIC, NULL);
  g_assert_true (snodo_server_add_resource (fixture->pipe.server, own, describe_cb, NULL, NULL, NULL));
  g_assert_true (snodo_server_add_resource_template (fixture->pipe.server, own_template, describe_cb, NULL,
                                                     NULL, NULL));

  if (!modern)
    json_object_unref (fixture_initialize (fixture, "2025-11-25"));

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) answer = snodo_test_pipe_call (&fixture->pipe, modern, cases[i].method, cases[i].params);
      g_autofree char *hint = cache_hint (answer);

      g_assert_cmpstr (hint, ==, modern ? cases[i].modern : cases[i].legacy);
    }
}

static void
test_read_order (Fixture       *fixture,
                 gconstpointer  data)
{
  g_test_summary ("An exact resource wins over templates; among templates the first added that matches; "
                  "the handler sees the name, the URI and the variables");

  /* Keeps resources offered when the others are gone. */
  add_resource (fixture, "other://x", "other");
  add_template (fixture, "test://x/{a}", "first");
  add_template (fixture, "test://{host}/{b}", "second");
  add_resource (fixture, "test://x/exact", "exact");

  {
    g_autoptr(JsonNode) exact = fixture_call (fixture, "resources/read", "{\"uri\":\"test://x/exact\"}");
    g_autoptr(JsonNode) first = fixture_call (fixture, "resources/read", "{\"uri\":\"test://x/y\"}");
    g_autoptr(JsonNode) second = fixture_call (fixture, "resources/read", "{\"uri\":\"test://z/y\"}");

    g_assert_cmpstr (answer_text (exact), ==, "exact|test://x/exact|{}|{}");
    g_assert_cmpstr (answer_text (first), ==, "first|test://x/y|{}|{\"a\":\"y\"}");
    g_assert_cmpstr (answer_text (second), ==, "second|test://z/y|{}|{\"host\":\"z\",\"b\":\"y\"}");
  }

  g_assert_true (snodo_server_remove_resource_template (fixture->pipe.server, "test://x/{a}"));
  g_assert_true (snodo_server_remove_resource (fixture->pipe.server, "test://x/exact"));
  {
    g_autoptr(JsonNode) exact = fixture_call (fixture, "resources/read", "{\"uri\":\"test://x/exact\"}");

    g_assert_cmpstr (answer_text (exact), ==, "second|test://x/exact|{}|{\"host\":\"x\",\"b\":\"exact\"}");
  }
  g_assert_true (snodo_server_remove_resource_template (fixture->pipe.server, "test://{host}/{b}"));
  {
    g_autoptr(JsonNode) gone = fixture_call (fixture, "resources/read", "{\"uri\":\"test://x/exact\"}");

    assert_error (gone, -32002, "Resource not found: test://x/exact");
  }
}

static void
hold_cb (SnodoInvocation *invocation,
         gpointer         user_data)
{
  Fixture *fixture = user_data;

  g_assert_null (fixture->held);
  fixture->held = invocation;
}

static gboolean
answer_later_cb (gpointer data)
{
  Fixture *fixture = data;
  static const guint8 bytes[] = { 0x00, 0x01, 0xff };
  g_autoptr(GBytes) blob = g_bytes_new_static (bytes, sizeof bytes);

  snodo_invocation_return_resource_blob (g_steal_pointer (&fixture->held), "test://other", "application/x-test", blob);
  return G_SOURCE_REMOVE;
}

static void
test_answer_later (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(SnodoResource) resource = snodo_resource_new ("test://later", "later");
  g_autoptr(JsonNode) answer = NULL;

  g_test_summary ("A handler may answer later, here in base64; removing its resource meanwhile keeps "
                  "its data until the answer is written");

  g_assert_true (snodo_server_add_resource (fixture->pipe.server, resource, hold_cb, fixture, count_destroy_cb, NULL));
  fixture_send (fixture, "resources/read", "{\"uri\":\"test://later\"}");
  while (fixture->held == NULL)
    g_main_context_iteration (NULL, TRUE);

  g_assert_true (snodo_server_remove_resource (fixture->pipe.server, "test://later"));
  g_assert_cmpuint (fixture->n_destroyed, ==, 0);

  g_idle_add (answer_later_cb, fixture);
  answer = snodo_test_pipe_read (&fixture->pipe);
  assert_result (answer, "{\"contents\":[{\"uri\":\"test://other\",\"mimeType\":\"application/x-test\","
                         "\"blob\":\"AAH/\"}]}");
  for (guint i = 0; i < 1000 && fixture->n_destroyed == 0; i++)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  g_assert_cmpuint (fixture->n_destroyed, ==, 1);
}

static void
prompt_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  g_autoptr(JsonNode) messages = snodo_test_parse ("[]");
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autofree char *arguments_text = NULL;
  g_autofree char *text = NULL;

  json_node_set_object (node, arguments);
  arguments_text = json_to_string (node, FALSE);
  text = g_strdup_printf ("%s %s", snodo_invocation_get_name (invocation), arguments_text);
  /* Without a description when asked to be quiet. */
  snodo_invocation_return_prompt (invocation, json_object_has_member (arguments, "quiet") ? NULL : text, messages);
}

static void
test_prompt_arguments (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("p", NULL);
  g_autoptr(JsonNode) all = NULL;
  g_autoptr(JsonNode) required_only = NULL;
  g_autoptr(JsonNode) quiet = NULL;
  g_autoptr(JsonNode) unknown = NULL;

  g_test_summary ("prompts/get gives the handler the name and the string arguments; optional ones may be "
                  "missing, undeclared ones pass; the description is optional");

  snodo_prompt_add_argument (prompt, "must", NULL, TRUE);
  snodo_prompt_add_argument (prompt, "may", NULL, FALSE);
  g_assert_true (snodo_server_add_prompt (fixture->pipe.server, prompt, prompt_cb, NULL, NULL, NULL));

  all = fixture_call (fixture, "prompts/get", "{\"name\":\"p\",\"arguments\":{\"must\":\"1\",\"may\":\"2\",\"x\":\"3\"}}");
  assert_result (all, "{\"description\":\"p {\\\"must\\\":\\\"1\\\",\\\"may\\\":\\\"2\\\",\\\"x\\\":\\\"3\\\"}\","
                      "\"messages\":[]}");
  required_only = fixture_call (fixture, "prompts/get", "{\"name\":\"p\",\"arguments\":{\"must\":\"\"}}");
  assert_result (required_only, "{\"description\":\"p {\\\"must\\\":\\\"\\\"}\",\"messages\":[]}");
  quiet = fixture_call (fixture, "prompts/get", "{\"name\":\"p\",\"arguments\":{\"must\":\"\",\"quiet\":\"\"}}");
  assert_result (quiet, "{\"messages\":[]}");
  unknown = fixture_call (fixture, "prompts/get", "{\"name\":\"P\",\"arguments\":{\"must\":\"\"}}");
  assert_error (unknown, -32602, "Unknown prompt: P");
}

static void
many_values_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  const char *mode = json_object_get_string_member (json_object_get_object_member (params, "argument"), "value");
  g_autoptr(GPtrArray) values = g_ptr_array_new_null_terminated (0, g_free, TRUE);

  for (guint i = 0; i < 150; i++)
    g_ptr_array_add (values, g_strdup_printf ("v%u", i));
  if (g_str_equal (mode, "all"))
    snodo_invocation_return_completion (invocation, (const char * const *) values->pdata, -1, FALSE);
  else if (g_str_equal (mode, "known"))
    snodo_invocation_return_completion (invocation, (const char * const *) values->pdata, 1000, TRUE);
  else
    {
      g_ptr_array_set_size (values, 3);
      snodo_invocation_return_completion (invocation, (const char * const *) values->pdata, -1, TRUE);
    }
}

static JsonObject *
completion_of (JsonNode *answer)
{
  return json_object_get_object_member (get_result (answer), "completion");
}

#define COMPLETION_REQUEST "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"p\"},\"argument\":{\"name\":\"a\",\"value\":\"%s\"}%s}"

static void
test_completion (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autofree char *all_params = g_strdup_printf (COMPLETION_REQUEST, "all", "");
  g_autofree char *known_params = g_strdup_printf (COMPLETION_REQUEST, "known", "");
  g_autofree char *few_params = g_strdup_printf (COMPLETION_REQUEST, "few", "");
  g_autofree char *context_params = g_strdup_printf (COMPLETION_REQUEST, "x", ",\"context\":{\"arguments\":{\"b\":\"2\"}}");
  g_autoptr(JsonNode) none = NULL;
  g_autoptr(JsonNode) all = NULL;
  g_autoptr(JsonNode) known = NULL;
  g_autoptr(JsonNode) few = NULL;
  g_autoptr(JsonNode) context = NULL;
  JsonObject *completion;

  g_test_summary ("At most 100 values are sent, with hasMore when some were cut; total as given; the "
                  "handler sees context.arguments; replacing the handler frees its data");

  /* Without a handler the method is hidden (-32601), or answers nothing. */
  none = fixture_call (fixture, "completion/complete", all_params);
  if (test_message_get_error_code (none) != -32601)
    assert_result (none, "{\"completion\":{\"values\":[]}}");

  snodo_server_set_completion_func (fixture->pipe.server, many_values_cb, fixture, count_destroy_cb);
  all = fixture_call (fixture, "completion/complete", all_params);
  completion = completion_of (all);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (completion, "values")), ==, 100);
  g_assert_cmpstr (json_array_get_string_element (json_object_get_array_member (completion, "values"), 99), ==, "v99");
  g_assert_cmpint (json_object_get_int_member (completion, "total"), ==, 150);
  g_assert_true (json_object_get_boolean_member (completion, "hasMore"));

  known = fixture_call (fixture, "completion/complete", known_params);
  completion = completion_of (known);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (completion, "values")), ==, 100);
  g_assert_cmpint (json_object_get_int_member (completion, "total"), ==, 1000);
  g_assert_true (json_object_get_boolean_member (completion, "hasMore"));

  few = fixture_call (fixture, "completion/complete", few_params);
  assert_result (few, "{\"completion\":{\"values\":[\"v0\",\"v1\",\"v2\"],\"hasMore\":true}}");

  g_assert_cmpuint (fixture->n_destroyed, ==, 0);
  snodo_server_set_completion_func (fixture->pipe.server, describe_cb, NULL, NULL);
  g_assert_cmpuint (fixture->n_destroyed, ==, 1);
  context = fixture_call (fixture, "completion/complete", context_params);
  g_assert_cmpstr (answer_text (context), ==, "(null)|(null)|{\"b\":\"2\"}|{}");

  /* Setting no handler frees the data given with it at once. */
  snodo_server_set_completion_func (fixture->pipe.server, NULL, fixture, count_destroy_cb);
  g_assert_cmpuint (fixture->n_destroyed, ==, 2);
}

/* A tool declared from JSON text in one call: listed with its schema,
 * called, and refused (its data freed) when the text is not a schema. */
static void
greet_cb (SnodoInvocation *invocation,
          gpointer         user_data)
{
  g_autofree char *text = g_strdup_printf ("Hello, %s!",
                                           json_object_get_string_member (snodo_invocation_get_arguments (invocation),
                                                                          "name"));

  snodo_invocation_return_text (invocation, text);
}

static void
test_tool_from_string (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonObject) capabilities = NULL;
  g_autoptr(JsonNode) listed = NULL;
  g_autoptr(JsonNode) called = NULL;
  g_autoptr(JsonNode) refused_call = NULL;

  g_assert_true (snodo_server_add_tool_from_string (fixture->pipe.server, "greet", "Greets someone by name",
                                                    "{\"type\":\"object\",\"properties\":{\"name\":"
                                                    "{\"type\":\"string\"}},\"required\":[\"name\"]}",
                                                    greet_cb, fixture, count_destroy_cb, &error));
  g_assert_no_error (error);

  g_assert_false (snodo_server_add_tool_from_string (fixture->pipe.server, "broken", NULL, "{\"type\":",
                                                     greet_cb, fixture, count_destroy_cb, &error));
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR);
  g_clear_error (&error);
  g_assert_false (snodo_server_add_tool_from_string (fixture->pipe.server, "array", NULL, "{\"type\":\"array\"}",
                                                     greet_cb, fixture, count_destroy_cb, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);
  g_assert_false (snodo_server_add_tool_from_string (fixture->pipe.server, "greet", NULL, NULL,
                                                     greet_cb, fixture, count_destroy_cb, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_ALREADY_REGISTERED);
  g_assert_cmpuint (fixture->n_destroyed, ==, 3);
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, "broken"));

  capabilities = fixture_initialize (fixture, "2025-11-25");
  listed = fixture_call (fixture, "tools/list", NULL);
  assert_result (listed, "{\"tools\":[{\"name\":\"greet\",\"description\":\"Greets someone by name\","
                         "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                         "\"required\":[\"name\"]}}]}");
  called = fixture_call (fixture, "tools/call", "{\"name\":\"greet\",\"arguments\":{\"name\":\"Ada\"}}");
  assert_result (called, "{\"content\":[{\"type\":\"text\",\"text\":\"Hello, Ada!\"}]}");
  refused_call = fixture_call (fixture, "tools/call", "{\"name\":\"greet\",\"arguments\":{}}");
  g_assert_true (json_object_get_boolean_member (get_result (refused_call), "isError"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/catalog/demo/capabilities", test_demo_capabilities);
  g_test_add_func ("/snodo/catalog/demo/resources", test_demo_resources);
  g_test_add_func ("/snodo/catalog/demo/resource-errors", test_demo_resource_errors);
  g_test_add_func ("/snodo/catalog/demo/prompts", test_demo_prompts);
  g_test_add_func ("/snodo/catalog/demo/completion", test_demo_completion);

  g_test_add_func ("/snodo/catalog/uri-template/parse", test_uri_template_parse);
  g_test_add_func ("/snodo/catalog/uri-template/match", test_uri_template_match);
  g_test_add_func ("/snodo/catalog/uri-template/long", test_uri_template_long);
  g_test_add_func ("/snodo/catalog/store", test_store);

#define ADD(path, func) \
  g_test_add ("/snodo/catalog/" path, Fixture, NULL, fixture_set_up, func, fixture_tear_down)

  ADD ("pagination", test_pagination);
  ADD ("capabilities", test_capabilities);
  ADD ("registration", test_registration);
  ADD ("descriptions", test_descriptions);
  ADD ("read-order", test_read_order);
  ADD ("read-levels", test_read_levels);
  g_test_add ("/snodo/catalog/cache-hints/2026-07-28", Fixture, GINT_TO_POINTER (TRUE), fixture_set_up,
              test_cache_hints, fixture_tear_down);
  g_test_add ("/snodo/catalog/cache-hints/2025-11-25", Fixture, GINT_TO_POINTER (FALSE), fixture_set_up,
              test_cache_hints, fixture_tear_down);
  ADD ("answer-later", test_answer_later);
  ADD ("prompt-arguments", test_prompt_arguments);
  ADD ("completion", test_completion);
  ADD ("tool-from-string", test_tool_from_string);
#undef ADD

  return g_test_run ();
}
