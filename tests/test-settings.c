/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A GSettings served as resources and tools, in-process through a
 * SnodoStdioTransport over pipes, in the 2025 and the 2026-07-28 eras:
 * tests/data/org.snodo.Test.gschema.xml compiled with glib-compile-schemas
 * into a temporary directory, on a memory, a keyfile and a null backend. */

#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#define G_SETTINGS_ENABLE_BACKEND
#include <gio/gsettingsbackend.h>

#include "snodo.h"

#include "snodo-test-util.h"

#define SCHEMA_ID "org.snodo.Test"

/* The compiled schema; set up once in main(). */
static char                  *schema_dir;
static GSettingsSchemaSource *schema_source;

typedef struct
{
  SnodoTestPipe     pipe;
  GSettingsBackend *backend;
  /* The settings served, and another object on the same backend: a change
   * made elsewhere in the application. */
  GSettings        *settings;
  GSettings        *other;
} Fixture;

static void
compile_schemas (void)
{
  const char *compiler = g_getenv ("GLIB_COMPILE_SCHEMAS");
  g_autofree char *source = g_test_build_filename (G_TEST_DIST, "data", SCHEMA_ID ".gschema.xml", NULL);
  g_autofree char *copy = NULL;
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  int status = -1;
  gsize length;

  schema_dir = g_dir_make_tmp ("snodo-settings-XXXXXX", &error);
  g_assert_no_error (error);
  g_file_get_contents (source, &contents, &length, &error);
  g_assert_no_error (error);
  copy = g_build_filename (schema_dir, SCHEMA_ID ".gschema.xml", NULL);
  g_file_set_contents (copy, contents, length, &error);
  g_assert_no_error (error);
  {
    const char *argv[] = { compiler != NULL ? compiler : "glib-compile-schemas", "--strict", schema_dir, NULL };

    g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status, &error);
  }
  g_assert_no_error (error);
  g_spawn_check_wait_status (status, &error);
  g_assert_no_error (error);
  schema_source = g_settings_schema_source_new_from_directory (schema_dir, NULL, TRUE, &error);
  g_assert_no_error (error);
}

static GSettings *
settings_new (GSettingsBackend *backend)
{
  g_autoptr(GSettingsSchema) schema = g_settings_schema_source_lookup (schema_source, SCHEMA_ID, FALSE);

  g_assert_nonnull (schema);
  return g_settings_new_full (schema, backend, NULL);
}

static void
fixture_set_up_with (Fixture          *fixture,
                     GSettingsBackend *backend)
{
  fixture->backend = backend;
  fixture->settings = settings_new (backend);
  fixture->other = settings_new (backend);
  snodo_test_pipe_set_up (&fixture->pipe);
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  fixture_set_up_with (fixture, g_memory_settings_backend_new ());
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  snodo_test_pipe_tear_down (&fixture->pipe);
  g_assert_finalize_object (fixture->settings);
  g_object_unref (fixture->other);
  g_object_unref (fixture->backend);
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

/* The text of resource @uri. */
static char *
read_resource (Fixture    *fixture,
               gboolean    modern,
               const char *uri)
{
  g_autofree char *params = g_strdup_printf ("\"uri\":\"%s\"", uri);
  g_autoptr(JsonNode) answer = snodo_test_pipe_call (&fixture->pipe, modern, "resources/read", params);
  JsonObject *content = json_array_get_object_element (
    json_object_get_array_member (snodo_test_get_result (answer), "contents"), 0);

  g_assert_cmpstr (json_object_get_string_member (content, "uri"), ==, uri);
  g_assert_cmpstr (json_object_get_string_member (content, "mimeType"), ==, "application/json");
  return g_strdup (json_object_get_string_member (content, "text"));
}

static void
expect_updated (Fixture    *fixture,
                const char *uri)
{
  g_autoptr(JsonNode) message = snodo_test_pipe_read (&fixture->pipe);
  JsonObject *object = json_node_get_object (message);

  g_assert_false (json_object_has_member (object, "id"));
  g_assert_cmpstr (json_object_get_string_member (object, "method"), ==, "notifications/resources/updated");
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                   ==, uri);
}

/* Calls tool @name with @arguments and returns its result; when @uri is
 * not NULL, the `resources/updated` of @uri must come too, before or after
 * the answer (the key changes while the call runs). */
