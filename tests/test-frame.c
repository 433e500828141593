/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

#include <string.h>

#include "snodo-frame-private.h"
#include "snodo-json-private.h"

typedef struct
{
  const char     *input;
  SnodoFrameKind  kind;
  /* ERROR only */
  int             code;
  /* The id as JSON text, or NULL for none (an error answered with null). */
  const char     *id;
  /* A part of error_message, when not NULL. */
  const char     *message;
} DecodeCase;

static void
assert_decodes (const DecodeCase *c)
{
  g_auto(SnodoFrame) frame = { 0, };
  g_autofree char *escaped = g_strescape (c->input, NULL);

  g_test_message ("decoding %s", escaped);
  snodo_frame_decode (c->input, strlen (c->input), &frame);

  g_assert_cmpint (frame.kind, ==, c->kind);

  if (c->id == NULL)
    {
      g_assert_null (frame.id);
      g_assert_null (frame.key);
    }
  else
    {
      g_autoptr(JsonNode) id = snodo_test_parse (c->id);
      g_autofree char *key = snodo_frame_id_key (id);

      g_assert_true (snodo_test_json_equal (frame.id, id));
      g_assert_cmpstr (frame.key, ==, key);
    }

  switch (frame.kind)
    {
    case SNODO_FRAME_ERROR:
      g_assert_cmpint (frame.error_code, ==, c->code);
      g_assert_nonnull (frame.error_message);
      g_assert_null (frame.message);
      g_assert_null (frame.method);
      g_assert_null (frame.params);
      if (c->message != NULL && strstr (frame.error_message, c->message) == NULL)
        g_error ("message \"%s\" lacks \"%s\"", frame.error_message, c->message);
      break;

    case SNODO_FRAME_DROP:
      g_assert_cmpint (frame.error_code, ==, 0);
      g_assert_null (frame.message);
      g_assert_null (frame.method);
      g_assert_null (frame.params);
      if (c->message != NULL && strstr (frame.error_message, c->message) == NULL)
        g_error ("message \"%s\" lacks \"%s\"", frame.error_message, c->message);
      break;

    case SNODO_FRAME_IGNORE:
      g_assert_null (frame.message);
      g_assert_null (frame.error_message);
      break;

    case SNODO_FRAME_REQUEST:
    case SNODO_FRAME_NOTIFICATION:
      g_assert_true (JSON_NODE_HOLDS_OBJECT (frame.message));
      g_assert_nonnull (frame.method);
      g_assert_cmpstr (frame.method, ==,
                       json_object_get_string_member (json_node_get_object (frame.message),
                                                      "method"));
      g_assert_null (frame.error_message);
      break;

    case SNODO_FRAME_RESPONSE:
      g_assert_true (JSON_NODE_HOLDS_OBJECT (frame.message));
      g_assert_null (frame.method);
      g_assert_null (frame.error_message);
      break;

    default:
      g_assert_not_reached ();
    }
}

static void
assert_decodes_all (const DecodeCase *cases,
                    gsize             n)
{
  for (gsize i = 0; i < n; i++)
    assert_decodes (&cases[i]);
}

static void
test_request (void)
{
  g_auto(SnodoFrame) frame = { 0, };
  const char *line = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                     "\"params\":{\"name\":\"echo\"}}";

  snodo_frame_decode (line, strlen (line), &frame);
  g_assert_cmpint (frame.kind, ==, SNODO_FRAME_REQUEST);
  g_assert_cmpstr (frame.method, ==, "tools/call");
  g_assert_nonnull (frame.params);
  g_assert_true (frame.params ==
                 json_object_get_object_member (json_node_get_object (frame.message), "params"));
  g_assert_cmpstr (json_object_get_string_member (frame.params, "name"), ==, "echo");
  g_assert_cmpint (json_node_get_int (frame.id), ==, 7);
  g_assert_cmpstr (frame.key, ==, "i:7");

  snodo_frame_clear (&frame);
  g_assert_cmpint (frame.kind, ==, SNODO_FRAME_IGNORE);
  g_assert_null (frame.message);
  g_assert_null (frame.id);
  g_assert_null (frame.key);
  /* Clearing twice is harmless. */
  snodo_frame_clear (&frame);
}

