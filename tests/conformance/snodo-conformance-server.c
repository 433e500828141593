/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * snodo-conformance-server: the fixture the MCP conformance suite
 * (@modelcontextprotocol/conformance) tests, served over Streamable HTTP on
 * 127.0.0.1 until SIGINT or SIGTERM.
 *
 *   snodo-conformance-server [PORT]     PORT 0 (the default): any free port
 *
 * Prints the endpoint's URI on standard output once it listens. The names
 * and contents below are the ones the suite's server scenarios call and
 * check (with two skills for those of the Skills extension); the fixture
 * uses only Snodo's public API.
 */

#include "config.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <snodo/snodo.h>

#include "snodo-conformance-tasks.h"

#ifdef G_OS_UNIX
# include <glib-unix.h>
#endif

/* A 1×1 red PNG and a short silent WAV (8 kHz, 8-bit mono). */
#define RED_PIXEL_PNG \
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
#define SILENT_WAV \
  "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="

#define NO_ARGUMENTS "{\"type\":\"object\",\"properties\":{}}"

/* Answers with a result written as JSON; the fixture's JSON is constant,
 * so a parse error is a bug here. */
static void
return_json (SnodoInvocation *invocation,
             const char      *json)
{
  g_autoptr(GError) error = NULL;

  if (!snodo_invocation_return_result_from_string (invocation, json, &error))
    g_error ("%s: %s", snodo_invocation_get_name (invocation), error->message);
}

static JsonNode *
json_parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  if (node == NULL)
    g_error ("fixture JSON: %s", error->message);
  return node;
}

/* A string argument, or @fallback. */
static const char *
get_string (JsonObject *object,
            const char *name,
            const char *fallback)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return fallback;
  return json_node_get_string (node);
}

/* Answers with one text content, built with printf. */
G_GNUC_PRINTF (2, 3)
static void
return_textf (SnodoInvocation *invocation,
              const char      *format,
              ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);
  snodo_invocation_return_text (invocation, text);
}

static char *
node_to_string (JsonNode *node)
{
  if (node == NULL)
    return g_strdup ("null");
  return json_to_string (node, FALSE);
}

/* ---- tools with constant results ---------------------------------------- */

static void
simple_text_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "This is a simple text response for testing.");
}

static void
image_content_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  return_json (invocation,
               "{\"content\":[{\"type\":\"image\",\"data\":\"" RED_PIXEL_PNG "\",\"mimeType\":\"image/png\"}]}");
}

static void
audio_content_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  return_json (invocation,
               "{\"content\":[{\"type\":\"audio\",\"data\":\"" SILENT_WAV "\",\"mimeType\":\"audio/wav\"}]}");
}

static void
embedded_resource_cb (SnodoInvocation *invocation,
                      gpointer         user_data)
{
  return_json (invocation,
               "{\"content\":[{\"type\":\"resource\",\"resource\":{\"uri\":\"test://embedded-resource\","
               "\"mimeType\":\"text/plain\",\"text\":\"This is an embedded resource content.\"}}]}");
}

static void
multiple_content_types_cb (SnodoInvocation *invocation,
                           gpointer         user_data)
{
  return_json (invocation,
               "{\"content\":["
               "{\"type\":\"text\",\"text\":\"Multiple content types test:\"},"
               "{\"type\":\"image\",\"data\":\"" RED_PIXEL_PNG "\",\"mimeType\":\"image/png\"},"
               "{\"type\":\"resource\",\"resource\":{\"uri\":\"test://mixed-content-resource\","
               "\"mimeType\":\"application/json\",\"text\":\"{\\\"test\\\":\\\"data\\\",\\\"value\\\":123}\"}}]}");
}

static void
error_handling_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  snodo_invocation_return_tool_error (invocation, "This tool intentionally returns an error for testing");
}

static void
json_schema_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  g_autofree char *arguments = NULL;
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);

  json_node_set_object (node, snodo_invocation_get_arguments (invocation));
  arguments = json_to_string (node, FALSE);
  return_textf (invocation, "Received: %s", arguments);
}

static void
custom_headers_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  return_textf (invocation, "region=%s",
                get_string (snodo_invocation_get_arguments (invocation), "region", ""));
}

/* ---- tools that take their time: logging and progress ------------------- */

typedef struct
{
  SnodoInvocation *invocation;  /* borrowed until answered */
  guint            step;
  GSource         *timer;       /* owned */
} Steps;

static const char *const logging_messages[] = {
  "Tool execution started",
  "Tool processing data",
  "Tool execution completed",
};

static gboolean
logging_step_cb (gpointer data)
{
  Steps *steps = data;

  if (steps->step < G_N_ELEMENTS (logging_messages))
    {
      snodo_invocation_log_text (steps->invocation, SNODO_LOG_LEVEL_INFO, "snodo-conformance",
                                 logging_messages[steps->step]);
      steps->step++;
      return G_SOURCE_CONTINUE;
    }
  snodo_invocation_return_text (steps->invocation, "Tool with logging executed successfully");
  g_source_unref (steps->timer);
  g_free (steps);
  return G_SOURCE_REMOVE;
}

