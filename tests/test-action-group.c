/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A GActionGroup served as tools: the GVariant ↔ JSON mapping on its own,
 * and a GSimpleActionGroup served in-process through a SnodoStdioTransport
 * over pipes. */

#include "config.h"

#include <string.h>

#include "snodo.h"
#include "snodo-protocol-private.h"

#include "snodo-test-util.h"

/* ---- The mapping on its own --------------------------------------------- */

typedef struct
{
  const char *type;
  const char *schema;  /* NULL: refused */
} SchemaCase;

static const SchemaCase schema_cases[] = {
  { "b", "{\"type\":\"boolean\"}" },
  { "y", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":255}" },
  { "n", "{\"type\":\"integer\",\"minimum\":-32768,\"maximum\":32767}" },
  { "q", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":65535}" },
  { "i", "{\"type\":\"integer\",\"minimum\":-2147483648,\"maximum\":2147483647}" },
  { "u", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":4294967295}" },
  { "x", "{\"type\":\"integer\",\"minimum\":-9007199254740991,\"maximum\":9007199254740991}" },
  { "t", "{\"type\":\"integer\",\"minimum\":0,\"maximum\":9007199254740991}" },
  { "d", "{\"type\":\"number\"}" },
  { "s", "{\"type\":\"string\"}" },
  { "o", "{\"type\":\"string\",\"description\":\"A D-Bus object path\","
         "\"pattern\":\"^/([A-Za-z0-9_]+(/[A-Za-z0-9_]+)*)?$\"}" },
  { "g", "{\"type\":\"string\",\"description\":\"A D-Bus type signature\"}" },
  { "ay", "{\"type\":\"string\",\"contentEncoding\":\"base64\"}" },
  { "as", "{\"type\":\"array\",\"items\":{\"type\":\"string\"}}" },
  { "aay", "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"contentEncoding\":\"base64\"}}" },
  { "a{sb}", "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"boolean\"}}" },
  { "a{ud}", "{\"type\":\"object\",\"additionalProperties\":{\"type\":\"number\"},"
             "\"propertyNames\":{\"type\":\"string\",\"description\":\"A key of type u, in GVariant text\"}}" },
  { "(sb)", "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"boolean\"}],"
            "\"minItems\":2,\"maxItems\":2}" },
  { "()", "{\"type\":\"array\",\"prefixItems\":[],\"minItems\":0,\"maxItems\":0}" },
  { "ms", "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}" },
  { "a(ims)", "{\"type\":\"array\",\"items\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"integer\","
              "\"minimum\":-2147483648,\"maximum\":2147483647},{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}],"
              "\"minItems\":2,\"maxItems\":2}}" },
  { "v", NULL },
  { "h", NULL },
  { "av", NULL },
  { "(sh)", NULL },
  { "a{sv}", NULL },
  { "a{hs}", NULL },
  { "mmb", NULL },
  { "{sb}", NULL },
  { "*", NULL },
};

static void
test_schema_table (void)
{
  g_test_summary ("Every GVariant type of the mapping has its documented JSON Schema; v, h, "
                  "maybes of maybes and indefinite types have none");

  for (guint i = 0; i < G_N_ELEMENTS (schema_cases); i++)
    {
      const SchemaCase *c = &schema_cases[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) schema = snodo_variant_type_to_schema (G_VARIANT_TYPE (c->type), &error);

      if (c->schema == NULL)
        {
          if (schema != NULL)
            g_error ("%s: expected no schema, got %s", c->type, json_to_string (schema, FALSE));
          g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
        }
      else
        {
          g_autoptr(JsonNode) want = snodo_test_parse (c->schema);

          g_assert_no_error (error);
          if (!snodo_test_json_equal (schema, want))
            g_error ("%s: expected %s, got %s", c->type, c->schema, json_to_string (schema, FALSE));
        }
    }
}

typedef struct
{
  const char *type;
  const char *json;
  const char *variant;  /* g_variant_print (…, TRUE), or NULL: refused */
  const char *message;  /* the refusal's message */
} InputCase;