static void
test_valid (void)
{
  static const DecodeCase cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", SNODO_FRAME_REQUEST, 0, "1", NULL },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":\"ping\",\"params\":{}}",
      SNODO_FRAME_REQUEST, 0, "\"abc\"", NULL },
    { "{\"method\":\"ping\",\"id\":-5,\"jsonrpc\":\"2.0\"}", SNODO_FRAME_REQUEST, 0, "-5", NULL },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"\",\"method\":\"ping\"}", SNODO_FRAME_REQUEST, 0, "\"\"", NULL },
    { "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775807,\"method\":\"x\"}",
      SNODO_FRAME_REQUEST, 0, "9223372036854775807", NULL },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      SNODO_FRAME_NOTIFICATION, 0, NULL, NULL },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
      SNODO_FRAME_NOTIFICATION, 0, NULL, NULL },
    { "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}", SNODO_FRAME_RESPONSE, 0, "3", NULL },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"error\":{\"code\":-32601,\"message\":\"no\"}}",
      SNODO_FRAME_RESPONSE, 0, "\"r\"", NULL },
    { "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}  ", SNODO_FRAME_REQUEST, 0, "1", NULL },
  };

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_line_endings (void)
{
  static const DecodeCase cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r", SNODO_FRAME_REQUEST, 0, "1", NULL },
    { "", SNODO_FRAME_IGNORE, 0, NULL, NULL },
    { "\r", SNODO_FRAME_IGNORE, 0, NULL, NULL },
    { " \t \r", SNODO_FRAME_IGNORE, 0, NULL, NULL },
    { "\t\t", SNODO_FRAME_IGNORE, 0, NULL, NULL },
  };

  g_test_summary ("A trailing '\\r' is removed; blank and white-space-only "
                  "lines are ignored");

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_parse_errors (void)
{
  static const DecodeCase cases[] = {
    { "{", SNODO_FRAME_ERROR, -32700, NULL, "Parse error: unexpected end of input at byte 1" },
    { "[1,x]", SNODO_FRAME_ERROR, -32700, NULL, "Parse error: unexpected character 'x' at byte 3" },
    { "{'jsonrpc':'2.0'}", SNODO_FRAME_ERROR, -32700, NULL, "Parse error:" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}{}", SNODO_FRAME_ERROR, -32700, NULL, NULL },
    { "\xff", SNODO_FRAME_ERROR, -32700, NULL, "Parse error: invalid UTF-8 at byte 0" },
    { "\r\r", SNODO_FRAME_IGNORE, 0, NULL, NULL },
    { "\x0b", SNODO_FRAME_ERROR, -32700, NULL, "unexpected character U+000B" },
  };

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_nul_byte (void)
{
  const char line[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\0b\"}";
  g_auto(SnodoFrame) frame = { 0, };

  snodo_frame_decode (line, sizeof line - 1, &frame);
  g_assert_cmpint (frame.kind, ==, SNODO_FRAME_ERROR);
  g_assert_cmpint (frame.error_code, ==, -32700);
  g_assert_null (frame.id);
}

static void
test_not_object (void)
{
  static const DecodeCase cases[] = {
    { "[]", SNODO_FRAME_ERROR, -32600, NULL, "Invalid request: batches are not supported" },
    { "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
      SNODO_FRAME_ERROR, -32600, NULL, "batches are not supported" },
    { "1", SNODO_FRAME_ERROR, -32600, NULL, "Invalid request: a message must be an object" },
    { "\"ping\"", SNODO_FRAME_ERROR, -32600, NULL, "must be an object" },
    { "null", SNODO_FRAME_ERROR, -32600, NULL, "must be an object" },
    { "true", SNODO_FRAME_ERROR, -32600, NULL, "must be an object" },
  };

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_bad_id (void)
{
  static const DecodeCase cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL,
      "Invalid request: \"id\" must be a string or an integer" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1e2,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":18446744073709551615,\"method\":\"ping\"}",
      SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":[1],\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"1.0\",\"id\":null}", SNODO_FRAME_ERROR, -32600, NULL, "\"id\"" },
  };

  g_test_summary ("An id that is present but neither a string nor an integer "
                  "(MCP forbids null) is answered with id null, even when the "
                  "message has a method");

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_bad_shape (void)
{
  static const DecodeCase cases[] = {
    { "{\"id\":1,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, "1",
      "Invalid request: \"jsonrpc\" must be \"2.0\"" },
    { "{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, "\"a\"",
      "Invalid request: \"jsonrpc\" must be \"2.0\"" },
    { "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"ping\"}", SNODO_FRAME_ERROR, -32600, "1", "\"jsonrpc\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}", SNODO_FRAME_ERROR, -32600, "1",
      "Invalid request: \"method\" must be a non-empty string" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}", SNODO_FRAME_ERROR, -32600, "1", "\"method\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":{}}", SNODO_FRAME_ERROR, -32600, "1", "\"method\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":null}", SNODO_FRAME_ERROR, -32600, "1", "\"method\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", SNODO_FRAME_ERROR, -32600, "1",
      "Invalid request: \"params\" must be an object" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":null}", SNODO_FRAME_ERROR, -32600, "1",
      "\"params\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"ping\",\"params\":\"x\"}", SNODO_FRAME_ERROR, -32600,
      "\"s\"", "\"params\"" },
    { "{\"jsonrpc\":\"2.0\"}", SNODO_FRAME_ERROR, -32600, NULL, "\"method\" is missing" },
    { "{}", SNODO_FRAME_ERROR, -32600, NULL, "\"jsonrpc\"" },
  };

  g_test_summary ("A malformed object is answered -32600, with its id when "
                  "the id was valid and with null otherwise");

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_id_only (void)
{
  static const struct
  {
    const char *input;
    const char *key;
    const char *message;
  } cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":1}", "i:1", "Invalid request: \"method\" is missing" },
    { "{\"id\":1}", "i:1", "\"jsonrpc\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"params\":{}}", "s:a", "\"method\" is missing" },
    { "{\"jsonrpc\":\"1.0\",\"id\":-3}", "i:-3", "\"jsonrpc\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":[]}", "i:1", NULL },
  };

  g_test_summary ("A message with an id but no \"method\", \"result\" or \"error\" "
                  "is no request: answered with id null, its id's key kept apart for "
                  "the caller to drop it when it is the id of a request of its own");

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_auto(SnodoFrame) frame = { 0, };
      g_auto(SnodoFrame) lazy = { 0, };

      g_test_message ("decoding %s", cases[i].input);
      snodo_frame_decode (cases[i].input, strlen (cases[i].input), &frame);
      g_assert_cmpint (frame.kind, ==, SNODO_FRAME_ERROR);
      g_assert_cmpint (frame.error_code, ==, -32600);
      g_assert_null (frame.id);
      g_assert_null (frame.key);
      g_assert_cmpstr (frame.response_key, ==, cases[i].key);
      if (cases[i].message != NULL)
        g_assert_nonnull (strstr (frame.error_message, cases[i].message));

      snodo_frame_decode_lazy (cases[i].input, strlen (cases[i].input), "_meta", &lazy);
      g_assert_cmpint (lazy.kind, ==, SNODO_FRAME_ERROR);
      g_assert_null (lazy.id);
      g_assert_null (lazy.key);
      g_assert_cmpstr (lazy.response_key, ==, cases[i].key);
    }
}