static gboolean
progress_step_cb (gpointer data)
{
  Steps *steps = data;

  if (steps->step < 3)
    {
      snodo_invocation_report_progress (steps->invocation, steps->step * 50.0, 100.0, NULL);
      steps->step++;
      return G_SOURCE_CONTINUE;
    }
  snodo_invocation_return_text (steps->invocation, "Tool with progress executed successfully");
  g_source_unref (steps->timer);
  g_free (steps);
  return G_SOURCE_REMOVE;
}

/* Runs @func now, then every 50 ms until it removes itself. */
static void
run_steps (SnodoInvocation *invocation,
           GSourceFunc      func)
{
  Steps *steps = g_new0 (Steps, 1);

  steps->invocation = invocation;
  steps->timer = g_timeout_source_new (50);
  g_source_set_callback (steps->timer, func, steps, NULL);
  if (func (steps) == G_SOURCE_CONTINUE)
    g_source_attach (steps->timer, g_main_context_get_thread_default ());
}

static void
tool_with_logging_cb (SnodoInvocation *invocation,
                      gpointer         user_data)
{
  run_steps (invocation, logging_step_cb);
}

static void
tool_with_progress_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  run_steps (invocation, progress_step_cb);
}

/* ---- input from the client: elicitation, sampling, roots --------------- */

/* Called with the client's answer to one request for input. */
typedef void (*AnsweredFunc) (SnodoInvocation *invocation,
                              JsonObject      *answer);

/* The answer to one request for input goes to @user_data, an AnsweredFunc.
 * In 2026-07-28 the first round ends with input_required, which the library
 * already sent: the handler then stops and runs again with the answer. */
static void
input_answered_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  AnsweredFunc func = (AnsweredFunc) user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;

  answer = snodo_invocation_request_input_finish (invocation, result, &error);
  if (answer == NULL)
    {
      /* Also input_required: then nothing more is sent. */
      snodo_invocation_return_gerror (invocation, error);
      return;
    }
  if (!JSON_NODE_HOLDS_OBJECT (answer))
    {
      snodo_invocation_return_tool_error (invocation, "The client's answer is not an object");
      return;
    }
  func (invocation, json_node_get_object (answer));
}

static void
request_input (SnodoInvocation *invocation,
               const char      *key,
               const char      *method,
               const char      *params_json,
               AnsweredFunc     func)
{
  g_autoptr(JsonNode) params = json_parse (params_json);

  snodo_invocation_request_input_async (invocation, key, method, params, NULL,
                                        input_answered_cb, (gpointer) func);
}

/* "accept" and the content of an elicitation answer, as text. */
static char *
describe_elicitation (JsonObject *answer,
                      char      **content)
{
  *content = node_to_string (json_object_get_member (answer, "content"));
  return g_strdup (get_string (answer, "action", "unknown"));
}

/* The text of a CreateMessageResult's content. */
static const char *
sampled_text (JsonObject *answer)
{
  JsonNode *content = json_object_get_member (answer, "content");

  if (content != NULL && JSON_NODE_HOLDS_OBJECT (content))
    return get_string (json_node_get_object (content), "text", "");
  return "";
}

static void
sampling_answered (SnodoInvocation *invocation,
                   JsonObject      *answer)
{
  return_textf (invocation, "LLM response: %s", sampled_text (answer));
}

static void
test_sampling_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  const char *prompt = get_string (snodo_invocation_get_arguments (invocation), "prompt", NULL);
  g_autoptr(JsonNode) text = NULL;
  g_autofree char *text_json = NULL;
  g_autofree char *params = NULL;

  /* The library does not check arguments against the input schema. */
  if (prompt == NULL)
    {
      snodo_invocation_return_tool_error (invocation, "test_sampling: \"prompt\" must be a string");
      return;
    }
  text = json_node_init_string (json_node_alloc (), prompt);
  text_json = json_to_string (text, FALSE);
  params = g_strdup_printf ("{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":%s}}],"
                            "\"maxTokens\":100}", text_json);
  request_input (invocation, "sampling", "sampling/createMessage", params, sampling_answered);
}

static void
elicitation_answered (SnodoInvocation *invocation,
                      JsonObject      *answer)
{
  g_autofree char *content = NULL;
  g_autofree char *action = describe_elicitation (answer, &content);

  return_textf (invocation, "User response: action=%s, content=%s", action, content);
}

static void
test_elicitation_cb (SnodoInvocation *invocation,
                     gpointer         user_data)
{
  const char *message = get_string (snodo_invocation_get_arguments (invocation), "message", NULL);
  g_autoptr(JsonNode) text = NULL;
  g_autofree char *text_json = NULL;
  g_autofree char *params = NULL;

  if (message == NULL)
    {
      snodo_invocation_return_tool_error (invocation, "test_elicitation: \"message\" must be a string");
      return;
    }
  text = json_node_init_string (json_node_alloc (), message);
  text_json = json_to_string (text, FALSE);
  params = g_strdup_printf ("{\"message\":%s,\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
                            "\"username\":{\"type\":\"string\",\"description\":\"User's response\"},"
                            "\"email\":{\"type\":\"string\",\"description\":\"User's email address\"}},"
                            "\"required\":[\"username\",\"email\"]}}", text_json);
  request_input (invocation, "elicitation", "elicitation/create", params, elicitation_answered);
}