static const InputCase input_cases[] = {
  { "b", "true", "true", NULL },
  { "b", "1", NULL, "/p: expected a boolean" },
  { "y", "255", "byte 0xff", NULL },
  { "y", "256", NULL, "/p: 256 is out of range [0, 255]" },
  { "y", "-1", NULL, "/p: -1 is out of range [0, 255]" },
  { "n", "-32768", "int16 -32768", NULL },
  { "n", "32768", NULL, "/p: 32768 is out of range [-32768, 32767]" },
  { "q", "65535", "uint16 65535", NULL },
  { "q", "-1", NULL, "/p: -1 is out of range [0, 65535]" },
  { "i", "-2147483648", "-2147483648", NULL },
  { "i", "2147483648", NULL, "/p: 2147483648 is out of range [-2147483648, 2147483647]" },
  { "i", "1.5", NULL, "/p: expected an integer" },
  { "i", "3.0", "3", NULL },
  { "i", "\"3\"", NULL, "/p: expected an integer" },
  { "u", "4294967295", "uint32 4294967295", NULL },
  { "u", "4294967296", NULL, "/p: 4294967296 is out of range [0, 4294967295]" },
  { "x", "-9007199254740991", "int64 -9007199254740991", NULL },
  { "x", "9007199254740992", NULL, "/p: 9007199254740992 is out of range [-9007199254740991, 9007199254740991]" },
  { "t", "9007199254740991", "uint64 9007199254740991", NULL },
  { "t", "-1", NULL, "/p: -1 is out of range [0, 9007199254740991]" },
  { "d", "1.5", "1.5", NULL },
  { "d", "2", "2.0", NULL },
  { "d", "null", NULL, "/p: expected a number" },
  { "s", "\"héllo\"", "'héllo'", NULL },
  { "s", "5", NULL, "/p: expected a string" },
  { "o", "\"/org/example/Thing\"", "objectpath '/org/example/Thing'", NULL },
  { "o", "\"no/slash\"", NULL, "/p: expected a D-Bus object path" },
  { "g", "\"a{sv}\"", "signature 'a{sv}'", NULL },
  { "g", "\"a{\"", NULL, "/p: expected a D-Bus type signature" },
  { "ay", "\"AAH/\"", "[byte 0x00, 0x01, 0xff]", NULL },
  { "ay", "\"\"", "@ay []", NULL },
  { "ay", "\"A*==\"", NULL, "/p: expected a base64 string" },
  { "ay", "[1,2]", NULL, "/p: expected a base64 string" },
  { "as", "[\"a\",\"b\"]", "['a', 'b']", NULL },
  { "as", "[]", "@as []", NULL },
  { "as", "[\"a\",2]", NULL, "/p/1: expected a string" },
  { "as", "{}", NULL, "/p: expected an array" },
  { "a{sb}", "{\"on\":true}", "{'on': true}", NULL },
  { "a{sb}", "{\"on\":\"yes\"}", NULL, "/p/on: expected a boolean" },
  { "a{ud}", "{\"7\":0.5}", "{uint32 7: 0.5}", NULL },
  { "a{ud}", "{\"seven\":0.5}", NULL, "/p/seven: is not a key of the dictionary’s type" },
  { "a{sb}", "[]", NULL, "/p: expected an object" },
  { "(sb)", "[\"a\",false]", "('a', false)", NULL },
  { "(sb)", "[\"a\"]", NULL, "/p: expected an array of 2 items" },
  { "(sb)", "[\"a\",0]", NULL, "/p/1: expected a boolean" },
  { "()", "[]", "()", NULL },
  { "a(ims)", "[[1,null],[2,\"x\"]]", "[(1, @ms nothing), (2, 'x')]", NULL },
  { "a(ims)", "[[1,null],[2,3]]", NULL, "/p/1/1: expected a string" },
  { "ms", "null", "@ms nothing", NULL },
  { "ms", "\"x\"", "@ms 'x'", NULL },
  { "v", "1", NULL, "/p: has a type with no JSON form" },
  { "h", "1", NULL, "/p: has a type with no JSON form" },
};