static void
test_drop (void)
{
  static const DecodeCase cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":[1]}", SNODO_FRAME_DROP, 0, NULL,
      "\"params\"" },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":null}", SNODO_FRAME_DROP, 0, NULL, NULL },
    { "{\"jsonrpc\":\"1.0\",\"method\":\"notifications/x\"}", SNODO_FRAME_DROP, 0, NULL, "\"jsonrpc\"" },
    { "{\"method\":\"notifications/x\"}", SNODO_FRAME_DROP, 0, NULL, NULL },
    { "{\"jsonrpc\":\"2.0\",\"method\":5}", SNODO_FRAME_DROP, 0, NULL, "\"method\"" },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"\"}", SNODO_FRAME_DROP, 0, NULL, NULL },
    { "{\"jsonrpc\":\"2.0\",\"method\":null}", SNODO_FRAME_DROP, 0, NULL, NULL },
    /* Responses (no method, a result or an error member) are never
     * answered either, however malformed: their id is the server's, and
     * an answer would reach the client's own request of that id. */
    { "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}", SNODO_FRAME_DROP, 0, NULL, "\"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1}}", SNODO_FRAME_DROP, 0, NULL,
      "both \"result\" and \"error\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[]}", SNODO_FRAME_DROP, 0, NULL,
      "\"result\" must be an object" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}", SNODO_FRAME_DROP, 0, NULL, "\"result\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"x\"}}", SNODO_FRAME_DROP, 0, NULL,
      "\"error\" must be an object with an integer \"code\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"1\"}}", SNODO_FRAME_DROP, 0, NULL, "\"error\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5}}", SNODO_FRAME_DROP, 0, NULL, "\"error\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":-32600}", SNODO_FRAME_DROP, 0, NULL, "\"error\"" },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"params\":[]}", SNODO_FRAME_DROP, 0, NULL, "\"params\"" },
    { "{\"jsonrpc\":\"2.0\",\"result\":{}}", SNODO_FRAME_DROP, 0, NULL,
      "Invalid response: a response must have an \"id\"" },
    { "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1}}", SNODO_FRAME_DROP, 0, NULL, "\"id\"" },
  };

  g_test_summary ("A malformed notification (no id, a method member) or response (no method, a "
                  "result or error member) is dropped: neither is ever answered");

  assert_decodes_all (cases, G_N_ELEMENTS (cases));
}

static void
test_response (void)
{
  g_auto(SnodoFrame) ok = { 0, };
  g_auto(SnodoFrame) err = { 0, };
  const char *ok_line = "{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"result\":{\"v\":1}}";
  const char *err_line = "{\"jsonrpc\":\"2.0\",\"id\":4,\"error\":{\"code\":-32000,\"message\":\"m\"}}";
  JsonObject *object;

  snodo_frame_decode (ok_line, strlen (ok_line), &ok);
  g_assert_cmpint (ok.kind, ==, SNODO_FRAME_RESPONSE);
  g_assert_cmpstr (ok.key, ==, "s:q");
  object = json_node_get_object (ok.message);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "result"), "v"),
                   ==, 1);
  g_assert_null (ok.params);

  snodo_frame_decode (err_line, strlen (err_line), &err);
  g_assert_cmpint (err.kind, ==, SNODO_FRAME_RESPONSE);
  g_assert_cmpstr (err.key, ==, "i:4");
  object = json_node_get_object (err.message);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "error"), "code"),
                   ==, -32000);
}

static void
test_id_key (void)
{
  g_autoptr(JsonNode) s = snodo_test_parse ("\"1\"");
  g_autoptr(JsonNode) i = snodo_test_parse ("1");
  g_autoptr(JsonNode) neg = snodo_test_parse ("-12");
  g_autoptr(JsonNode) colon = snodo_test_parse ("\"i:1\"");
  g_autoptr(JsonNode) d = snodo_test_parse ("1.5");
  g_autoptr(JsonNode) b = snodo_test_parse ("true");
  g_autoptr(JsonNode) n = snodo_test_parse ("null");
  g_autoptr(JsonNode) o = snodo_test_parse ("{}");
  g_autofree char *s_key = snodo_frame_id_key (s);
  g_autofree char *i_key = snodo_frame_id_key (i);
  g_autofree char *neg_key = snodo_frame_id_key (neg);
  g_autofree char *colon_key = snodo_frame_id_key (colon);

  g_test_summary ("String and integer ids with the same text are different "
                  "ids; other types have no key");

  g_assert_cmpstr (s_key, ==, "s:1");
  g_assert_cmpstr (i_key, ==, "i:1");
  g_assert_cmpstr (neg_key, ==, "i:-12");
  g_assert_cmpstr (colon_key, ==, "s:i:1");
  g_assert_cmpstr (s_key, !=, i_key);
  g_assert_null (snodo_frame_id_key (d));
  g_assert_null (snodo_frame_id_key (b));
  g_assert_null (snodo_frame_id_key (n));
  g_assert_null (snodo_frame_id_key (o));
  g_assert_null (snodo_frame_id_key (NULL));

  /* The extremes of an integer id, and an empty string. */
  {
    g_autoptr(JsonNode) zero = snodo_test_parse ("0");
    g_autoptr(JsonNode) min = snodo_test_parse ("-9223372036854775808");
    g_autoptr(JsonNode) max = snodo_test_parse ("9223372036854775807");
    g_autoptr(JsonNode) empty = snodo_test_parse ("\"\"");
    g_autofree char *zero_key = snodo_frame_id_key (zero);
    g_autofree char *min_key = snodo_frame_id_key (min);
    g_autofree char *max_key = snodo_frame_id_key (max);
    g_autofree char *empty_key = snodo_frame_id_key (empty);

    g_assert_cmpstr (zero_key, ==, "i:0");
    g_assert_cmpstr (min_key, ==, "i:-9223372036854775808");
    g_assert_cmpstr (max_key, ==, "i:9223372036854775807");
    g_assert_cmpstr (empty_key, ==, "s:");
  }
}