static void
elicitation_completed (SnodoInvocation *invocation,
                       JsonObject      *answer)
{
  g_autofree char *content = NULL;
  g_autofree char *action = describe_elicitation (answer, &content);

  return_textf (invocation, "Elicitation completed: action=%s, content=%s", action, content);
}

static void
elicitation_defaults_cb (SnodoInvocation *invocation,
                         gpointer         user_data)
{
  request_input (invocation, "defaults", "elicitation/create",
                 "{\"message\":\"Please review and update the form fields with defaults\","
                 "\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
                 "\"name\":{\"type\":\"string\",\"description\":\"User name\",\"default\":\"John Doe\"},"
                 "\"age\":{\"type\":\"integer\",\"description\":\"User age\",\"default\":30},"
                 "\"score\":{\"type\":\"number\",\"description\":\"User score\",\"default\":95.5},"
                 "\"status\":{\"type\":\"string\",\"description\":\"User status\","
                 "\"enum\":[\"active\",\"inactive\",\"pending\"],\"default\":\"active\"},"
                 "\"verified\":{\"type\":\"boolean\",\"description\":\"Verification status\",\"default\":true}},"
                 "\"required\":[]}}",
                 elicitation_completed);
}

static void
elicitation_enums_cb (SnodoInvocation *invocation,
                      gpointer         user_data)
{
  request_input (invocation, "enums", "elicitation/create",
                 "{\"message\":\"Please pick from each kind of list\","
                 "\"requestedSchema\":{\"type\":\"object\",\"properties\":{"
                 "\"untitledSingle\":{\"type\":\"string\",\"description\":\"Untitled single-select\","
                 "\"enum\":[\"option1\",\"option2\",\"option3\"]},"
                 "\"titledSingle\":{\"type\":\"string\",\"description\":\"Titled single-select\",\"oneOf\":["
                 "{\"const\":\"value1\",\"title\":\"First Option\"},"
                 "{\"const\":\"value2\",\"title\":\"Second Option\"},"
                 "{\"const\":\"value3\",\"title\":\"Third Option\"}]},"
                 "\"legacyEnum\":{\"type\":\"string\",\"description\":\"Legacy titled single-select\","
                 "\"enum\":[\"opt1\",\"opt2\",\"opt3\"],"
                 "\"enumNames\":[\"Option One\",\"Option Two\",\"Option Three\"]},"
                 "\"untitledMulti\":{\"type\":\"array\",\"description\":\"Untitled multi-select\","
                 "\"items\":{\"type\":\"string\",\"enum\":[\"option1\",\"option2\",\"option3\"]}},"
                 "\"titledMulti\":{\"type\":\"array\",\"description\":\"Titled multi-select\","
                 "\"items\":{\"anyOf\":["
                 "{\"const\":\"value1\",\"title\":\"First Choice\"},"
                 "{\"const\":\"value2\",\"title\":\"Second Choice\"},"
                 "{\"const\":\"value3\",\"title\":\"Third Choice\"}]}}},"
                 "\"required\":[]}}",
                 elicitation_completed);
}

/* Needs sampling: the client that did not declare it gets -32021 (2026)
 * or a failed tool result (2025), as the library answers that error. */
static void
missing_capability_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  request_input (invocation, "sample", "sampling/createMessage",
                 "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Say hello\"}}],"
                 "\"maxTokens\":10}",
                 sampling_answered);
}

/* 2026-07-28 input_required flows (SEP-2322). */

#define ASK_NAME \
  "{\"message\":\"What is your name?\",\"requestedSchema\":{\"type\":\"object\"," \
  "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}"
#define ASK_CAPITAL \
  "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\"," \
  "\"text\":\"What is the capital of France?\"}}],\"maxTokens\":100}"
#define ASK_GREETING \
  "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Generate a greeting\"}}]," \
  "\"maxTokens\":50}"

/* The name in an elicitation answer's content. */
static const char *
answered_field (JsonObject *answer,
                const char *field)
{
  JsonNode *content = json_object_get_member (answer, "content");

  if (content != NULL && JSON_NODE_HOLDS_OBJECT (content))
    return get_string (json_node_get_object (content), field, "");
  return "";
}

static void
name_answered (SnodoInvocation *invocation,
               JsonObject      *answer)
{
  return_textf (invocation, "Hello, %s!", answered_field (answer, "name"));
}

static void
ir_elicitation_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  /* The suite's input-required-result-ignore-extra-params sends the answer
   * with its first call, unasked: this tool takes it (others do not). */
  snodo_invocation_set_accepts_unrequested_input (invocation, TRUE);
  request_input (invocation, "user_name", "elicitation/create", ASK_NAME, name_answered);
}

static void
capital_answered (SnodoInvocation *invocation,
                  JsonObject      *answer)
{
  return_textf (invocation, "The model answered: %s", sampled_text (answer));
}

static void
ir_sampling_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  request_input (invocation, "capital_question", "sampling/createMessage", ASK_CAPITAL, capital_answered);
}

static void
roots_answered (SnodoInvocation *invocation,
                JsonObject      *answer)
{
  g_autofree char *roots = node_to_string (json_object_get_member (answer, "roots"));

  return_textf (invocation, "Client roots: %s", roots);
}

static void
ir_list_roots_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  request_input (invocation, "client_roots", "roots/list", "{}", roots_answered);
}