static JsonObject *
call_tool (Fixture    *fixture,
           gboolean    modern,
           const char *name,
           const char *arguments,
           const char *uri,
           JsonNode  **answer)
{
  g_autofree char *line = NULL;
  gboolean updated = (uri == NULL);

  line = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":%" G_GINT64_FORMAT ",\"method\":\"tools/call\","
                          "\"params\":{\"name\":\"%s\",\"arguments\":%s%s}}\n", fixture->pipe.next_id, name,
                          arguments, modern ? ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
                          "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}" : "");
  snodo_test_pipe_write (&fixture->pipe, line);
  *answer = NULL;
  while (*answer == NULL || !updated)
    {
      g_autoptr(JsonNode) message = snodo_test_pipe_read (&fixture->pipe);
      JsonObject *object = json_node_get_object (message);

      if (json_object_has_member (object, "id"))
        {
          g_assert_null (*answer);
          g_assert_cmpint (json_object_get_int_member (object, "id"), ==, fixture->pipe.next_id);
          *answer = g_steal_pointer (&message);
        }
      else
        {
          g_assert_false (updated);
          g_assert_cmpstr (json_object_get_string_member (object, "method"), ==,
                           "notifications/resources/updated");
          g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (object, "params"), "uri"),
                           ==, uri);
          updated = TRUE;
        }
    }
  fixture->pipe.next_id++;
  return snodo_test_get_result (*answer);
}

/* The tools listed, by name. */
static JsonObject *
list_tools (Fixture  *fixture,
            gboolean  modern,
            GString  *names)
{
  g_autoptr(JsonNode) answer = snodo_test_pipe_call (&fixture->pipe, modern, "tools/list", NULL);
  JsonArray *tools = json_object_get_array_member (snodo_test_get_result (answer), "tools");
  JsonObject *by_name = json_object_new ();

  for (guint i = 0; i < json_array_get_length (tools); i++)
    {
      JsonObject *tool = json_array_get_object_element (tools, i);

      json_object_set_object_member (by_name, json_object_get_string_member (tool, "name"), json_object_ref (tool));
      if (names != NULL)
        g_string_append_printf (names, "%s%s", i > 0 ? "," : "", json_object_get_string_member (tool, "name"));
    }
  return by_name;
}

static void
assert_value_schema (JsonObject *tools,
                     const char *name,
                     const char *expected)
{
  JsonObject *tool = json_object_get_object_member (tools, name);
  JsonObject *schema = json_object_get_object_member (tool, "inputSchema");
  JsonNode *value = json_object_get_member (json_object_get_object_member (schema, "properties"), "value");
  g_autoptr(JsonNode) want = snodo_test_parse (expected);

  g_assert_false (json_object_get_boolean_member (schema, "additionalProperties"));
  if (!snodo_test_json_equal (value, want))
    g_error ("%s: expected %s, got %s", name, expected, json_to_string (value, FALSE));
}

