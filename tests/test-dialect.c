/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The protocol layer's dialects on their own, with no server: the choice
 * of a request's version from plain inputs, the tables, negotiation, and
 * the shaping of results with a stamp. */

#include "config.h"

#include "snodo-test-util.h"

#include <string.h>

#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"

#define ALL_VERSIONS ((1u << SNODO_PROTOCOL_VERSION_2025_06_18) | \
                      (1u << SNODO_PROTOCOL_VERSION_2025_11_25) | \
                      (1u << SNODO_PROTOCOL_VERSION_2026_07_28))
#define LEGACY_VERSIONS ((1u << SNODO_PROTOCOL_VERSION_2025_06_18) | \
                         (1u << SNODO_PROTOCOL_VERSION_2025_11_25))
#define MODERN_VERSIONS (1u << SNODO_PROTOCOL_VERSION_2026_07_28)

#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
                    "\"io.modelcontextprotocol/clientCapabilities\":{}}"

typedef struct
{
  const char           *line;
  const char           *header;
  guint                 versions;
  SnodoEra              era;
  SnodoProtocolVersion  legacy_version;
  /* The version chosen, or UNKNOWN for an error of @code. */
  SnodoProtocolVersion  version;
  int                   code;
} SelectCase;

static void
test_select (void)
{
  static const SelectCase cases[] = {
    /* Before any initialize: the oldest version of the initialize era. */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}",
      NULL, ALL_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_2025_06_18, 0 },
    /* A connection settled in the initialize era keeps its version. */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      NULL, ALL_VERSIONS, SNODO_ERA_LEGACY, SNODO_PROTOCOL_VERSION_2025_11_25,
      SNODO_PROTOCOL_VERSION_2025_11_25, 0 },
    /* The header decides in the initialize era. */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      "2025-11-25", ALL_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_2025_11_25, 0 },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      "1999-01-01", ALL_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_UNKNOWN,
      SNODO_RPC_ERROR_INVALID_REQUEST },
    /* The envelope makes a 2026-07-28 request… */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}",
      NULL, ALL_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_2026_07_28, 0 },
    /* …refused on a connection of the initialize era… */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}",
      NULL, ALL_VERSIONS, SNODO_ERA_LEGACY, SNODO_PROTOCOL_VERSION_2025_06_18,
      SNODO_PROTOCOL_VERSION_UNKNOWN, SNODO_RPC_ERROR_INVALID_REQUEST },
    /* …that a header must agree with… */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}",
      "2025-06-18", ALL_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_UNKNOWN,
      SNODO_RPC_ERROR_HEADER_MISMATCH },
    /* …and no signal at all when 2026-07-28 is not served. */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}",
      NULL, LEGACY_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_2025_06_18, 0 },
    /* A request without the envelope where only 2026-07-28 is served. */
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      NULL, MODERN_VERSIONS, SNODO_ERA_UNDECIDED, 0, SNODO_PROTOCOL_VERSION_UNKNOWN,
      SNODO_RPC_ERROR_INVALID_PARAMS },
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
      NULL, ALL_VERSIONS, SNODO_ERA_MODERN, 0, SNODO_PROTOCOL_VERSION_UNKNOWN,
      SNODO_RPC_ERROR_INVALID_PARAMS },
  };

  /* Each case with _meta built by the decoder, and left as text as the
   * transports decode. */
  for (guint i = 0; i < 2 * G_N_ELEMENTS (cases); i++)
    {
      const SelectCase *c = &cases[i / 2];
      g_auto(SnodoFrame) frame = { 0, };
      g_auto(SnodoRequestMeta) meta = { 0, };
      SnodoSelection selection = { 0, };
      gboolean ok;

      if (i % 2 == 0)
        snodo_frame_decode (c->line, strlen (c->line), &frame);
      else
        snodo_dialect_decode (c->line, strlen (c->line), &frame);
      g_assert_cmpint (frame.kind, ==, SNODO_FRAME_REQUEST);
      snodo_request_meta_init (&meta, &frame);
      ok = snodo_dialect_select (&frame, &meta, c->header, c->versions, c->era, c->legacy_version, &selection);
      if (c->version != SNODO_PROTOCOL_VERSION_UNKNOWN)
        {
          g_assert_true (ok);
          g_assert_nonnull (selection.dialect);
          g_assert_cmpint (selection.dialect->version, ==, c->version);
          g_assert_cmpint (selection.dialect->stateless, ==,
                           snodo_protocol_version_is_stateless (c->version));
        }
      else
        {
          g_assert_false (ok);
          g_assert_null (selection.dialect);
          g_assert_cmpint (selection.error_code, ==, c->code);
          g_assert_nonnull (selection.error_message);
        }
      snodo_selection_clear (&selection);
    }
}