static void
confirm_answered (SnodoInvocation *invocation,
                  JsonObject      *answer)
{
  /* The library checked the requestState's integrity before the handler
   * ran again with the answer. */
  return_textf (invocation, "state-ok: action=%s", get_string (answer, "action", "unknown"));
}

static void
ir_request_state_cb (SnodoInvocation *invocation,
                     gpointer         user_data)
{
  request_input (invocation, "confirm", "elicitation/create",
                 "{\"message\":\"Please confirm\",\"requestedSchema\":{\"type\":\"object\","
                 "\"properties\":{\"ok\":{\"type\":\"boolean\"}},\"required\":[\"ok\"]}}",
                 confirm_answered);
}

/* Three inputs asked for in a row: the library asks for all of them in
 * one input_required result, and the retry brings the three answers. */
typedef struct
{
  guint   left;
  GError *error;
} Gather;

static void
multiple_answered_cb (GObject      *object,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  SnodoInvocation *invocation = SNODO_INVOCATION (object);
  Gather *gather = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = snodo_invocation_request_input_finish (invocation, result, &error);

  if (answer == NULL && gather->error == NULL)
    gather->error = g_steal_pointer (&error);
  if (--gather->left > 0)
    return;

  if (gather->error == NULL)
    snodo_invocation_return_text (invocation, "All inputs received");
  else
    snodo_invocation_return_gerror (invocation, gather->error);
  g_clear_error (&gather->error);
  g_free (gather);
}

static void
ir_multiple_inputs_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  static const char * const inputs[][3] = {
    { "user_name", "elicitation/create", ASK_NAME },
    { "greeting", "sampling/createMessage", ASK_GREETING },
    { "client_roots", "roots/list", "{}" },
  };
  Gather *gather = g_new0 (Gather, 1);

  gather->left = G_N_ELEMENTS (inputs);
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      g_autoptr(JsonNode) params = json_parse (inputs[i][2]);

      snodo_invocation_request_input_async (invocation, inputs[i][0], inputs[i][1], params, NULL,
                                            multiple_answered_cb, gather);
    }
}

static void
step2_answered (SnodoInvocation *invocation,
                JsonObject      *answer)
{
  return_textf (invocation, "Favourite colour: %s", answered_field (answer, "color"));
}

static void
step1_answered (SnodoInvocation *invocation,
                JsonObject      *answer)
{
  request_input (invocation, "step2", "elicitation/create",
                 "{\"message\":\"Step 2: What is your favorite color?\",\"requestedSchema\":{\"type\":\"object\","
                 "\"properties\":{\"color\":{\"type\":\"string\"}},\"required\":[\"color\"]}}",
                 step2_answered);
}

static void
ir_multi_round_cb (SnodoInvocation *invocation,
                   gpointer         user_data)
{
  request_input (invocation, "step1", "elicitation/create",
                 "{\"message\":\"Step 1: What is your name?\",\"requestedSchema\":{\"type\":\"object\","
                 "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}}",
                 step1_answered);
}

static void
any_answered (SnodoInvocation *invocation,
              JsonObject      *answer)
{
  snodo_invocation_return_text (invocation, "Input received");
}

/* Asks only for what the client declared it can give. */
static void
ir_capabilities_cb (SnodoInvocation *invocation,
                    gpointer         user_data)
{
  g_autoptr(JsonObject) capabilities = snodo_invocation_dup_client_capabilities (invocation);

  if (capabilities != NULL && json_object_has_member (capabilities, "sampling"))
    request_input (invocation, "capital_question", "sampling/createMessage", ASK_CAPITAL, any_answered);
  else if (capabilities != NULL && json_object_has_member (capabilities, "elicitation"))
    request_input (invocation, "user_name", "elicitation/create", ASK_NAME, any_answered);
  else if (capabilities != NULL && json_object_has_member (capabilities, "roots"))
    request_input (invocation, "client_roots", "roots/list", "{}", any_answered);
  else
    snodo_invocation_return_text (invocation, "The client declared no capability to ask for input with");
}

static void logging_tool_cb (SnodoInvocation *invocation, gpointer user_data);
static void streaming_elicitation_cb (SnodoInvocation *invocation, gpointer user_data);
static void trigger_tool_change_cb (SnodoInvocation *invocation, gpointer user_data);
static void trigger_prompt_change_cb (SnodoInvocation *invocation, gpointer user_data);

typedef struct
{
  const char    *name;
  const char    *description;
  const char    *input_schema;
  SnodoToolFunc  func;
} FixtureTool;

