/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include <json-glib/json-glib.h>

#include "snodo-http-framing-private.h"
#include "snodo-http-rules-private.h"
#include "snodo-server.h"
#include "snodo-test-util.h"
#include "snodo-wire-private.h"

static void
test_line_kind (void)
{
  static const struct {
    const char *line;
    gboolean    response;
    int         code;
  } cases[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n", TRUE, 0 },
    { "{\"jsonrpc\":\"2.0\",\"id\":-7,\"error\":{\"code\":-32601,\"message\":\"x\"}}\n", TRUE, -32601 },
    { "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\",\"error\":{\"code\":-32020,\"message\":\"x\"}}\n", TRUE, -32020 },
    { "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"x\"}}\n", FALSE, 0 },
    { "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"elicitation/create\",\"params\":{}}\n", FALSE, 0 },
    { "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n", FALSE, 0 },
    /* Not the encoder's layout: parsed. */
    { "{\"id\":5,\"jsonrpc\":\"2.0\",\"error\":{\"message\":\"x\",\"code\":-32602}}\n", TRUE, -32602 },
    { "{\"result\":{},\"jsonrpc\":\"2.0\",\"id\":\"k\"}\n", TRUE, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GBytes) line = g_bytes_new_static (cases[i].line, strlen (cases[i].line));
      int code = 1;

      g_assert_cmpint (snodo_http_line_is_response (line, &code), ==, cases[i].response);
      if (cases[i].response)
        g_assert_cmpint (code, ==, cases[i].code);
    }
}

static void
test_status (void)
{
  g_assert_cmpuint (snodo_http_status_for_code (-32700), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32600), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32602), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32020), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32021), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32022), ==, 400);
  g_assert_cmpuint (snodo_http_status_for_code (-32601), ==, 404);
  g_assert_cmpuint (snodo_http_status_for_code (-32603), ==, 200);
  g_assert_cmpuint (snodo_http_status_for_code (-32010), ==, 503);
  g_assert_cmpuint (snodo_http_status_for_code (0), ==, 200);
}