static void
test_resources (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *text = NULL;
  JsonArray *resources;
  JsonObject *volume = NULL;

  g_test_summary ("Every key is a resource settings://SCHEMA/KEY: its value as JSON, described by the key's "
                  "summary and description; a change made elsewhere is sent to subscribers");

  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings, NULL,
                                            SNODO_SETTINGS_FLAGS_NONE, &error));
  g_assert_no_error (error);
  fixture_initialize (fixture);

  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/list", NULL);
  resources = json_object_get_array_member (snodo_test_get_result (answer), "resources");
  for (guint i = 0; i < json_array_get_length (resources); i++)
    {
      JsonObject *resource = json_array_get_object_element (resources, i);

      g_string_append_printf (names, "%s%s", i > 0 ? "," : "", json_object_get_string_member (resource, "uri"));
      if (g_str_equal (json_object_get_string_member (resource, "uri"), "settings://" SCHEMA_ID "/volume"))
        volume = resource;
    }
  g_assert_cmpstr (names->str, ==,
                   "settings://" SCHEMA_ID "/checks,settings://" SCHEMA_ID "/dark-mode,settings://" SCHEMA_ID
                   "/extra,settings://" SCHEMA_ID "/name,settings://" SCHEMA_ID "/theme,settings://" SCHEMA_ID
                   "/volume");
  g_assert_nonnull (volume);
  g_assert_cmpstr (json_object_get_string_member (volume, "name"), ==, "volume");
  g_assert_cmpstr (json_object_get_string_member (volume, "title"), ==, "Volume");
  g_assert_cmpstr (json_object_get_string_member (volume, "description"), ==, "How loud sounds are, in percent.");
  g_assert_cmpstr (json_object_get_string_member (volume, "mimeType"), ==, "application/json");

  /* No tools without the flag. */
  {
    g_autoptr(JsonObject) tools = list_tools (fixture, FALSE, NULL);

    g_assert_cmpuint (json_object_get_size (tools), ==, 0);
  }

  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/volume");
  g_assert_cmpstr (text, ==, "50");
  g_clear_pointer (&text, g_free);
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/checks");
  g_assert_cmpstr (text, ==, "[\"spelling\"]");
  g_clear_pointer (&text, g_free);
  g_settings_set_value (fixture->other, "extra", g_variant_new_parsed ("{'k': <int32 1>}"));
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/extra");
  g_assert_cmpstr (text, ==, "{\"k\":1}");
  g_clear_pointer (&text, g_free);

  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/subscribe",
                                 "\"uri\":\"settings://" SCHEMA_ID "/volume\"");
  snodo_test_get_result (answer);

  /* Another key changes: not subscribed, nothing is sent; then the
   * subscribed key, from another GSettings object. */
  g_settings_set_boolean (fixture->other, "dark-mode", TRUE);
  g_settings_set_int (fixture->other, "volume", 70);
  expect_updated (fixture, "settings://" SCHEMA_ID "/volume");
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/volume");
  g_assert_cmpstr (text, ==, "70");
  g_clear_pointer (&text, g_free);
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/dark-mode");
  g_assert_cmpstr (text, ==, "true");
}