static const FixtureTool fixture_tools[] = {
  { "test_simple_text", "Returns a simple text", NO_ARGUMENTS, simple_text_cb },
  { "test_image_content", "Returns an image", NO_ARGUMENTS, image_content_cb },
  { "test_audio_content", "Returns audio", NO_ARGUMENTS, audio_content_cb },
  { "test_embedded_resource", "Returns an embedded resource", NO_ARGUMENTS, embedded_resource_cb },
  { "test_multiple_content_types", "Returns text, an image and a resource", NO_ARGUMENTS,
    multiple_content_types_cb },
  { "test_tool_with_logging", "Sends three log messages while it runs", NO_ARGUMENTS, tool_with_logging_cb },
  { "test_tool_with_progress", "Reports progress while it runs", NO_ARGUMENTS, tool_with_progress_cb },
  { "test_error_handling", "Always fails", NO_ARGUMENTS, error_handling_cb },
  { "test_sampling", "Asks the client's model to answer a prompt",
    "{\"type\":\"object\",\"properties\":{\"prompt\":{\"type\":\"string\",\"description\":\"The prompt to send\"}},"
    "\"required\":[\"prompt\"]}",
    test_sampling_cb },
  { "test_elicitation", "Asks the user for a name and an email address",
    "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"The message to show\"}},"
    "\"required\":[\"message\"]}",
    test_elicitation_cb },
  { "test_elicitation_sep1034_defaults", "Asks for input with a default for every primitive type",
    NO_ARGUMENTS, elicitation_defaults_cb },
  { "test_elicitation_sep1330_enums", "Asks for input with every kind of enumeration",
    NO_ARGUMENTS, elicitation_enums_cb },
  { "json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
    "\"$defs\":{\"address\":{\"$anchor\":\"addressDef\",\"type\":\"object\","
    "\"properties\":{\"street\":{\"type\":\"string\"},\"city\":{\"type\":\"string\"}}}},"
    "\"properties\":{\"name\":{\"type\":\"string\"},\"address\":{\"$ref\":\"#/$defs/address\"},"
    "\"contactMethod\":{\"type\":\"string\",\"enum\":[\"phone\",\"email\"]},"
    "\"phone\":{\"type\":\"string\"},\"email\":{\"type\":\"string\"}},"
    "\"allOf\":[{\"anyOf\":[{\"required\":[\"phone\"]},{\"required\":[\"email\"]}]}],"
    "\"if\":{\"properties\":{\"contactMethod\":{\"const\":\"phone\"}},\"required\":[\"contactMethod\"]},"
    "\"then\":{\"required\":[\"phone\"]},\"else\":{\"required\":[\"email\"]},"
    "\"additionalProperties\":false}",
    json_schema_cb },
  { "test_custom_headers", "Has a parameter mirrored in the Mcp-Param-Region header",
    "{\"type\":\"object\",\"properties\":{"
    "\"region\":{\"type\":\"string\",\"description\":\"A region\",\"x-mcp-header\":\"Region\"},"
    "\"query\":{\"type\":\"string\",\"description\":\"Not mirrored\"}},"
    "\"required\":[\"region\"]}",
    custom_headers_cb },
  { "test_missing_capability", "Needs the client's sampling capability", NO_ARGUMENTS, missing_capability_cb },
  { "test_input_required_result_elicitation", "Asks for a name, then greets", NO_ARGUMENTS, ir_elicitation_cb },
  { "test_input_required_result_sampling", "Asks the model a question", NO_ARGUMENTS, ir_sampling_cb },
  { "test_input_required_result_list_roots", "Asks for the client's roots", NO_ARGUMENTS, ir_list_roots_cb },
  { "test_input_required_result_request_state", "Asks for a confirmation", NO_ARGUMENTS, ir_request_state_cb },
  { "test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots", NO_ARGUMENTS,
    ir_multiple_inputs_cb },
  { "test_input_required_result_multi_round", "Asks in two rounds", NO_ARGUMENTS, ir_multi_round_cb },
  { "test_input_required_result_tampered_state", "Asks for a name; its state is protected", NO_ARGUMENTS,
    ir_elicitation_cb },
  { "test_input_required_result_capabilities", "Asks only for what the client can give", NO_ARGUMENTS,
    ir_capabilities_cb },
  { "test_logging_tool", "Logs at info, if the request asked for logs", NO_ARGUMENTS, logging_tool_cb },
  { "test_streaming_elicitation", "Asks the user for a name", NO_ARGUMENTS, streaming_elicitation_cb },
  { "test_trigger_tool_change", "Adds or removes the tool test_changing_tool", NO_ARGUMENTS,
    trigger_tool_change_cb },
  { "test_trigger_prompt_change", "Adds or removes the prompt test_changing_prompt", NO_ARGUMENTS,
    trigger_prompt_change_cb },
};

/* ---- resources ---------------------------------------------------------- */

static void
static_text_cb (SnodoInvocation *invocation,
                gpointer         user_data)
{
  snodo_invocation_return_resource_text (invocation, NULL, "text/plain",
                                         "This is the content of the static text resource.");
}

static void
static_binary_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  gsize length = 0;
  g_autofree guchar *data = g_base64_decode (RED_PIXEL_PNG, &length);
  g_autoptr(GBytes) blob = g_bytes_new_take (g_steal_pointer (&data), length);

  snodo_invocation_return_resource_blob (invocation, NULL, "image/png", blob);
}

static void
watched_resource_cb (SnodoInvocation *invocation,
                     gpointer         user_data)
{
  snodo_invocation_return_resource_text (invocation, NULL, "text/plain", "Watched resource content");
}