/* Checks that @line is one JSON object text ending in exactly one '\n', and
 * that it reads as @expected_json with the members in the same order. */
static void
assert_line (GBytes     *line,
             const char *expected_json)
{
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL;
  g_autoptr(JsonNode) expected_node = NULL;
  gsize len = 0;
  const char *data = g_bytes_get_data (line, &len);

  g_assert_cmpuint (len, >, 1);
  g_assert_cmpint (data[len - 1], ==, '\n');
  g_assert_null (memchr (data, '\n', len - 1));

  node = snodo_json_parse (data, len - 1, &error);
  g_assert_no_error (error);
  expected_node = snodo_test_parse (expected_json);
  g_assert_true (snodo_test_json_equal (node, expected_node));

  /* Same members in the same order: compare the compact texts. */
  expected = snodo_json_to_string (expected_node, NULL);
  g_assert_cmpmem (data, len - 1, expected, strlen (expected));
}

/* Decoding with params._meta left as text (and the root object not
 * built) gives the frame that decoding it whole gives, once the text is
 * put back in its place. */
static void
test_deferred (void)
{
  static const char * const inputs[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
    "\"arguments\":{\"text\":\"hi\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"c\",\"version\":\"1\"},"
    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{ \"_meta\" : { } , \"a\" : 1 }}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"_meta\":{\"x\":[1,2.5,-0,true,false,null,"
    "{\"y\":\"\\u00e9\\n\\\"\\\\\"}],\"z\":\"\\ud83d\\ude00\",\"\\u005fk\":{\"a\":{\"b\":[[]]}}},\"b\":2}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"nul\":\"a\\u0000b\"}}}",
    /* Where the reader notes the members of _meta: white space around
     * names and values, up to eight members, more. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\": {\n \"a\" :\t1 ,\"b\\\"\":{ } , \"c\":[ ]\r\n, \"d\" : -1.5e3 }}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":\"8\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":5}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":[{}]}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":\"x\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":null}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1},\"b\":0,\"_meta\":{\"a\":2}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1},\"_meta\":5}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":5,\"b\":0,\"_meta\":{\"a\":1}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1}},\"params\":{\"b\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"params\":{\"_meta\":{\"a\":1}},\"method\":\"m\",\"params\":{\"_meta\":{\"b\":2}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1}},\"params\":[]}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"arguments\":{\"_meta\":{\"a\":1}}},\"_meta\":{}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"_meta\":{\"a\":1}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"params\":{\"_meta\":{\"a\":1}}}",
    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1}}}]",
    /* Errors inside the text left out: the same errors, at the same bytes. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":\"b}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":\"\\q\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1e999}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":01}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1,}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\" 1}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":[1 2]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":tru}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":\"\\udc00\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{}}} x",
    /* What the quick way through _meta reads, and where it hands over to
     * the reader: integers around 18 digits, minus signs, nesting, arrays,
     * escapes and control characters, literals cut short. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":123456789012345678,\"b\":-1234567890123456789,"
    "\"c\":12345678901234567890123,\"d\":-0,\"e\":0,\"f\":[[],[{}],[1,\"x\",null,true,false]],\"g\":{\"h\":{\"i\":[{\"j\":\"\xc3\xa9\"}]}}}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":-}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":-a}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1.}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":12345678901234567890e}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":\"x\ty\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\\u0062\":\"x\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":[1,]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":[1}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":{\"b\":1]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":fals}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":nul",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":truex}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{1:2}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1 \"b\":2}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1,\"b\":2,\"c\":[3],\"d\":{},\"e\":5,"
    "\"f\":6,\"g\":7,\"h\":{\"x\":[]},\"i\":9}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":\"\xc3\xa9",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\"",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{ ",
    /* The root object is not built either: members of other names are
     * checked and dropped, the last of duplicate names wins. */
    "{\"x\":{\"a\":[1,{\"b\":\"\\u0000\"}]},\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"m\",\"y\":[],\"z\":-1.5}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{}},\"x\":\"\\u0000\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":{\"a\":\"\\q\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":[1 2]}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":1e999}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":tru}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":{}",
    "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"a\",\"jsonrpc\":\"2.0\",\"method\":\"b\",\"id\":\"c\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"jsonrpc\":\"1.0\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"id\":null}",
    "{\"jsonrpc\":\"2.0\",\"id\":[],\"method\":\"a\",\"id\":2}",
    "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"a\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
    "{\"jsonrpc\":\"2.0\",\"method\":7}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":[]}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":5}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{},\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"result\":{\"a\":[1,2]},\"x\":1}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-1,\"message\":\"no\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":\"x\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1},\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":5}",
    "{\"jsonrpc\":\"2.0\",\"id\":3}",
    "{\"jsonrpc\":\"2.0\"}",
    "{}",
    " { } ",
    "\"x\"",
    "5",
    "[]",
    "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":9223372036854775808,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":{\"a\":1}},\"x\":{\"params\":{\"_meta\":{}}}}",
    /* params kept apart (snodo_frame_decode_lazy()) up to eight members,
     * built beyond. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":2,\"c\":3,\"_meta\":{\"x\":1},\"e\":5,\"f\":6,"
    "\"g\":7,\"h\":8,\"i\":{\"j\":[9]},\"a\":10,\"_meta\":{\"y\":2},\"k\":11}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"a\":2,\"a\":3,\"a\":4,\"a\":5,\"a\":6,\"a\":7,\"a\":8,\"a\":9,\"b\":1}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"x\"}}",
    /* Methods kept without a copy, and methods next to them; the last
     * "method" of any type wins. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/cal\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/callx\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\\u0000\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools\\/call\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":\"x\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"method\":7}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"method\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":[],\"method\":\"ping\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"method\":\"\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"method\":null,\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"result\":{}}",
    "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"id\":1,\"method\":\"x\",\"z\":tru}",
    /* Names kept without a copy, and names next to them. */
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"uri\":1,\"name\":2,\"task\":3,\"_meta\":{},\"level\":5,"
    "\"cursor\":6,\"argument\":7,\"arguments\":8}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"requestId\":1,\"requestState\":2,\"capabilities\":3,"
    "\"inputResponses\":4,\"protocolVersion\":5,\"nam\":6,\"tasks\":7,\"levek\":8}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"urj\":1,\"namf\":2,\"tasj\":3,\"_metb\":4,\"_evel\":5,"
    "\"cursoR\":6,\"requestStatf\":7,\"capabilitieS\":8}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"argumentz\":1,\"requestIt\":2,\"inputResponsez\":3,"
    "\"protocolVersioN\":4,\"na\\u006de\":5,\"name\":6,\"n\\u0061me\":7}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1},\"params\":{\"b\":{\"c\":[]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1},\"params\":null}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":null,\"params\":{\"b\":2}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9},"
    "\"params\":{\"z\":0}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":}}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{},\"params\":{\"a\":1}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\",\"params\":{\"a\":1}}",
    /* Only whether "jsonrpc" is "2.0" is kept of it. */
    "{\"jsonrpc\":\"2\\u002e0\",\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\\u0000\",\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":{\"2.0\":\"2.0\"},\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":[\"2.0\"],\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":2.0,\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":null,\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"jsonrpc\":{},\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":{\"a\":[1,\"\\q\"]},\"id\":1,\"method\":\"m\"}",
    "{\"id\":1,\"method\":\"m\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1},\"jsonrpc\":\"2.0\"}",
  };

  for (guint k = 0; k < 2 * (G_N_ELEMENTS (inputs) + 2); k++)
    {
      guint i = k / 2;
      gboolean lazy = k % 2;
      g_autoptr(GString) deep = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"_meta\":");
      const char *input;
      g_auto(SnodoFrame) whole = { 0, };
      g_auto(SnodoFrame) deferred = { 0, };
      g_autofree char *escaped = NULL;

      if (i < G_N_ELEMENTS (inputs))
        input = inputs[i];
      else
        {
          /* Nesting at the reader's limit, then one level beyond it. */
          guint levels = SNODO_JSON_MAX_DEPTH - 2 + (i - G_N_ELEMENTS (inputs));

          for (guint j = 0; j < levels; j++)
            g_string_append (deep, j % 2 ? "[" : "{\"a\":");
          for (guint j = levels; j > 0; j--)
            g_string_append (deep, (j - 1) % 2 ? "]" : "}");
          g_string_append (deep, "}}");
          input = deep->str;
        }

      escaped = g_strescape (input, NULL);
      g_test_message ("decoding %s%s", escaped, lazy ? " (params unbuilt)" : "");
      snodo_frame_decode (input, strlen (input), &whole);
      if (!lazy)
        {
          snodo_frame_decode_deferring (input, strlen (input), "_meta", &deferred);
          g_assert_false (deferred.params_unbuilt);
        }
      else
        {
          snodo_frame_decode_lazy (input, strlen (input), "_meta", &deferred);
          if (deferred.params_unbuilt)
            {
              JsonObjectIter iter;
              const char *name;
              JsonNode *node;

              /* Its members read apart are those of params built whole. */
              g_assert_true (deferred.kind == SNODO_FRAME_REQUEST || deferred.kind == SNODO_FRAME_NOTIFICATION);
              g_assert_null (deferred.params);
              g_assert_null (deferred.params_node);
              g_assert_nonnull (whole.params);
              json_object_iter_init (&iter, whole.params);
              while (json_object_iter_next (&iter, &name, &node))
                if (strcmp (name, "_meta") != 0 || !JSON_NODE_HOLDS_OBJECT (node))
                  {
                    g_autofree char *expected = snodo_json_to_string (node, NULL);
                    g_autofree char *got = snodo_json_to_string (snodo_frame_get_param (&deferred, name), NULL);

                    g_assert_cmpstr (got, ==, expected);
                  }
              g_assert_cmpuint (deferred.params_members.n, ==, json_object_get_size (whole.params));
              g_assert_null (snodo_frame_get_param (&deferred, "no such member"));
              g_assert_nonnull (snodo_frame_get_params (&deferred));
              g_assert_false (deferred.params_unbuilt);
            }
          else if (whole.params != NULL)
            g_assert_cmpuint (json_object_get_size (whole.params), >, SNODO_JSON_MEMBERS_MAX);
        }

      g_assert_cmpint (deferred.kind, ==, whole.kind);
      g_assert_cmpint (deferred.error_code, ==, whole.error_code);
      g_assert_cmpstr (deferred.error_message, ==, whole.error_message);
      g_assert_cmpint (deferred.has_nul, ==, whole.has_nul);
      g_assert_cmpstr (deferred.method, ==, whole.method);
      g_assert_cmpstr (deferred.key, ==, whole.key);
      g_assert_null (whole.deferred);
      g_assert_cmpint (deferred.id == NULL, ==, whole.id == NULL);
      if (whole.id != NULL)
        g_assert_true (json_node_equal (deferred.id, whole.id));
      g_assert_cmpint (deferred.params == NULL, ==, whole.params == NULL);
      g_assert_cmpint (deferred.params_node == NULL, ==, whole.params_node == NULL);
      /* Decoded without building the root object, a string method is
       * not a node. */
      g_assert_null (deferred.method_node != NULL && snodo_json_node_is_string (deferred.method_node)
                     ? deferred.method_node : NULL);
      if (whole.params_node != NULL)
        g_assert_true (whole.params_node == json_object_get_member (json_node_get_object (whole.message),
                                                                     "params"));
      if (whole.kind == SNODO_FRAME_REQUEST || whole.kind == SNODO_FRAME_NOTIFICATION)
        {
          /* Decoded whole: members of the message; else trees of their own. */
          g_assert_nonnull (whole.message);
          g_assert_null (deferred.message);
          g_assert_true (whole.method == json_node_get_string (whole.method_node));
          g_assert_null (deferred.method_node);
          g_assert_cmpstr (deferred.method, ==, whole.method);
          /* The methods of MCP are not copied. */
          if (g_str_equal (whole.method, "tools/call") || g_str_equal (whole.method, "ping") ||
              g_str_has_prefix (whole.method, "notifications/"))
            g_assert_null (deferred.method_copy);
          else
            g_assert_true (deferred.method == deferred.method_copy);
          if (deferred.params_node != NULL)
            {
              g_assert_null (json_node_get_parent (deferred.params_node));
              g_assert_true (deferred.params == json_node_get_object (deferred.params_node));
            }
        }
      else
        g_assert_cmpint (whole.message == NULL, ==, deferred.message == NULL);

      if (deferred.deferred != NULL)
        {
          JsonNode *meta = snodo_json_parse (deferred.deferred, deferred.deferred_len, NULL);
          JsonObject *params;
          const SnodoJsonSpans *spans = &deferred.deferred_spans;
          SnodoJsonMemberIter iter;
          const char *name;
          const char *value;
          gsize name_len;
          gsize value_len;
          guint n = 0;

          /* The reader noted the members of the text as reading the text
           * again finds them (or, past eight, said it did not). */
          snodo_json_member_iter_init (&iter, deferred.deferred, deferred.deferred_len);
          while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
            {
              if (spans->complete)
                {
                  g_assert_cmpuint (n, <, spans->n);
                  g_assert_cmpuint (spans->spans[n].name, ==, name - deferred.deferred);
                  g_assert_cmpuint (spans->spans[n].name_len, ==, name_len);
                  g_assert_cmpuint (spans->spans[n].value, ==, value - deferred.deferred);
                  g_assert_cmpuint (spans->spans[n].value_len, ==, value_len);
                }
              n++;
            }
          g_assert_cmpint (spans->complete, ==, n <= SNODO_JSON_SPANS_MAX);
          /* "No escape" is never said of a text with one; and it is said
           * of the _meta of the first input, which has none. */
          if (spans->plain)
            g_assert_null (memchr (deferred.deferred, '\\', deferred.deferred_len));
          if (i == 0)
            g_assert_true (spans->plain);
          if (spans->complete)
            g_assert_cmpuint (spans->n, ==, n);

          g_assert_nonnull (meta);
          g_assert_nonnull (deferred.params_node);
          params = json_node_get_object (deferred.params_node);
          g_assert_cmpuint (strlen (deferred.deferred), ==, deferred.deferred_len);
          g_assert_true (JSON_NODE_HOLDS_NULL (json_object_get_member (params, "_meta")));
          json_object_set_member (params, "_meta", meta);
        }

      if (whole.params_node != NULL)
        {
          g_autofree char *expected = snodo_json_to_string (whole.params_node, NULL);
          g_autofree char *got = snodo_json_to_string (deferred.params_node, NULL);

          g_assert_cmpstr (got, ==, expected);
        }

      if (whole.kind == SNODO_FRAME_RESPONSE)
        {
          /* What those who read a response read: its result or error. */
          JsonObject *a = json_node_get_object (whole.message);
          JsonObject *b = json_node_get_object (deferred.message);
          static const char * const names[] = { "jsonrpc", "id", "result", "error", "params" };

          for (guint j = 0; j < G_N_ELEMENTS (names); j++)
            {
              JsonNode *x = json_object_get_member (a, names[j]);
              JsonNode *y = json_object_get_member (b, names[j]);

              g_assert_cmpint (x == NULL, ==, y == NULL);
              if (x != NULL)
                {
                  g_autofree char *expected = snodo_json_to_string (x, NULL);
                  g_autofree char *got = snodo_json_to_string (y, NULL);

                  g_assert_cmpstr (got, ==, expected);
                }
            }
        }
    }
}