static void
test_tools (Fixture       *fixture,
            gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(JsonObject) tools = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) names = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *theme = NULL;
  JsonObject *result;
  JsonObject *tool;

  g_test_summary ("With the writable flag every key with a JSON Schema is a tool whose input comes from its "
                  "type, range, choices and summary; a call sets the key; a value outside the range or of "
                  "the wrong type is refused naming the key's place and leaves the key alone");

  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings, NULL,
                                            SNODO_SETTINGS_FLAGS_WRITABLE, &error));
  g_assert_no_error (error);
  fixture_initialize (fixture);

  tools = list_tools (fixture, FALSE, names);
  /* `extra` holds a `v`: it has no schema, so no tool. */
  g_assert_cmpstr (names->str, ==,
                   SCHEMA_ID ".set-checks," SCHEMA_ID ".set-dark-mode," SCHEMA_ID ".set-name," SCHEMA_ID
                   ".set-theme," SCHEMA_ID ".set-volume");
  assert_value_schema (tools, SCHEMA_ID ".set-volume",
                       "{\"type\":\"integer\",\"minimum\":0,\"maximum\":100,\"description\":\"Volume\","
                       "\"default\":50}");
  assert_value_schema (tools, SCHEMA_ID ".set-theme",
                       "{\"type\":\"string\",\"enum\":[\"light\",\"dark\",\"auto\"],\"description\":\"Theme\","
                       "\"default\":\"auto\"}");
  assert_value_schema (tools, SCHEMA_ID ".set-checks",
                       "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"enum\":[\"spelling\",\"grammar\"]},"
                       "\"uniqueItems\":true,\"description\":\"Checks\",\"default\":[\"spelling\"]}");
  assert_value_schema (tools, SCHEMA_ID ".set-dark-mode",
                       "{\"type\":\"boolean\",\"description\":\"Dark mode\",\"default\":false}");
  tool = json_object_get_object_member (tools, SCHEMA_ID ".set-volume");
  g_assert_cmpstr (json_object_get_string_member (tool, "title"), ==, "Volume");
  g_assert_cmpstr (json_object_get_string_member (tool, "description"), ==,
                   "Sets the setting “volume”: Volume\n\nHow loud sounds are, in percent.");

  g_clear_pointer (&answer, json_node_unref);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/subscribe",
                                 "\"uri\":\"settings://" SCHEMA_ID "/volume\"");
  snodo_test_get_result (answer);
  g_clear_pointer (&answer, json_node_unref);

  /* Set through the tool: the key changes, subscribers hear of it. */
  result = call_tool (fixture, FALSE, SCHEMA_ID ".set-volume", "{\"value\":30}",
                      "settings://" SCHEMA_ID "/volume", &answer);
  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  g_assert_cmpint (g_settings_get_int (fixture->other, "volume"), ==, 30);
  g_clear_pointer (&answer, json_node_unref);
  result = call_tool (fixture, FALSE, SCHEMA_ID ".set-theme", "{\"value\":\"dark\"}", NULL, &answer);
  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  theme = g_settings_get_string (fixture->other, "theme");
  g_assert_cmpstr (theme, ==, "dark");
  g_clear_pointer (&answer, json_node_unref);
  result = call_tool (fixture, FALSE, SCHEMA_ID ".set-checks", "{\"value\":[\"grammar\",\"spelling\"]}", NULL,
                      &answer);
  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  g_assert_cmpuint (g_settings_get_flags (fixture->other, "checks"), ==, 3);

  /* Refused: out of range, not a choice, of the wrong type. */
  {
    static const char * const refused[][3] = {
      { SCHEMA_ID ".set-volume", "{\"value\":101}", "/value: is more than the maximum 100" },
      { SCHEMA_ID ".set-volume", "{\"value\":\"loud\"}", "/value: expected integer" },
      { SCHEMA_ID ".set-theme", "{\"value\":\"neon\"}", "/value: is not one of the values allowed" },
      { SCHEMA_ID ".set-checks", "{\"value\":[\"style\"]}", "/value/0: is not one of the values allowed" },
      { SCHEMA_ID ".set-dark-mode", "{}", "“value” is required" },
    };

    for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
      {
        g_autofree char *message = NULL;

        g_clear_pointer (&answer, json_node_unref);
        result = call_tool (fixture, FALSE, refused[i][0], refused[i][1], NULL, &answer);
        g_assert_true (json_object_get_boolean_member_with_default (result, "isError", FALSE));
        message = snodo_test_first_text (result);
        if (strstr (message, refused[i][2]) == NULL)
          g_error ("%s %s: expected “%s” in “%s”", refused[i][0], refused[i][1], refused[i][2], message);
      }
  }
  g_assert_cmpint (g_settings_get_int (fixture->other, "volume"), ==, 30);
  g_clear_pointer (&theme, g_free);
  theme = g_settings_get_string (fixture->other, "theme");
  g_assert_cmpstr (theme, ==, "dark");
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/volume");
  g_assert_cmpstr (text, ==, "30");
}

static void
test_modern (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  JsonObject *result;

  g_test_summary ("In 2026-07-28 a subscriptions/listen that lists a key's URI is sent its updates, whether "
                  "the key changed elsewhere or through the tool; reads and calls need no initialize");

  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings,
                                            (const char * const []) { "name", "volume", NULL },
                                            SNODO_SETTINGS_FLAGS_WRITABLE, &error));
  g_assert_no_error (error);
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, SCHEMA_ID ".set-theme"));

  snodo_test_pipe_write (&fixture->pipe,
                         "{\"jsonrpc\":\"2.0\",\"id\":500,\"method\":\"subscriptions/listen\",\"params\":{"
                         "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                         "\"io.modelcontextprotocol/clientCapabilities\":{}},"
                         "\"notifications\":{\"resourceSubscriptions\":[\"settings://" SCHEMA_ID "/name\"]}}}\n");
  {
    g_autoptr(JsonNode) ack = snodo_test_pipe_read (&fixture->pipe);

    g_assert_cmpstr (json_object_get_string_member (json_node_get_object (ack), "method"), ==,
                     "notifications/subscriptions/acknowledged");
  }

  text = read_resource (fixture, TRUE, "settings://" SCHEMA_ID "/name");
  g_assert_cmpstr (text, ==, "\"Ada\"");
  g_clear_pointer (&text, g_free);

  g_settings_set_int (fixture->other, "volume", 1);
  g_settings_set_string (fixture->other, "name", "Grace");
  {
    g_autoptr(JsonNode) message = snodo_test_pipe_read (&fixture->pipe);
    JsonObject *object = json_node_get_object (message);
    JsonObject *params = json_object_get_object_member (object, "params");

    g_assert_cmpstr (json_object_get_string_member (object, "method"), ==, "notifications/resources/updated");
    g_assert_cmpstr (json_object_get_string_member (params, "uri"), ==, "settings://" SCHEMA_ID "/name");
    g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (params, "_meta"),
                                                 "io.modelcontextprotocol/subscriptionId"), ==, 500);
  }
  text = read_resource (fixture, TRUE, "settings://" SCHEMA_ID "/name");
  g_assert_cmpstr (text, ==, "\"Grace\"");
  g_clear_pointer (&text, g_free);

  result = call_tool (fixture, TRUE, SCHEMA_ID ".set-name", "{\"value\":\"Lin\"}",
                      "settings://" SCHEMA_ID "/name", &answer);
  g_assert_false (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  text = g_settings_get_string (fixture->other, "name");
  g_assert_cmpstr (text, ==, "Lin");
}