static void
template_data_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  const char *id = get_string (snodo_invocation_get_variables (invocation), "id", "");
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) node = NULL;
  g_autofree char *data = g_strdup_printf ("Data for ID: %s", id);
  g_autofree char *text = NULL;

  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "id");
  json_builder_add_string_value (builder, id);
  json_builder_set_member_name (builder, "templateTest");
  json_builder_add_boolean_value (builder, TRUE);
  json_builder_set_member_name (builder, "data");
  json_builder_add_string_value (builder, data);
  json_builder_end_object (builder);
  node = json_builder_get_root (builder);
  text = json_to_string (node, FALSE);
  snodo_invocation_return_resource_text (invocation, NULL, "application/json", text);
}

/* ---- prompts ------------------------------------------------------------ */

static void
simple_prompt_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  g_autoptr(JsonNode) messages =
    json_parse ("[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"This is a simple prompt for testing.\"}}]");

  snodo_invocation_return_prompt (invocation, "A simple prompt", messages);
}

/* One user message holding one text content. */
static JsonNode *
text_message (const char *text)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();

  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, text);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  return json_builder_get_root (builder);
}

static void
prompt_with_arguments_cb (SnodoInvocation *invocation,
                          gpointer         user_data)
{
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  g_autofree char *text = g_strdup_printf ("Prompt with arguments: arg1='%s', arg2='%s'",
                                           get_string (arguments, "arg1", ""),
                                           get_string (arguments, "arg2", ""));
  g_autoptr(JsonNode) messages = text_message (text);

  snodo_invocation_return_prompt (invocation, "A prompt with arguments", messages);
}

static void
prompt_with_embedded_resource_cb (SnodoInvocation *invocation,
                                  gpointer         user_data)
{
  const char *uri = get_string (snodo_invocation_get_arguments (invocation), "resourceUri", "");
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) messages = NULL;

  json_builder_begin_array (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "resource");
  json_builder_set_member_name (builder, "resource");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "uri");
  json_builder_add_string_value (builder, uri);
  json_builder_set_member_name (builder, "mimeType");
  json_builder_add_string_value (builder, "text/plain");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, "Embedded resource content for testing.");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "role");
  json_builder_add_string_value (builder, "user");
  json_builder_set_member_name (builder, "content");
  json_builder_begin_object (builder);
  json_builder_set_member_name (builder, "type");
  json_builder_add_string_value (builder, "text");
  json_builder_set_member_name (builder, "text");
  json_builder_add_string_value (builder, "Please process the embedded resource above.");
  json_builder_end_object (builder);
  json_builder_end_object (builder);
  json_builder_end_array (builder);
  messages = json_builder_get_root (builder);
  snodo_invocation_return_prompt (invocation, "A prompt with an embedded resource", messages);
}

static void
prompt_with_image_cb (SnodoInvocation *invocation,
                      gpointer         user_data)
{
  g_autoptr(JsonNode) messages =
    json_parse ("[{\"role\":\"user\",\"content\":{\"type\":\"image\",\"data\":\"" RED_PIXEL_PNG "\","
                "\"mimeType\":\"image/png\"}},"
                "{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Please analyze the image above.\"}}]");

  snodo_invocation_return_prompt (invocation, "A prompt with an image", messages);
}

static void
context_answered (SnodoInvocation *invocation,
                  JsonObject      *answer)
{
  g_autofree char *text = g_strdup_printf ("Use this context: %s", answered_field (answer, "context"));
  g_autoptr(JsonNode) messages = text_message (text);

  snodo_invocation_return_prompt (invocation, "A prompt that needed input", messages);
}

static void
input_required_prompt_cb (SnodoInvocation *invocation,
                          gpointer         user_data)
{
  request_input (invocation, "user_context", "elicitation/create",
                 "{\"message\":\"What context should the prompt use?\",\"requestedSchema\":{\"type\":\"object\","
                 "\"properties\":{\"context\":{\"type\":\"string\"}},\"required\":[\"context\"]}}",
                 context_answered);
}

/* ---- completion --------------------------------------------------------- */

static const char *const completion_words[] = { "paris", "park", "party", NULL };

static void
complete_cb (SnodoInvocation *invocation,
             gpointer         user_data)
{
  JsonObject *params = json_node_get_object (snodo_invocation_get_params (invocation));
  JsonObject *argument = json_object_get_object_member (params, "argument");
  const char *value = get_string (argument, "value", "");
  g_autoptr(GPtrArray) values = g_ptr_array_new_null_terminated (0, NULL, TRUE);

  for (guint i = 0; completion_words[i] != NULL; i++)
    if (g_str_has_prefix (completion_words[i], value))
      g_ptr_array_add (values, (gpointer) completion_words[i]);
  snodo_invocation_return_completion (invocation, (const char * const *) values->pdata,
                                      (gint) values->len, FALSE);
}

/* ---- diagnostic tools of the 2026-07-28 stateless scenario ---------------- */

/* Logs at info: the library sends it only if the request asked for logs
 * with a logLevel in its _meta. */
static void
logging_tool_cb (SnodoInvocation *invocation,
                 gpointer         user_data)
{
  snodo_invocation_log_text (invocation, SNODO_LOG_LEVEL_INFO, "snodo-conformance", "A log message");
  snodo_invocation_return_text (invocation, "Logged if asked to");
}

static void
streaming_elicitation_cb (SnodoInvocation *invocation,
                          gpointer         user_data)
{
  /* The suite's input-required-result-ignore-extra-params sends the answer
   * with its first call, unasked: this tool takes it (others do not). */
  snodo_invocation_set_accepts_unrequested_input (invocation, TRUE);
  request_input (invocation, "user_name", "elicitation/create", ASK_NAME, name_answered);
}