/* The members of an object read from its text, without building it. */
/* snodo_frame_decode_in_place() gives what the decoders of a read-only
 * text give, long strings included (built from the text itself, with
 * escapes or without). */
static void
test_in_place (void)
{
  static const char * const templates[] = {
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"@\"}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":\"@\",\"method\":\"tools/call\",\"params\":{\"name\":\"@\",\"arguments\":{\"@\":[\"@\",\"@\"]}}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"@\",\"params\":{\"a\":\"@\",\"_meta\":{\"k\":\"@\"}}}",
    "{\"jsonrpc\":\"@\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@\\n@\",\"b\":\"@\\u0000\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"\\t@\\\"@\\u00e9@\\ud83d\\ude00@\\/\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@\\n@\\x\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@\\n@\\ud83d\"}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,"
    "\"h\":8,\"i\":\"@\"},\"x\":\"@\"}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"@\"}]}}",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"a\":\"@\"}} x",
    "[\"@\"]",
  };
  GString *plain = g_string_new (NULL);

  /* Longer than the reader's threshold for building in place. */
  for (guint i = 0; plain->len < 5000; i++)
    g_string_append_c (plain, "abcdefghij\xc3\xa9 "[i % 13]);

  for (gsize i = 0; i < G_N_ELEMENTS (templates); i++)
    for (int lazy = 0; lazy <= 1; lazy++)
      {
        g_auto(GStrv) parts = g_strsplit (templates[i], "@", -1);
        g_autofree char *input = g_strjoinv (plain->str, parts);
        g_autofree char *copy = g_strdup (input);
        gsize len = strlen (input);
        g_auto(SnodoFrame) frame = { 0, };
        g_auto(SnodoFrame) placed = { 0, };

        g_test_message ("template %" G_GSIZE_FORMAT ", lazy %d", i, lazy);
        if (lazy)
          snodo_frame_decode_lazy (input, len, "_meta", &frame);
        else
          snodo_frame_decode_deferring (input, len, "_meta", &frame);
        snodo_frame_decode_in_place (copy, len, "_meta", lazy, &placed);

        g_assert_cmpint (placed.kind, ==, frame.kind);
        g_assert_cmpint (placed.error_code, ==, frame.error_code);
        g_assert_cmpstr (placed.error_message, ==, frame.error_message);
        g_assert_cmpstr (placed.key, ==, frame.key);
        g_assert_cmpstr (placed.method, ==, frame.method);
        g_assert_cmpint (placed.has_nul, ==, frame.has_nul);
        g_assert_cmpuint (placed.size, ==, frame.size);
        g_assert_cmpstr (placed.deferred, ==, frame.deferred);
        g_assert_cmpint (placed.params_unbuilt, ==, frame.params_unbuilt);
        if (snodo_frame_get_params (&frame) != NULL)
          {
            g_assert_nonnull (snodo_frame_get_params (&placed));
            g_assert_true (json_node_equal (placed.params_node, frame.params_node));
          }
        else
          g_assert_null (snodo_frame_get_params (&placed));
        if (frame.message != NULL)
          g_assert_true (json_node_equal (placed.message, frame.message));
        if (frame.kind == SNODO_FRAME_REQUEST && i == 0)
          {
            JsonNode *arguments = snodo_frame_get_param (&placed, "arguments");

            g_assert_cmpstr (json_object_get_string_member (json_node_get_object (arguments), "text"), ==,
                             plain->str);
          }
      }
  g_string_free (plain, TRUE);
}