static void
test_from_json_table (void)
{
  g_test_summary ("JSON becomes a GVariant of exactly the type, or is refused with -32602 naming the place");

  for (guint i = 0; i < G_N_ELEMENTS (input_cases); i++)
    {
      const InputCase *c = &input_cases[i];
      g_autoptr(JsonNode) node = snodo_test_parse (c->json);
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) value = snodo_variant_from_json (G_VARIANT_TYPE (c->type), node, "/p", &error);

      if (c->variant != NULL)
        {
          g_autofree char *text = NULL;

          if (value == NULL)
            g_error ("%s %s: refused: %s", c->type, c->json, error->message);
          g_assert_cmpstr (g_variant_get_type_string (value), ==, c->type);
          g_assert_false (g_variant_is_floating (value));
          text = g_variant_print (value, TRUE);
          g_assert_cmpstr (text, ==, c->variant);
        }
      else
        {
          if (value != NULL)
            g_error ("%s %s: expected a refusal, got %s", c->type, c->json, g_variant_print (value, TRUE));
          g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
          g_assert_cmpstr (error->message, ==, c->message);
        }
    }
}

typedef struct
{
  const char *variant;  /* GVariant text */
  const char *json;     /* NULL: refused */
} OutputCase;

static const OutputCase output_cases[] = {
  { "true", "true" },
  { "byte 200", "200" },
  { "int16 -5", "-5" },
  { "uint16 5", "5" },
  { "int32 -7", "-7" },
  { "uint32 4294967295", "4294967295" },
  { "int64 -9223372036854775808", "-9223372036854775808" },
  { "uint64 9007199254740993", "9007199254740993" },
  { "2.5", "2.5" },
  { "'text'", "\"text\"" },
  { "objectpath '/a/b'", "\"/a/b\"" },
  { "signature 'as'", "\"as\"" },
  { "[byte 0x00, 0x01, 0xff]", "\"AAH/\"" },
  { "['a', 'b']", "[\"a\",\"b\"]" },
  { "{'k': <int32 1>, 'l': <'x'>}", "{\"k\":1,\"l\":\"x\"}" },
  { "{uint32 7: true}", "{\"7\":true}" },
  { "(1, 'a', [true])", "[1,\"a\",[true]]" },
  { "@ms nothing", "null" },
  { "@ms 'x'", "\"x\"" },
  { "<<byte 3>>", "3" },
  { "handle 0", NULL },
  { "[<handle 0>]", NULL },
};

static void
test_to_json_table (void)
{
  g_test_summary ("A state GVariant becomes JSON by the same table; a file descriptor has no JSON form");

  for (guint i = 0; i < G_N_ELEMENTS (output_cases); i++)
    {
      const OutputCase *c = &output_cases[i];
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) value = g_variant_parse (NULL, c->variant, NULL, NULL, &error);
      g_autoptr(JsonNode) json = NULL;

      g_assert_no_error (error);
      json = snodo_variant_to_json (value, &error);
      if (c->json == NULL)
        {
          g_assert_null (json);
          g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
        }
      else
        {
          g_autoptr(JsonNode) want = snodo_test_parse (c->json);

          g_assert_no_error (error);
          if (!snodo_test_json_equal (json, want))
            g_error ("%s: expected %s, got %s", c->variant, c->json, json_to_string (json, FALSE));
        }
    }
}

static void
test_round_trip (void)
{
  static const char * const values[] = {
    "(true, byte 1, int16 -2, uint16 3, -4, uint32 5, int64 -6, uint64 7, 8.5, 's', objectpath '/o', signature 'g')",
    "[{'a': [[byte 0x01, 0x02], @ay []]}, @a{saay} {}]",
    "(@mi nothing, @mi 3, @a(sb) [])",
  };

  g_test_summary ("A value turned into JSON and back is the same value");

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr(GVariant) value = g_variant_parse (NULL, values[i], NULL, NULL, NULL);
      g_autoptr(JsonNode) json = snodo_variant_to_json (value, NULL);
      g_autoptr(GError) error = NULL;
      g_autoptr(GVariant) back = snodo_variant_from_json (g_variant_get_type (value), json, "", &error);

      g_assert_no_error (error);
      g_assert_true (g_variant_equal (value, back));
    }
}