/* initialize when only 2026-07-28 is served: -32022 naming what is. */
static void
test_select_unsupported (void)
{
  static const char line[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
                             "\"params\":{\"protocolVersion\":\"2025-06-18\"}}";
  g_auto(SnodoFrame) frame = { 0, };
  g_auto(SnodoRequestMeta) meta = { 0, };
  SnodoSelection selection = { 0, };
  g_autoptr(JsonNode) expected = snodo_test_parse ("{\"supported\":[\"2026-07-28\"],\"requested\":\"2025-06-18\"}");

  snodo_frame_decode (line, strlen (line), &frame);
  snodo_request_meta_init (&meta, &frame);
  g_assert_false (snodo_dialect_select (&frame, &meta, NULL, MODERN_VERSIONS, SNODO_ERA_UNDECIDED, 0, &selection));
  g_assert_cmpint (selection.error_code, ==, SNODO_RPC_ERROR_UNSUPPORTED_PROTOCOL_VERSION);
  g_assert_true (snodo_test_json_equal (selection.error_data, expected));
  snodo_selection_clear (&selection);
}

static void
test_lookup (void)
{
  const SnodoDialect *legacy = snodo_dialect_for_version (SNODO_PROTOCOL_VERSION_2025_06_18);
  const SnodoDialect *modern = snodo_dialect_for_version (SNODO_PROTOCOL_VERSION_2026_07_28);
  const SnodoMethod *method;

  g_assert_null (snodo_dialect_for_version (SNODO_PROTOCOL_VERSION_UNKNOWN));

  method = snodo_dialect_lookup (legacy, "initialize");
  g_assert_nonnull (method);
  g_assert_cmpint (method->id, ==, SNODO_METHOD_INITIALIZE);
  g_assert_null (snodo_dialect_lookup (legacy, "server/discover"));
  g_assert_null (snodo_dialect_lookup (modern, "initialize"));
  g_assert_null (snodo_dialect_lookup (modern, "no/such"));

  /* A method's needs are the server's to check: the table names them. */
  method = snodo_dialect_lookup (modern, "resources/read");
  g_assert_nonnull (method);
  g_assert_cmpint (method->id, ==, SNODO_METHOD_RESOURCES_READ);
  g_assert_cmpint (method->needs, ==, SNODO_NEEDS_RESOURCES);
  g_assert_true (method->flags & SNODO_METHOD_FLAGS_INPUT);

  /* Every identifier below SNODO_N_METHODS. */
  for (const SnodoDialect *d = legacy; d != NULL; d = d == legacy ? modern : NULL)
    for (const SnodoMethod *m = d->methods; m->name != NULL; m++)
      g_assert_cmpint (m->id, <, SNODO_N_METHODS);
}

static void
test_negotiate (void)
{
  g_assert_cmpint (snodo_protocol_negotiate (ALL_VERSIONS, "2025-06-18"), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
  g_assert_cmpint (snodo_protocol_negotiate (ALL_VERSIONS, "2030-01-01"), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  g_assert_cmpint (snodo_protocol_negotiate (ALL_VERSIONS, "2026-07-28"), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  g_assert_cmpint (snodo_protocol_negotiate (ALL_VERSIONS, NULL), ==, SNODO_PROTOCOL_VERSION_2025_11_25);
  g_assert_cmpint (snodo_protocol_negotiate (MODERN_VERSIONS, "2025-06-18"), ==, SNODO_PROTOCOL_VERSION_UNKNOWN);
  g_assert_cmpint (snodo_protocol_versions_oldest_legacy (ALL_VERSIONS), ==, SNODO_PROTOCOL_VERSION_2025_06_18);
  g_assert_cmpint (snodo_protocol_versions_oldest_legacy (MODERN_VERSIONS), ==, SNODO_PROTOCOL_VERSION_UNKNOWN);
}

static void
test_log_levels (void)
{
  for (guint i = 0; i <= SNODO_LOG_LEVEL_EMERGENCY; i++)
    g_assert_cmpint (snodo_log_level_from_string (snodo_log_level_to_string (i)), ==, (int) i);
  g_assert_cmpstr (snodo_log_level_to_string (SNODO_LOG_LEVEL_WARNING), ==, "warning");
  g_assert_cmpint (snodo_log_level_from_string ("loud"), ==, -1);
  g_assert_cmpint (snodo_log_level_from_string (NULL), ==, -1);
}

static void
assert_line (GBytes     *line,
             const char *expected)
{
  gsize len;
  const char *data = g_bytes_get_data (line, &len);
  g_autofree char *with_newline = g_strconcat (expected, "\n", NULL);

  g_assert_cmpmem (data, len, with_newline, strlen (with_newline));
}

/* A text result written straight from its text is the same line as the
 * result built as a tree and encoded. */
static void
test_encode_text_result (void)
{
  static const char * const texts[] = {
    "", "hello", "a\nb\t\"q\"\\", "\x01\x1f\x7f", "caf\xc3\xa9 \xf0\x9f\x98\x80",
    "nul \xc0\x80 here", "bad \xff\xfe utf-8", "0123456789abcdef0123456789abcdef \" / end",
  };
  static const char * const tails[] = { NULL, "\"resultType\":\"complete\",\"_meta\":{\"x\":1}" };
  g_autoptr(JsonNode) iid = snodo_test_parse ("42");
  g_autoptr(JsonNode) sid = snodo_test_parse ("\"r\\u0001\"");
  JsonNode *ids[] = { iid, sid, NULL };

  for (guint t = 0; t < G_N_ELEMENTS (texts); t++)
    for (guint e = 0; e < 2; e++)
      for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
        for (guint k = 0; k < G_N_ELEMENTS (tails); k++)
          {
            g_autoptr(JsonNode) result = snodo_text_result_new (texts[t], e);
            g_autoptr(GBytes) built = NULL;
            g_autoptr(GBytes) direct = snodo_text_result_encode (ids[i], texts[t], e, tails[k]);

            if (tails[k] == NULL)
              built = snodo_frame_encode_result (ids[i], result);
            else
              built = snodo_frame_encode_result_tail (ids[i], result, tails[k]);
            g_assert_true (g_bytes_equal (built, direct));
          }
}

/* A result is shaped by what the stamp says of the server: the same
 * ending, written once, for a plain result and for one text block; the
 * initialize era has none of it. */
static void
test_encode_with_stamp (void)
{
  const SnodoDialect *legacy = snodo_dialect_for_version (SNODO_PROTOCOL_VERSION_2025_11_25);
  const SnodoDialect *modern = snodo_dialect_for_version (SNODO_PROTOCOL_VERSION_2026_07_28);
  const SnodoMethod *list = snodo_dialect_lookup (modern, "tools/list");
  const SnodoMethod *call = snodo_dialect_lookup (modern, "tools/call");
  g_autoptr(SnodoStamp) stamp = snodo_stamp_new ("app", "1.0", NULL, 500, NULL);
  g_autoptr(JsonNode) id = snodo_test_parse ("7");
  g_autoptr(JsonNode) result = snodo_test_parse ("{\"tools\":[]}");
  g_autoptr(JsonNode) shaped = snodo_test_parse ("{\"tools\":[],\"_meta\":{\"a\":1}}");
  g_autoptr(GBytes) plain = snodo_dialect_encode_result (modern, list, stamp, id, result);
  g_autoptr(GBytes) merged = snodo_dialect_encode_result (modern, list, stamp, id, shaped);
  g_autoptr(GBytes) text = snodo_dialect_encode_text_result (modern, call, stamp, id, "hi", FALSE);
  g_autoptr(GBytes) old = snodo_dialect_encode_result (legacy, snodo_dialect_lookup (legacy, "tools/list"),
                                                       NULL, id, result);

  g_assert_null (snodo_stamp_get_request_state_key (stamp));
  assert_line (plain, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[],\"resultType\":\"complete\","
                      "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"app\",\"version\":\"1.0\"}},"
                      "\"ttlMs\":500,\"cacheScope\":\"private\"}}");
  assert_line (merged, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[],\"resultType\":\"complete\","
                       "\"_meta\":{\"a\":1,\"io.modelcontextprotocol/serverInfo\":{\"name\":\"app\",\"version\":\"1.0\"}},"
                       "\"ttlMs\":500,\"cacheScope\":\"private\"}}");
  assert_line (text, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],"
                     "\"resultType\":\"complete\","
                     "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"app\",\"version\":\"1.0\"}}}}");
  assert_line (old, "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[]}}");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/dialect/select", test_select);
  g_test_add_func ("/snodo/dialect/select-unsupported", test_select_unsupported);
  g_test_add_func ("/snodo/dialect/lookup", test_lookup);
  g_test_add_func ("/snodo/dialect/negotiate", test_negotiate);
  g_test_add_func ("/snodo/dialect/log-levels", test_log_levels);
  g_test_add_func ("/snodo/dialect/encode-text-result", test_encode_text_result);
  g_test_add_func ("/snodo/dialect/encode-with-stamp", test_encode_with_stamp);

  return g_test_run ();
}