static void
test_member_iter (void)
{
  g_autofree char *dup = NULL;
  static const char text[] = " { \"a\" : 1 , \"b\\\"c\":{\"x\":[1,\"]}\"]},\"d\":\"e\\\\\",\"f\":-1.5e3,\"g\":null,\"a\":[] } ";
  static const char * const expected[][2] = {
    { "\"a\"", "1" },
    { "\"b\\\"c\"", "{\"x\":[1,\"]}\"]}" },
    { "\"d\"", "\"e\\\\\"" },
    { "\"f\"", "-1.5e3" },
    { "\"g\"", "null" },
    { "\"a\"", "[]" },
  };
  SnodoJsonMemberIter iter;
  const char *name;
  const char *value;
  gsize name_len;
  gsize value_len;
  guint i = 0;

  snodo_json_member_iter_init (&iter, text, strlen (text));
  while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
    {
      g_assert_cmpuint (i, <, G_N_ELEMENTS (expected));
      g_assert_cmpmem (name, name_len, expected[i][0], strlen (expected[i][0]));
      g_assert_cmpmem (value, value_len, expected[i][1], strlen (expected[i][1]));
      i++;
    }
  g_assert_cmpuint (i, ==, G_N_ELEMENTS (expected));

  g_assert_true (snodo_json_text_equal_string ("\"abc\"", 5, "abc"));
  g_assert_false (snodo_json_text_equal_string ("\"abc\"", 5, "ab"));
  g_assert_true (snodo_json_text_equal_string ("\"a\\u0062c\"", 10, "abc"));
  g_assert_false (snodo_json_text_equal_string ("1", 1, "1"));
  dup = snodo_json_text_dup_string ("\"a\\nb\"", 6);
  g_assert_cmpstr (dup, ==, "a\nb");
}