/* ---- Served over pipes --------------------------------------------------- */

typedef struct
{
  SnodoTestPipe       pipe;
  GSimpleActionGroup *group;
  /* What the actions saw. */
  GPtrArray          *activations;
} Fixture;

static void
record_activate_cb (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  Fixture *fixture = user_data;
  g_autofree char *text = parameter != NULL ? g_variant_print (parameter, TRUE) : g_strdup ("-");

  g_ptr_array_add (fixture->activations,
                   g_strdup_printf ("%s %s", g_action_get_name (G_ACTION (action)), text));
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  static const GActionEntry entries[] = {
    { "greet", NULL, "s", NULL, NULL, { 0 } },
    { "save", NULL, NULL, NULL, NULL, { 0 } },
    { "move", NULL, "(ii)", NULL, NULL, { 0 } },
    { "dark", NULL, NULL, "false", NULL, { 0 } },
    { "secret", NULL, NULL, NULL, NULL, { 0 } },
    { "fd", NULL, "h", NULL, NULL, { 0 } },
  };
  GActionEntry with_handlers[G_N_ELEMENTS (entries)];

  memcpy (with_handlers, entries, sizeof entries);
  for (guint i = 0; i < G_N_ELEMENTS (with_handlers); i++)
    if (with_handlers[i].state == NULL)
      with_handlers[i].activate = record_activate_cb;
  fixture->activations = g_ptr_array_new_with_free_func (g_free);
  fixture->group = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (fixture->group), with_handlers, G_N_ELEMENTS (with_handlers),
                                   fixture);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (fixture->group), "save")),
                               FALSE);
  snodo_test_pipe_set_up (&fixture->pipe);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
  g_assert_finalize_object (fixture->group);
  g_ptr_array_unref (fixture->activations);
}

static void
fixture_initialize (Fixture *fixture)
{
  g_autoptr(JsonNode) answer = NULL;

  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "initialize",
                                 "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                                 "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}");
  snodo_test_get_result (answer);
  snodo_test_pipe_write (&fixture->pipe, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
}

/* The names of the listed tools, comma-separated, and their schemas by name. */
static char *
list_tools (Fixture    *fixture,
            JsonObject *schemas)
{
  g_autoptr(JsonNode) answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/list", NULL);
  JsonArray *tools = json_object_get_array_member (snodo_test_get_result (answer), "tools");
  g_autoptr(GString) names = g_string_new (NULL);

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);
      const char *name = json_object_get_string_member (tool, "name");

      g_string_append_printf (names, "%s%s", i > 0 ? "," : "", name);
      if (schemas != NULL)
        json_object_set_member (schemas, name, json_node_copy (json_object_get_member (tool, "inputSchema")));
    }
  return g_string_free (g_steal_pointer (&names), FALSE);
}

static void
expect_notification (Fixture    *fixture,
                     const char *method,
                     const char *uri)
{
  g_autoptr(JsonNode) message = snodo_test_pipe_read (&fixture->pipe);
  JsonObject *object = json_node_get_object (message);

  g_assert_false (json_object_has_member (object, "id"));
  g_assert_cmpstr (json_object_get_string_member (object, "method"), ==, method);
  if (uri != NULL)
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                     ==, uri);
}

static void
assert_schema (JsonObject *schemas,
               const char *name,
               const char *expected)
{
  g_autoptr(JsonNode) want = snodo_test_parse (expected);

  if (!snodo_test_json_equal (json_object_get_member (schemas, name), want))
    g_error ("%s: expected %s, got %s", name, expected,
             json_to_string (json_object_get_member (schemas, name), FALSE));
}