static void
test_not_writable (Fixture       *fixture,
                   gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *message = NULL;
  g_autofree char *text = NULL;
  JsonObject *result;

  g_test_summary ("A key that is not writable (here a null backend: every key locked) is refused with a "
                  "failed tool result naming the key");

  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings, NULL,
                                            SNODO_SETTINGS_FLAGS_WRITABLE, &error));
  g_assert_no_error (error);
  fixture_initialize (fixture);
  result = call_tool (fixture, FALSE, SCHEMA_ID ".set-volume", "{\"value\":10}", NULL, &answer);
  g_assert_true (json_object_get_boolean_member_with_default (result, "isError", FALSE));
  message = snodo_test_first_text (result);
  g_assert_cmpstr (message, ==, "Setting “volume” is not writable");
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/volume");
  g_assert_cmpstr (text, ==, "50");
}

static void
fixture_set_up_null (Fixture       *fixture,
                     gconstpointer  data)
{
  fixture_set_up_with (fixture, g_null_settings_backend_new ());
}

static void
test_keyfile (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(JsonNode) answer = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  const char *path = data;

  g_test_summary ("With the keyfile backend, the key file written by another program is followed: "
                  "subscribers are told and read the new value");

  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings, NULL,
                                            SNODO_SETTINGS_FLAGS_NONE, &error));
  g_assert_no_error (error);
  fixture_initialize (fixture);
  answer = snodo_test_pipe_call (&fixture->pipe, FALSE, "resources/subscribe",
                                 "\"uri\":\"settings://" SCHEMA_ID "/volume\"");
  snodo_test_get_result (answer);

  g_file_set_contents (path, "[test]\nvolume=42\n", -1, &error);
  g_assert_no_error (error);
  expect_updated (fixture, "settings://" SCHEMA_ID "/volume");
  text = read_resource (fixture, FALSE, "settings://" SCHEMA_ID "/volume");
  g_assert_cmpstr (text, ==, "42");
}

static void
fixture_set_up_keyfile (Fixture       *fixture,
                        gconstpointer  data)
{
  g_file_set_contents (data, "[test]\nvolume=5\n", -1, NULL);
  fixture_set_up_with (fixture, g_keyfile_settings_backend_new (data, "/org/snodo/test/", "test"));
  g_assert_cmpint (g_settings_get_int (fixture->settings, "volume"), ==, 5);
}

static void
read_nothing_cb (SnodoInvocation *invocation,
                 gpointer         user_data)
{
  snodo_invocation_return_resource_not_found (invocation);
}

/* Whether the server offers a resource of @uri: then it refuses another. */
static gpointer
resource_offered (Fixture    *fixture,
                  const char *uri)
{
  g_autoptr(SnodoResource) probe = snodo_resource_new (uri, "probe");
  g_autoptr(GError) error = NULL;

  if (snodo_server_add_resource (fixture->pipe.server, probe, read_nothing_cb, NULL, NULL, &error))
    {
      snodo_server_remove_resource (fixture->pipe.server, uri);
      return NULL;
    }
  return fixture;
}