static void
test_accept (void)
{
  /* The last ones are about reading the header in place: ranges that only
   * start or end like the type, empty items, blanks and parameters. */
  static const struct {
    const char *accept;
    const char *type;
    gboolean    accepted;
  } cases[] = {
    { "application/json, text/event-stream", "application/json", TRUE },
    { "application/json, text/event-stream", "text/event-stream", TRUE },
    { "Application/JSON;q=0.9 ,text/*", "text/event-stream", TRUE },
    { "*/*", "application/json", TRUE },
    { "application/json", "text/event-stream", FALSE },
    { "text/html", "text/event-stream", FALSE },
    { NULL, "application/json", FALSE },
    { "application/jsonx, text/event", "application/json", FALSE },
    { "text/event-streams", "text/event-stream", FALSE },
    { "", "application/json", FALSE },
    { " , ;q=1,", "application/json", FALSE },
    { "application/*", "text/event-stream", FALSE },
    { "*/json", "application/json", FALSE },
    { ",, \t text/event-stream \t;q=0.5,", "text/event-stream", TRUE },
    { "text/html,APPLICATION/*;q=0.1", "application/json", TRUE },
    { "text/html, */*", "application/json", TRUE },
    { "text/html; charset=\"a,b\", application/json", "application/json", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("Accept: %s, for %s", cases[i].accept ? cases[i].accept : "(none)", cases[i].type);
      g_assert_cmpint (snodo_http_accepts (cases[i].accept, cases[i].type), ==, cases[i].accepted);
    }
}

static void
test_host_origin (void)
{
  const char *good_hosts[] = { "localhost", "LOCALHOST:8080", "127.0.0.1", "127.0.0.1:1", "[::1]", "[::1]:443" };
  const char *bad_hosts[] = { "evil.example", "127.0.0.1.evil.example", "localhost:80x", "[::1", "[::1]x", "" };
  const char *good_origins[] = { "http://localhost", "https://127.0.0.1:3000", "http://[::1]:9", "http://localhost/" };
  const char *bad_origins[] = { "null", "https://evil.example", "file://localhost", "http://localhost.evil.example",
                                "http://127.0.0.2", "http://localhost/path" };

  for (guint i = 0; i < G_N_ELEMENTS (good_hosts); i++)
    g_assert_true (snodo_http_host_header_is_loopback (good_hosts[i]));
  for (guint i = 0; i < G_N_ELEMENTS (bad_hosts); i++)
    g_assert_false (snodo_http_host_header_is_loopback (bad_hosts[i]));
  for (guint i = 0; i < G_N_ELEMENTS (good_origins); i++)
    g_assert_true (snodo_http_origin_is_loopback (good_origins[i]));
  for (guint i = 0; i < G_N_ELEMENTS (bad_origins); i++)
    g_assert_false (snodo_http_origin_is_loopback (bad_origins[i]));
}

static void
test_decode (void)
{
  static const struct {
    const char *value;
    const char *decoded;
  } cases[] = {
    { "tools/call", "tools/call" },
    { "=?base64?aMOp?=", "h\xc3\xa9" },
    { "=?base64?ID0/YmFzZTY0P3g/PSA=?=", " =?base64?x?= " },
    { "h\xc3\xa9", NULL },
    { "a\tb", NULL },
    { "=?base64?!!!?=", NULL },
    { "=?base64?/w==?=", NULL },
    { "=?base64?AA==?=", NULL },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean invalid;
      g_autofree char *decoded = snodo_http_decode_header_value (cases[i].value, &invalid);

      g_assert_cmpstr (decoded, ==, cases[i].decoded);
      g_assert_cmpint (invalid, ==, cases[i].decoded == NULL);
    }
}

static void
test_param_matches (void)
{
  g_autoptr(JsonNode) text = json_from_string ("\"eu\"", NULL);
  g_autoptr(JsonNode) integer = json_from_string ("42", NULL);
  g_autoptr(JsonNode) real = json_from_string ("42.0", NULL);
  g_autoptr(JsonNode) yes = json_from_string ("true", NULL);

  g_assert_true (snodo_http_param_matches ("eu", text));
  g_assert_false (snodo_http_param_matches ("EU", text));
  g_assert_true (snodo_http_param_matches ("42", integer));
  g_assert_true (snodo_http_param_matches ("42.0", integer));
  g_assert_true (snodo_http_param_matches ("42", real));
  g_assert_false (snodo_http_param_matches ("42x", integer));
  g_assert_false (snodo_http_param_matches ("", integer));
  g_assert_true (snodo_http_param_matches ("true", yes));
  g_assert_false (snodo_http_param_matches ("1", yes));
}

static void
test_param_numbers_exact (void)
{
  g_autoptr(JsonNode) big = snodo_test_parse ("9007199254740992");
  g_autoptr(JsonNode) safe = snodo_test_parse ("9007199254740991");
  g_autoptr(JsonNode) answer = snodo_test_parse ("42");
  g_autoptr(JsonNode) negative = snodo_test_parse ("-7");
  g_autoptr(JsonNode) half = snodo_test_parse ("0.5");

  g_test_summary ("Mcp-Param numbers: the JSON grammar only, compared exactly, within ±(2^53 − 1)");

  /* Beyond 2^53 − 1 no header matches, not even the same digits. */
  g_assert_false (snodo_http_param_matches ("9007199254740992", big));
  g_assert_false (snodo_http_param_matches ("9007199254740993", big));
  g_assert_true (snodo_http_param_matches ("9007199254740991", safe));
  g_assert_false (snodo_http_param_matches ("9007199254740990", safe));
  g_assert_false (snodo_http_param_matches ("9007199254740992", safe));
  /* Not JSON numbers. */
  g_assert_false (snodo_http_param_matches ("0x2A", answer));
  g_assert_false (snodo_http_param_matches ("+42", answer));
  g_assert_false (snodo_http_param_matches ("042", answer));
  g_assert_false (snodo_http_param_matches (" 42", answer));
  g_assert_false (snodo_http_param_matches ("42.", answer));
  g_assert_false (snodo_http_param_matches ("inf", answer));
  g_assert_false (snodo_http_param_matches ("NaN", half));
  /* JSON numbers of the same value. */
  g_assert_true (snodo_http_param_matches ("4.2e1", answer));
  g_assert_true (snodo_http_param_matches ("-7", negative));
  g_assert_false (snodo_http_param_matches ("-7.5", negative));
  g_assert_true (snodo_http_param_matches ("0.5", half));
  g_assert_true (snodo_http_param_matches ("5e-1", half));
  g_assert_false (snodo_http_param_matches (".5", half));
}

static const char *
repeated_header (gpointer    data,
                 const char *name)
{
  return g_str_equal (name, data) ? SNODO_HTTP_HEADER_REPEATED : "tools/call";
}

static void
test_repeated_headers (void)
{
  g_autoptr(SnodoServer) server = snodo_server_new ("t", "1");
  g_autoptr(JsonNode) message = snodo_test_parse ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
                                                  "\"params\":{\"name\":\"tools/call\"}}");
  SnodoFrame frame = { 0, };
  g_autofree char *method = NULL;
  g_autofree char *name = NULL;

  g_test_summary ("An Mcp-Method or Mcp-Name header given more than once is refused");

  frame.kind = SNODO_FRAME_REQUEST;
  frame.message = message;
  frame.method = "tools/call";
  frame.params = json_object_get_object_member (json_node_get_object (message), "params");
  method = snodo_http_check_standard_headers (server, repeated_header, (gpointer) "Mcp-Method", &frame);
  g_assert_nonnull (method);
  g_assert_nonnull (strstr (method, "more than once"));
  name = snodo_http_check_standard_headers (server, repeated_header, (gpointer) "Mcp-Name", &frame);
  g_assert_nonnull (name);
  g_assert_nonnull (strstr (name, "Mcp-Name"));
}