static void
test_served (Fixture       *fixture,
             gconstpointer  data)
{
  const char *allowed[] = { "greet", "save", "move", "dark", "fd", "later", NULL };
  g_autoptr(JsonObject) schemas = json_object_new ();
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GSimpleAction) later = NULL;
  g_autofree char *names = NULL;
  GVariantBuilder hints;
  JsonObject *result;

  g_test_summary ("A GSimpleActionGroup is served as tools: mapped schemas, calls activate the actions, "
                  "enabling and adding are followed with list_changed, a state is a subscribable resource");

  /* The action taking `h` is refused when it is named. */
  g_assert_false (snodo_server_add_action_group (fixture->pipe.server, G_ACTION_GROUP (fixture->group), "app",
                                                 allowed, NULL, NULL, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
  g_clear_error (&error);
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, "app.greet"));

  allowed[4] = "later";
  allowed[5] = NULL;
  g_variant_builder_init (&hints, G_VARIANT_TYPE ("a{sa{sv}}"));
  g_variant_builder_add_parsed (&hints, "{'greet', {'description': <'Says hello'>, 'title': <'Greet'>,"
                                        " 'parameter-description': <'Whom to greet'>}}");
  g_assert_true (snodo_server_add_action_group (fixture->pipe.server, G_ACTION_GROUP (fixture->group), "app",
                                                allowed, g_variant_builder_end (&hints), NULL, &error));
  g_assert_no_error (error);

  fixture_initialize (fixture);

  /* "save" is disabled and "secret" not allowed: neither is offered. */
  names = list_tools (fixture, schemas);
  g_assert_cmpstr (names, ==, "app.dark,app.greet,app.move");
  assert_schema (schemas, "app.greet",
                 "{\"type\":\"object\",\"properties\":{\"parameter\":{\"type\":\"string\","
                 "\"description\":\"Whom to greet\"}},\"required\":[\"parameter\"],\"additionalProperties\":false}");
  assert_schema (schemas, "app.move",
                 "{\"type\":\"object\",\"properties\":{\"parameter\":{\"type\":\"array\",\"prefixItems\":["
                 "{\"type\":\"integer\",\"minimum\":-2147483648,\"maximum\":2147483647},"
                 "{\"type\":\"integer\",\"minimum\":-2147483648,\"maximum\":2147483647}],"
                 "\"minItems\":2,\"maxItems\":2}},"
                 "\"required\":[\"parameter\"],\"additionalProperties\":false}");
  assert_schema (schemas, "app.dark", "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}");
  {
    SnodoTool *greet = snodo_server_lookup_tool (fixture->pipe.server, "app.greet");

    g_assert_cmpstr (snodo_tool_get_title (greet), ==, "Greet");
    g_assert_cmpstr (snodo_tool_get_description (greet), ==, "Says hello");
  }

  /* Calls activate the actions with the converted parameter. */
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/call",
                                 "\"name\":\"app.greet\",\"arguments\":{\"parameter\":\"world\"}");
  result = snodo_test_get_result (answer);
  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/call",
                                 "\"name\":\"app.move\",\"arguments\":{\"parameter\":[3,-4]}");
  g_assert_false (json_object_get_boolean_member_with_default (snodo_test_get_result (answer), "isError", FALSE));
  g_assert_cmpuint (fixture->activations->len, ==, 2);
  g_assert_cmpstr (g_ptr_array_index (fixture->activations, 0), ==, "greet 'world'");
  g_assert_cmpstr (g_ptr_array_index (fixture->activations, 1), ==, "move (3, -4)");

  /* A value the schema checker lets through but the type does not take
   * is -32602 naming its place, and the action is not activated. */
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/call",
                                 "\"name\":\"app.move\",\"arguments\":{\"parameter\":[3,\"four\"]}");
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (json_node_get_object (answer), "error"),
                                               "code"), ==, -32602);
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (json_node_get_object (answer),
                                                                                 "error"), "message"),
                   ==, "/parameter/1: expected an integer");
  g_assert_cmpuint (fixture->activations->len, ==, 2);

  /* Enabling "save" offers it; adding "later" too; removing it withdraws it. */
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (fixture->group), "save")),
                               TRUE);
  expect_notification (fixture, "notifications/tools/list_changed", NULL);
  g_clear_pointer (&names, g_free);
  names = list_tools (fixture, NULL);
  g_assert_cmpstr (names, ==, "app.dark,app.greet,app.move,app.save");
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/call", "\"name\":\"app.save\",\"arguments\":{}");
  g_assert_false (json_object_get_boolean_member_with_default (snodo_test_get_result (answer), "isError", FALSE));
  g_assert_cmpstr (g_ptr_array_index (fixture->activations, 2), ==, "save -");

  later = g_simple_action_new ("later", NULL);
  g_action_map_add_action (G_ACTION_MAP (fixture->group), G_ACTION (later));
  expect_notification (fixture, "notifications/tools/list_changed", NULL);
  g_clear_pointer (&names, g_free);
  names = list_tools (fixture, NULL);
  g_assert_cmpstr (names, ==, "app.dark,app.greet,app.move,app.save,app.later");
  g_action_map_remove_action (G_ACTION_MAP (fixture->group), "later");
  expect_notification (fixture, "notifications/tools/list_changed", NULL);
  g_clear_pointer (&names, g_free);
  names = list_tools (fixture, NULL);
  g_assert_cmpstr (names, ==, "app.dark,app.greet,app.move,app.save");

  /* Disabling withdraws it. */
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (fixture->group), "save")),
                               FALSE);
  expect_notification (fixture, "notifications/tools/list_changed", NULL);
  g_clear_pointer (&names, g_free);
  names = list_tools (fixture, NULL);
  g_assert_cmpstr (names, ==, "app.dark,app.greet,app.move");

  /* The stateful action's state is a resource, updated on change. */
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/read", "\"uri\":\"action:app.dark\"");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (snodo_test_get_result (answer), "contents"), 0), "text"),
                   ==, "false");
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/subscribe", "\"uri\":\"action:app.dark\"");
  snodo_test_get_result (answer);
  /* Activating a boolean stateful action without a handler toggles it. */
  g_clear_pointer (&answer, json_node_unref);
  {
    g_autofree char *line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ","
                                             "\"method\":\"tools/call\",\"params\":{\"name\":\"app.dark\","
                                             "\"arguments\":{}}}\n", fixture->pipe.next_id);
    g_autoptr(JsonNode) first = NULL;
    g_autoptr(JsonNode) second = NULL;
    JsonNode *notification;
    JsonObject *object;

    /* The state changes while the call runs: its notification comes
     * before or after the answer. */
    snodo_test_pipe_write (&fixture->pipe, line);
    first = snodo_test_pipe_read (&fixture->pipe);
    second = snodo_test_pipe_read (&fixture->pipe);
    if (json_object_has_member (json_node_get_object (first), "id"))
      {
        answer = json_node_ref (first);
        notification = second;
      }
    else
      {
        answer = json_node_ref (second);
        notification = first;
      }
    g_assert_cmpint (json_object_get_int_member (json_node_get_object (answer), "id"), ==, fixture->pipe.next_id);
    fixture->pipe.next_id++;
    g_assert_false (json_object_get_boolean_member_with_default (snodo_test_get_result (answer), "isError", FALSE));
    object = json_node_get_object (notification);
    g_assert_cmpstr (json_object_get_string_member (object, "method"), ==, "notifications/resources/updated");
    g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                     ==, "action:app.dark");
  }

  /* A change made by the application is followed too. */
  g_action_group_change_action_state (G_ACTION_GROUP (fixture->group), "dark", g_variant_new_boolean (FALSE));
  expect_notification (fixture, "notifications/resources/updated", "action:app.dark");
  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/read", "\"uri\":\"action:app.dark\"");
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (
                     json_object_get_array_member (snodo_test_get_result (answer), "contents"), 0), "text"),
                   ==, "false");
}