static void
changing_tool_cb (SnodoInvocation *invocation,
                  gpointer         user_data)
{
  snodo_invocation_return_text (invocation, "I come and go");
}

static void
changing_prompt_cb (SnodoInvocation *invocation,
                    gpointer         user_data)
{
  g_autoptr(JsonNode) messages = text_message ("I come and go");

  snodo_invocation_return_prompt (invocation, NULL, messages);
}

/* Adds the tool test_changing_tool if it is not there, else removes it; the
 * library tells subscribed clients that the list changed. */
static void
trigger_tool_change_cb (SnodoInvocation *invocation,
                        gpointer         user_data)
{
  SnodoServer *server = user_data;
  g_autoptr(SnodoTool) tool = NULL;
  g_autoptr(GError) error = NULL;

  if (snodo_server_remove_tool (server, "test_changing_tool"))
    {
      snodo_invocation_return_text (invocation, "Removed test_changing_tool");
      return;
    }
  tool = snodo_tool_new ("test_changing_tool", "Exists every other time the tool list is changed");
  if (!snodo_server_add_tool (server, tool, changing_tool_cb, NULL, NULL, &error))
    snodo_invocation_return_tool_error (invocation, error->message);
  else
    snodo_invocation_return_text (invocation, "Added test_changing_tool");
}

/* The same with the prompt test_changing_prompt. */
static void
trigger_prompt_change_cb (SnodoInvocation *invocation,
                          gpointer         user_data)
{
  SnodoServer *server = user_data;
  g_autoptr(SnodoPrompt) prompt = NULL;
  g_autoptr(GError) error = NULL;

  if (snodo_server_remove_prompt (server, "test_changing_prompt"))
    {
      snodo_invocation_return_text (invocation, "Removed test_changing_prompt");
      return;
    }
  prompt = snodo_prompt_new ("test_changing_prompt", "Exists every other time the prompt list is changed");
  if (!snodo_server_add_prompt (server, prompt, changing_prompt_cb, NULL, NULL, &error))
    snodo_invocation_return_tool_error (invocation, error->message);
  else
    snodo_invocation_return_text (invocation, "Added test_changing_prompt");
}

/* ---- the server --------------------------------------------------------- */

static void
add_resource (SnodoServer       *server,
              const char        *uri,
              const char        *name,
              const char        *description,
              const char        *mime_type,
              SnodoResourceFunc  func)
{
  g_autoptr(SnodoResource) resource = snodo_resource_new (uri, name);
  g_autoptr(GError) error = NULL;

  snodo_resource_set_description (resource, description);
  snodo_resource_set_mime_type (resource, mime_type);
  if (!snodo_server_add_resource (server, resource, func, NULL, NULL, &error))
    g_error ("%s: %s", uri, error->message);
}

static void
add_prompt (SnodoServer     *server,
            SnodoPrompt     *prompt,
            SnodoPromptFunc  func)
{
  g_autoptr(GError) error = NULL;

  if (!snodo_server_add_prompt (server, prompt, func, NULL, NULL, &error))
    g_error ("%s: %s", snodo_prompt_get_name (prompt), error->message);
}

/* The skills of the Skills extension's scenarios (sep-2640-*): one at the
 * top, with files in a directory and a subdirectory, and one under a
 * prefix. */
static void
add_skill (SnodoServer        *server,
           const char         *prefix,
           const char         *skill_md,
           const char * const *files)
{
  g_autoptr(GBytes) text = g_bytes_new_static (skill_md, strlen (skill_md));
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoSkill) skill = snodo_skill_new (prefix, text, &error);

  if (skill == NULL)
    g_error ("skill: %s", error->message);
  for (guint i = 0; files != NULL && files[i] != NULL; i += 2)
    {
      g_autoptr(GBytes) content = g_bytes_new_static (files[i + 1], strlen (files[i + 1]));

      if (!snodo_skill_add_file (skill, files[i], content, NULL, &error))
        g_error ("%s: %s", files[i], error->message);
    }
  if (!snodo_server_add_skill (server, skill, &error))
    g_error ("%s: %s", snodo_skill_get_uri (skill), error->message);
}

static void
fixture_add_skills (SnodoServer *server)
{
  static const char * const pdf_files[] = {
    "templates/invoice.md", "# Invoice\n\nNumber, date, lines, total.\n",
    "templates/regional/eu-invoice.md", "# EU invoice\n\nAdd the VAT number.\n",
    "scripts/extract.py", "print('extract')\n",
    NULL,
  };

  add_skill (server, NULL,
             "---\n"
             "name: pdf-processing\n"
             "description: Extract, fill, and assemble PDF documents\n"
             "license: Apache-2.0\n"
             "metadata:\n"
             "  version: \"2.1.0\"\n"
             "---\n"
             "\n"
             "# PDF processing\n"
             "\n"
             "Choose the matching template from `templates/`.\n",
             pdf_files);
  add_skill (server, "acme/billing",
             "---\n"
             "name: refunds\n"
             "description: >-\n"
             "  Process customer refund requests\n"
             "  per company policy\n"
             "---\n"
             "\n"
             "# Refunds\n",
             NULL);
}