static void
test_encode_result (void)
{
  g_autoptr(JsonNode) id = snodo_test_parse ("7");
  g_autoptr(JsonNode) sid = snodo_test_parse ("\"x\\ny\"");
  g_autoptr(JsonNode) result = snodo_test_parse ("{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\"z\":1,\"a\":2}");
  g_autofree char *before = snodo_json_to_string (result, NULL);
  g_autofree char *after = NULL;
  g_autoptr(GBytes) line = snodo_frame_encode_result (id, result);
  g_autoptr(GBytes) sline = snodo_frame_encode_result (sid, result);
  g_autoptr(GBytes) nline = snodo_frame_encode_result (NULL, result);

  assert_line (line, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\"z\":1,\"a\":2}}");
  assert_line (sline, "{\"jsonrpc\":\"2.0\",\"id\":\"x\\ny\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\"z\":1,\"a\":2}}");
  assert_line (nline, "{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"a\\nb\"}],\"z\":1,\"a\":2}}");

  /* The result is not modified, nor adopted. */
  after = snodo_json_to_string (result, NULL);
  g_assert_cmpstr (before, ==, after);
  g_assert_null (json_node_get_parent (result));
}

static void
test_encode_result_tail (void)
{
  g_autoptr(JsonNode) id = snodo_test_parse ("3");
  g_autoptr(JsonNode) empty = snodo_test_parse ("{}");
  g_autoptr(JsonNode) full = snodo_test_parse ("{\"a\":{\"b\":[]},\"c\":\"}\"}");
  g_autoptr(GBytes) empty_line = snodo_frame_encode_result_tail (id, empty, "\"resultType\":\"complete\"");
  g_autoptr(GBytes) full_line = snodo_frame_encode_result_tail (id, full, "\"resultType\":\"complete\"");

  g_test_summary ("A result with an ending of more members: no comma after an empty object, one otherwise");

  assert_line (empty_line, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"resultType\":\"complete\"}}");
  assert_line (full_line, "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"a\":{\"b\":[]},\"c\":\"}\","
                          "\"resultType\":\"complete\"}}");
}