static void
test_keys (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GError) error = NULL;

  g_test_summary ("A key list offers only those keys; a key the schema lacks, or a second offer of the same "
                  "settings, is an error and offers nothing");

  g_assert_false (snodo_server_add_settings (fixture->pipe.server, fixture->settings,
                                             (const char * const []) { "volume", "nope", NULL },
                                             SNODO_SETTINGS_FLAGS_WRITABLE, &error));
  g_assert_error (error, SNODO_ERROR, SNODO_ERROR_FAILED);
  g_assert_cmpstr (error->message, ==, "The schema “" SCHEMA_ID "” has no key “nope”");
  g_clear_error (&error);
  g_assert_null (resource_offered (fixture, "settings://" SCHEMA_ID "/volume"));
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, SCHEMA_ID ".set-volume"));

  /* A tool of a setter's name that is someone else's is left alone when
   * the offer is taken back. */
  {
    g_autoptr(SnodoTool) mine = snodo_tool_new (SCHEMA_ID ".set-volume", "Not a setter");

    g_assert_true (snodo_server_add_tool (fixture->pipe.server, mine, read_nothing_cb, NULL, NULL, &error));
    g_assert_false (snodo_server_add_settings (fixture->pipe.server, fixture->settings,
                                               (const char * const []) { "name", "volume", NULL },
                                               SNODO_SETTINGS_FLAGS_WRITABLE, &error));
    g_assert_nonnull (error);
    g_clear_error (&error);
    g_assert_cmpstr (snodo_tool_get_description (snodo_server_lookup_tool (fixture->pipe.server,
                                                                           SCHEMA_ID ".set-volume")),
                     ==, "Not a setter");
    g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, SCHEMA_ID ".set-name"));
    g_assert_null (resource_offered (fixture, "settings://" SCHEMA_ID "/name"));
    snodo_server_remove_tool (fixture->pipe.server, SCHEMA_ID ".set-volume");
  }

  /* A key of a type without a schema, named: read, not set. */
  g_assert_true (snodo_server_add_settings (fixture->pipe.server, fixture->settings,
                                            (const char * const []) { "volume", "extra", NULL },
                                            SNODO_SETTINGS_FLAGS_WRITABLE, &error));
  g_assert_no_error (error);
  g_assert_nonnull (resource_offered (fixture, "settings://" SCHEMA_ID "/extra"));
  g_assert_nonnull (snodo_server_lookup_tool (fixture->pipe.server, SCHEMA_ID ".set-volume"));
  g_assert_null (snodo_server_lookup_tool (fixture->pipe.server, SCHEMA_ID ".set-extra"));
  g_assert_nonnull (resource_offered (fixture, "settings://" SCHEMA_ID "/volume"));
  g_assert_null (resource_offered (fixture, "settings://" SCHEMA_ID "/name"));

  g_assert_false (snodo_server_add_settings (fixture->pipe.server, fixture->other, NULL,
                                             SNODO_SETTINGS_FLAGS_NONE, &error));
  g_assert_nonnull (error);
  g_assert_nonnull (resource_offered (fixture, "settings://" SCHEMA_ID "/volume"));
  g_assert_null (resource_offered (fixture, "settings://" SCHEMA_ID "/name"));
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *keyfile = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  compile_schemas ();
  keyfile = g_build_filename (schema_dir, "settings.ini", NULL);

  g_test_add ("/snodo/settings/resources", Fixture, NULL, fixture_set_up, test_resources, fixture_tear_down);
  g_test_add ("/snodo/settings/tools", Fixture, NULL, fixture_set_up, test_tools, fixture_tear_down);
  g_test_add ("/snodo/settings/modern", Fixture, NULL, fixture_set_up, test_modern, fixture_tear_down);
  g_test_add ("/snodo/settings/not-writable", Fixture, NULL, fixture_set_up_null, test_not_writable,
              fixture_tear_down);
  g_test_add ("/snodo/settings/keyfile", Fixture, keyfile, fixture_set_up_keyfile, test_keyfile,
              fixture_tear_down);
  g_test_add ("/snodo/settings/keys", Fixture, NULL, fixture_set_up, test_keys, fixture_tear_down);

  status = g_test_run ();
  g_settings_schema_source_unref (schema_source);
  g_unlink (keyfile);
  {
    g_autofree char *compiled = g_build_filename (schema_dir, "gschemas.compiled", NULL);
    /* Summaries and descriptions are read from the source, beside. */
    g_autofree char *source = g_build_filename (schema_dir, SCHEMA_ID ".gschema.xml", NULL);

    g_unlink (compiled);
    g_unlink (source);
  }
  g_rmdir (schema_dir);
  g_free (schema_dir);
  return status;
}