static void
test_menu_labels (Fixture       *fixture,
                  gconstpointer  data)
{
  const char *allowed[] = { "greet", "save", NULL };
  g_autoptr(GMenu) menu = g_menu_new ();
  g_autoptr(GMenu) section = g_menu_new ();
  g_autoptr(GError) error = NULL;
  SnodoTool *tool;

  g_test_summary ("The labels of a menu's items title the actions they name, without mnemonics");

  g_menu_append (section, "_Save", "app.save");
  g_menu_append (menu, "Say _Hello", "app.greet::x");
  g_menu_append_section (menu, NULL, G_MENU_MODEL (section));
  g_simple_action_set_enabled (G_SIMPLE_ACTION (g_action_map_lookup_action (G_ACTION_MAP (fixture->group), "save")),
                               TRUE);
  g_assert_true (snodo_server_add_action_group (fixture->pipe.server, G_ACTION_GROUP (fixture->group), "app",
                                                allowed, NULL, G_MENU_MODEL (menu), &error));
  g_assert_no_error (error);
  tool = snodo_server_lookup_tool (fixture->pipe.server, "app.save");
  g_assert_cmpstr (snodo_tool_get_title (tool), ==, "Save");
  g_assert_cmpstr (snodo_tool_get_description (tool), ==, "Activates the action “app.save”: Save");
  /* An item naming the action with a target labels it too. */
  g_assert_cmpstr (snodo_tool_get_title (snodo_server_lookup_tool (fixture->pipe.server, "app.greet")), ==,
                   "Say Hello");
}