static void
test_encode_error (void)
{
  g_autoptr(JsonNode) id = snodo_test_parse ("\"abc\"");
  g_autoptr(JsonNode) data = snodo_test_parse ("{\"detail\":[1,2]}");
  g_autoptr(GBytes) plain = snodo_frame_encode_error (id, -32601, "Method not found: \"x\"\n", NULL);
  g_autoptr(GBytes) with_data = snodo_frame_encode_error (NULL, -32600, "Invalid request", data);

  assert_line (plain, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"error\":{\"code\":-32601,"
                      "\"message\":\"Method not found: \\\"x\\\"\\n\"}}");
  assert_line (with_data, "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
                          "\"message\":\"Invalid request\",\"data\":{\"detail\":[1,2]}}}");
}

static void
test_encode_notification (void)
{
  g_autoptr(JsonNode) params = snodo_test_parse ("{\"level\":\"info\",\"data\":\"x\"}");
  g_autoptr(GBytes) with_params = snodo_frame_encode_notification ("notifications/message", params);
  g_autoptr(GBytes) bare = snodo_frame_encode_notification ("notifications/tools/list_changed", NULL);

  assert_line (with_params, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
                            "\"params\":{\"level\":\"info\",\"data\":\"x\"}}");
  assert_line (bare, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
}

static void
test_encode_request (void)
{
  g_autoptr(JsonNode) id = snodo_test_parse ("\"srv-1\"");
  g_autoptr(JsonNode) params = snodo_test_parse ("{\"b\":1,\"a\":2}");
  g_autoptr(GBytes) with_params = snodo_frame_encode_request (id, "sampling/createMessage", params);
  g_autoptr(GBytes) bare = snodo_frame_encode_request (id, "ping", NULL);
  g_auto(SnodoFrame) frame = { 0, };
  gsize len = 0;
  const char *data;

  assert_line (with_params, "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\","
                            "\"params\":{\"b\":1,\"a\":2}}");
  assert_line (bare, "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"ping\"}");

  /* What the encoder writes, the decoder reads. */
  data = g_bytes_get_data (with_params, &len);
  snodo_frame_decode (data, len - 1, &frame);
  g_assert_cmpint (frame.kind, ==, SNODO_FRAME_REQUEST);
  g_assert_cmpstr (frame.method, ==, "sampling/createMessage");
  g_assert_cmpstr (frame.key, ==, "s:srv-1");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/frame/request", test_request);
  g_test_add_func ("/snodo/frame/valid", test_valid);
  g_test_add_func ("/snodo/frame/line-endings", test_line_endings);
  g_test_add_func ("/snodo/frame/parse-errors", test_parse_errors);
  g_test_add_func ("/snodo/frame/nul-byte", test_nul_byte);
  g_test_add_func ("/snodo/frame/not-object", test_not_object);
  g_test_add_func ("/snodo/frame/bad-id", test_bad_id);
  g_test_add_func ("/snodo/frame/bad-shape", test_bad_shape);
  g_test_add_func ("/snodo/frame/id-only", test_id_only);
  g_test_add_func ("/snodo/frame/drop", test_drop);
  g_test_add_func ("/snodo/frame/response", test_response);
  g_test_add_func ("/snodo/frame/id-key", test_id_key);
  g_test_add_func ("/snodo/frame/deferred", test_deferred);
  g_test_add_func ("/snodo/frame/in-place", test_in_place);
  g_test_add_func ("/snodo/frame/member-iter", test_member_iter);
  g_test_add_func ("/snodo/frame/encode-result", test_encode_result);
  g_test_add_func ("/snodo/frame/encode-result-tail", test_encode_result_tail);
  g_test_add_func ("/snodo/frame/encode-error", test_encode_error);
  g_test_add_func ("/snodo/frame/encode-notification", test_encode_notification);
  g_test_add_func ("/snodo/frame/encode-request", test_encode_request);

  return g_test_run ();
}