/* Feeds @text whole, and byte by byte: both say the same. */
static gboolean
framing_accepts (const char *text)
{
  SnodoHttpFraming whole = { 0, };
  SnodoHttpFraming bytes = { 0, };
  gboolean ok_whole = snodo_http_framing_feed (&whole, (const guint8 *) text, strlen (text));
  gboolean ok_bytes = TRUE;

  for (gsize i = 0; text[i] != '\0' && ok_bytes; i++)
    ok_bytes = snodo_http_framing_feed (&bytes, (const guint8 *) text + i, 1);
  g_assert_cmpint (ok_whole, ==, ok_bytes);
  return ok_whole;
}

static void
test_framing (void)
{
  g_test_summary ("The framing follower accepts well-formed requests one after the other (bodies by "
                  "length, chunked bodies with extensions, bare LF, trailers) and refuses malformed "
                  "chunk sizes and data not followed by CRLF, fed whole or byte by byte");

  /* Two requests on one connection: by length, then chunked, then one
   * whose body is a malformed chunk size in disguise (by length: fine). */
  g_assert_true (framing_accepts ("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nzz\r\n\n"
                                  "POST / HTTP/1.1\r\ntransfer-encoding: Chunked\r\n\r\n"
                                  "3;a=b\r\nabc\r\n0\r\nX-T: 1\r\n\r\n"
                                  "GET / HTTP/1.1\r\nHost: x\r\n\r\n"
                                  "POST / HTTP/1.1\nTransfer-Encoding: chunked\n\n3\nabc\n0\n\n"));
  g_assert_true (framing_accepts ("\r\nPOST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                  "00000000000000000000a\r\n0123456789\r\n0\r\n\r\n"));
  /* Not followed: an encoding libsoup reads or refuses itself. */
  g_assert_true (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\nzz\r\n"));

  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"));
  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\n"));
  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n\r\n"));
  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                   "1000000000000000\r\n"));
  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcd\r\n"));
  g_assert_false (framing_accepts ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\n"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/http-rules/line-kind", test_line_kind);
  g_test_add_func ("/snodo/http-rules/status", test_status);
  g_test_add_func ("/snodo/http-rules/param-numbers-exact", test_param_numbers_exact);
  g_test_add_func ("/snodo/http-rules/repeated-headers", test_repeated_headers);
  g_test_add_func ("/snodo/http-rules/accept", test_accept);
  g_test_add_func ("/snodo/http-rules/host-origin", test_host_origin);
  g_test_add_func ("/snodo/http-rules/decode", test_decode);
  g_test_add_func ("/snodo/http-rules/param-matches", test_param_matches);
  g_test_add_func ("/snodo/http-rules/framing", test_framing);

  return g_test_run ();
}