static void
test_variant_hint (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(GSimpleAction) zoom = g_simple_action_new ("zoom", G_VARIANT_TYPE_VARIANT);
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;
  JsonNode *schema;
  JsonObject *parameter;

  g_test_summary ("An action taking a v is offered only with the type its hint gives, its argument boxed");

  g_signal_connect (zoom, "activate", G_CALLBACK (record_activate_cb), fixture);
  g_action_map_add_action (G_ACTION_MAP (fixture->group), G_ACTION (zoom));

  /* All actions, no hints: zoom and fd are left out, the others offered. */
  g_assert_true (snodo_server_add_action_group (fixture->pipe.server, G_ACTION_GROUP (fixture->group), "a",
                                                NULL, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, "a.zoom"));
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, "a.fd"));
  g_assert_nonnull (snodo_server_lookup_tool (fixture->pipe.server, "a.secret"));

  g_assert_true (snodo_server_add_action_group (fixture->pipe.server, G_ACTION_GROUP (fixture->group), "b",
                                                (const char *[]) { "zoom", NULL },
                                                g_variant_new_parsed ("{'zoom': {'parameter-type': <'d'>}}"),
                                                NULL, &error));
  g_assert_no_error (error);
  schema = snodo_tool_get_input_schema (snodo_server_lookup_tool (fixture->pipe.server, "b.zoom"));
  parameter = json_object_get_object_member (json_object_get_object_member (json_node_get_object (schema),
                                                                            "properties"), "parameter");
  g_assert_cmpstr (json_object_get_string_member (parameter, "type"), ==, "number");

  fixture_initialize (fixture);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "tools/call",
                                 "\"name\":\"b.zoom\",\"arguments\":{\"parameter\":1.5}");
  g_assert_false (json_object_get_boolean_member_with_default (snodo_test_get_result (answer), "isError", FALSE));
  g_assert_cmpuint (fixture->activations->len, ==, 1);
  g_assert_cmpstr (g_ptr_array_index (fixture->activations, 0), ==, "zoom <1.5>");
  g_action_map_remove_action (G_ACTION_MAP (fixture->group), "zoom");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/action-group/schema-table", test_schema_table);
  g_test_add_func ("/snodo/action-group/from-json-table", test_from_json_table);
  g_test_add_func ("/snodo/action-group/to-json-table", test_to_json_table);
  g_test_add_func ("/snodo/action-group/round-trip", test_round_trip);
  g_test_add ("/snodo/action-group/served", Fixture, NULL, fixture_set_up, test_served, fixture_tear_down);
  g_test_add ("/snodo/action-group/variant-hint", Fixture, NULL, fixture_set_up, test_variant_hint,
              fixture_tear_down);
  g_test_add ("/snodo/action-group/menu-labels", Fixture, NULL, fixture_set_up, test_menu_labels,
              fixture_tear_down);

  return g_test_run ();
}