static SnodoServer *
fixture_server_new (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("snodo-conformance-server", SNODO_VERSION_S);
  g_autoptr(SnodoResourceTemplate) template = NULL;
  g_autoptr(SnodoPrompt) simple = NULL;
  g_autoptr(SnodoPrompt) with_arguments = NULL;
  g_autoptr(SnodoPrompt) with_resource = NULL;
  g_autoptr(SnodoPrompt) with_image = NULL;
  g_autoptr(SnodoPrompt) input_required = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (fixture_tools); i++)
    {
      const FixtureTool *t = &fixture_tools[i];
      g_autoptr(SnodoTool) tool = snodo_tool_new (t->name, t->description);

      /* The server outlives its tools: the trigger tools borrow it. */
      if (!snodo_tool_set_input_schema_from_string (tool, t->input_schema, &error) ||
          !snodo_server_add_tool (server, tool, t->func, server, NULL, &error))
        g_error ("%s: %s", t->name, error->message);
    }

  add_resource (server, "test://static-text", "static-text", "A static text resource", "text/plain",
                static_text_cb);
  add_resource (server, "test://static-binary", "static-binary", "A static binary resource (a PNG image)",
                "image/png", static_binary_cb);
  add_resource (server, "test://watched-resource", "watched-resource", "A resource to subscribe to",
                "text/plain", watched_resource_cb);

  template = snodo_resource_template_new ("test://template/{id}/data", "template-data");
  snodo_resource_template_set_description (template, "Data for the id in the URI");
  snodo_resource_template_set_mime_type (template, "application/json");
  if (!snodo_server_add_resource_template (server, template, template_data_cb, NULL, NULL, &error))
    g_error ("template: %s", error->message);

  simple = snodo_prompt_new ("test_simple_prompt", "A simple prompt without arguments");
  add_prompt (server, simple, simple_prompt_cb);
  with_arguments = snodo_prompt_new ("test_prompt_with_arguments", "A prompt with two arguments");
  snodo_prompt_add_argument (with_arguments, "arg1", "First test argument", TRUE);
  snodo_prompt_add_argument (with_arguments, "arg2", "Second test argument", TRUE);
  add_prompt (server, with_arguments, prompt_with_arguments_cb);
  with_resource = snodo_prompt_new ("test_prompt_with_embedded_resource", "A prompt with an embedded resource");
  snodo_prompt_add_argument (with_resource, "resourceUri", "URI of the resource to embed", TRUE);
  add_prompt (server, with_resource, prompt_with_embedded_resource_cb);
  with_image = snodo_prompt_new ("test_prompt_with_image", "A prompt with an image");
  add_prompt (server, with_image, prompt_with_image_cb);
  input_required = snodo_prompt_new ("test_input_required_result_prompt", "A prompt that asks for context");
  add_prompt (server, input_required, input_required_prompt_cb);

  snodo_server_set_completion_func (server, complete_cb, NULL, NULL);
  fixture_add_task_tools (server);
  fixture_add_skills (server);

  return g_steal_pointer (&server);
}

typedef struct
{
  GMainLoop          *loop;
  SnodoHttpTransport *transport;
} Fixture;

static void
closed_cb (GObject      *object,
           GAsyncResult *result,
           gpointer      user_data)
{
  Fixture *fixture = user_data;

  snodo_http_transport_close_finish (SNODO_HTTP_TRANSPORT (object), result, NULL);
  g_main_loop_quit (fixture->loop);
}

#ifdef G_OS_UNIX
static gboolean
signal_cb (gpointer data)
{
  Fixture *fixture = data;

  snodo_http_transport_close_async (fixture->transport, NULL, closed_cb, fixture);
  return G_SOURCE_REMOVE;
}
#endif

int
main (int   argc,
      char *argv[])
{
  g_autoptr(SnodoServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *uri = NULL;
  Fixture fixture = { NULL, };
  guint64 port = 0;

  setlocale (LC_ALL, "");
#ifdef G_OS_UNIX
  signal (SIGPIPE, SIG_IGN);
#endif

  if (argc > 2 || (argc == 2 && !g_ascii_string_to_unsigned (argv[1], 10, 0, G_MAXUINT16, &port, NULL)))
    {
      g_printerr ("usage: %s [PORT]   (0, the default: any free port)\n", argv[0]);
      return 2;
    }

  server = fixture_server_new ();
  fixture.loop = g_main_loop_new (NULL, FALSE);
  fixture.transport = snodo_http_transport_new (server);
  if (!snodo_http_transport_listen_local (fixture.transport, (guint16) port, &error))
    {
      g_printerr ("snodo-conformance-server: %s\n", error->message);
      return 1;
    }

  uri = snodo_http_transport_dup_uri (fixture.transport);
  printf ("%s\n", uri);
  fflush (stdout);

#ifdef G_OS_UNIX
  g_unix_signal_add (SIGINT, signal_cb, &fixture);
  g_unix_signal_add (SIGTERM, signal_cb, &fixture);
#endif
  g_main_loop_run (fixture.loop);

  g_clear_object (&fixture.transport);
  g_main_loop_unref (fixture.loop);
  return 0;
}
