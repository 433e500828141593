/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

#include <math.h>
#include <string.h>
#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
#include <malloc.h>
#endif

#include "snodo-json-private.h"

static JsonNode *
parse_ok (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = snodo_json_parse (json, strlen (json), &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

/* Asserts that @data fails to parse, and that the message contains @part
 * when @part is not NULL. */
static void
parse_fails_len (const char *data,
                 gsize       len,
                 const char *part)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = snodo_json_parse (data, len, &error);

  if (node != NULL)
    g_test_message ("unexpectedly parsed: %.*s", (int) MIN (len, 200), data);
  g_assert_null (node);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR);
  if (part != NULL && strstr (error->message, part) == NULL)
    g_error ("message \"%s\" lacks \"%s\"", error->message, part);
}

static void
parse_fails (const char *json,
             const char *part)
{
  parse_fails_len (json, strlen (json), part);
}

static char *
write_node (JsonNode *node)
{
  gsize len = 0;
  char *text = snodo_json_to_string (node, &len);

  g_assert_cmpuint (strlen (text), ==, len);
  return text;
}

/* Parses @json and asserts that writing it back gives @expected. */
static void
assert_rewrites (const char *json,
                 const char *expected)
{
  g_autoptr(JsonNode) node = parse_ok (json);
  g_autofree char *text = write_node (node);

  g_assert_cmpstr (text, ==, expected);
}

static void
test_scalars (void)
{
  g_autoptr(JsonNode) t = parse_ok ("true");
  g_autoptr(JsonNode) f = parse_ok ("false");
  g_autoptr(JsonNode) n = parse_ok ("null");
  g_autoptr(JsonNode) i = parse_ok ("-42");
  g_autoptr(JsonNode) d = parse_ok ("2.5");
  g_autoptr(JsonNode) s = parse_ok ("\"h\xc3\xa9llo\"");

  g_assert_true (json_node_get_boolean (t));
  g_assert_false (json_node_get_boolean (f));
  g_assert_true (JSON_NODE_HOLDS_NULL (n));
  g_assert_true (json_node_get_value_type (i) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (i), ==, -42);
  g_assert_true (json_node_get_value_type (d) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (d), ==, 2.5);
  g_assert_cmpstr (json_node_get_string (s), ==, "h\xc3\xa9llo");
}

static void
test_structure (void)
{
  g_autoptr(JsonNode) node = parse_ok (" \t\r\n{ \"a\" : [ 1 , {\"b\" : null} , [ ] ] , \"c\" : { } }\r\n ");
  g_autoptr(JsonNode) expected = snodo_test_parse ("{\"a\":[1,{\"b\":null},[]],\"c\":{}}");
  JsonArray *a;

  g_assert_true (snodo_test_json_equal (node, expected));
  a = json_object_get_array_member (json_node_get_object (node), "a");
  g_assert_true (json_node_get_parent (json_array_get_element (a, 1)) ==
                 json_object_get_member (json_node_get_object (node), "a"));
}

static void
test_strict (void)
{
  /* json-glib 1.6 accepts the first six (or returns their first value). */
  static const char *invalid[] = {
    "{'a':1}", "/* c */ 1", "1 // c", "{\"a\":1}\n{\"b\":2}", "1 2", "[1] x",
    "01", "-01", "00", "NaN", "Infinity", "-Infinity", "+1", ".5", "1.", "1.e5",
    "1e", "1e+", "-", "0x10", "True", "nul", "tru", "falsey",
    "[1,]", "{\"a\":1,}", "[,1]", "[1 2]", "{\"a\" 1}", "{1:2}", "{\"a\"}",
    "{\"a\":}", "{", "[", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"",
    "\"\\", "[1]]", "{}}", "", "   ", "\xef\xbb\xbf{}",
  };

  g_test_summary ("Input json-glib 1.6 accepts leniently (quotes, comments, "
                  "two values, leading zeros) and other near-JSON is rejected");

  for (gsize i = 0; i < G_N_ELEMENTS (invalid); i++)
    parse_fails (invalid[i], NULL);
}

static void
test_error_messages (void)
{
  parse_fails ("[1,x]", "unexpected character 'x' at byte 3");
  parse_fails ("[1,", "unexpected end of input at byte 3");
  parse_fails ("[1 2]", "expected ',' or ']' at byte 3");
  parse_fails ("{\"a\":1 \"b\"}", "expected ',' or '}' at byte 7");
  parse_fails ("{\"a\" 1}", "expected ':' at byte 5");
  parse_fails ("{1:2}", "expected a member name at byte 1");
  parse_fails ("{} {}", "unexpected data after the value at byte 3");
  parse_fails ("007", "leading zeros are not allowed at byte 0");
  parse_fails ("[\xc3\xa9]", "unexpected character U+00E9 at byte 1");
  parse_fails ("\"a\\qb\"", "invalid escape at byte 3");
}

static void
test_integers (void)
{
  g_autoptr(JsonNode) max = parse_ok ("9223372036854775807");
  g_autoptr(JsonNode) min = parse_ok ("-9223372036854775808");
  g_autoptr(JsonNode) above = parse_ok ("9223372036854775808");
  g_autoptr(JsonNode) below = parse_ok ("-9223372036854775809");
  g_autoptr(JsonNode) u64 = parse_ok ("18446744073709551615");
  g_autoptr(JsonNode) huge = parse_ok ("123456789012345678901234567890");
  g_autoptr(JsonNode) zero = parse_ok ("-0");
  g_autoptr(JsonNode) wrap = parse_ok ("36893488147419103233");
  g_autoptr(JsonNode) wrap_neg = parse_ok ("-18446744073709551617");

  g_test_summary ("Integers that fit gint64 stay integers; larger ones become "
                  "doubles instead of wrapping (json-glib 1.6 reads "
                  "18446744073709551615 as -1)");

  g_assert_true (json_node_get_value_type (max) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (max), ==, G_MAXINT64);
  g_assert_true (json_node_get_value_type (min) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (min), ==, G_MININT64);
  g_assert_true (json_node_get_value_type (above) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (above), ==, 9223372036854775808.0);
  g_assert_true (json_node_get_value_type (below) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (below), ==, -9223372036854775809.0);
  g_assert_true (json_node_get_value_type (u64) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (u64), ==, 18446744073709551615.0);
  g_assert_true (json_node_get_value_type (huge) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (huge), ==, 123456789012345678901234567890.0);
  g_assert_true (json_node_get_value_type (zero) == G_TYPE_INT64);
  g_assert_cmpint (json_node_get_int (zero), ==, 0);
  g_assert_true (json_node_get_value_type (wrap) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (wrap), ==, 36893488147419103233.0);
  g_assert_true (json_node_get_value_type (wrap_neg) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (wrap_neg), ==, -18446744073709551617.0);

  assert_rewrites ("[9223372036854775807,-9223372036854775808,0,-1]",
                   "[9223372036854775807,-9223372036854775808,0,-1]");
  assert_rewrites ("18446744073709551615", "1.8446744073709552e+19");
}

static void
test_doubles (void)
{
  g_autoptr(JsonNode) tenth = parse_ok ("0.1");
  g_autoptr(JsonNode) one = parse_ok ("1.0");
  g_autoptr(JsonNode) exp = parse_ok ("1E2");
  g_autoptr(JsonNode) negzero = parse_ok ("-0.0");
  g_autoptr(JsonNode) tiny = parse_ok ("1e-400");

  g_assert_true (json_node_get_value_type (tenth) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (tenth), ==, 0.1);
  g_assert_true (json_node_get_value_type (one) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (one), ==, 1.0);
  g_assert_true (json_node_get_value_type (exp) == G_TYPE_DOUBLE);
  g_assert_cmpfloat (json_node_get_double (exp), ==, 100.0);
  g_assert_true (json_node_get_value_type (negzero) == G_TYPE_DOUBLE);
  g_assert_true (signbit (json_node_get_double (negzero)));
  g_assert_cmpfloat (json_node_get_double (tiny), ==, 0.0);
}

static void
test_number_overflow (void)
{
  g_test_summary ("A number too large for a double is an error, not an "
                  "infinity (which json-glib 1.6 would write as inf.0)");

  parse_fails ("1e400", "number out of range at byte 0");
  parse_fails ("[-1e400]", "number out of range at byte 1");
  parse_fails ("1797693134862315708145274237317043567981e270", "number out of range");
}

static void
test_escapes (void)
{
  g_autoptr(JsonNode) node = parse_ok ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20AC\"");

  g_assert_cmpstr (json_node_get_string (node), ==,
                   "\"\\/\b\f\n\r\tA\xc3\xa9\xe2\x82\xac");
}

static void
test_nul_escape (void)
{
  g_autoptr(JsonNode) node = parse_ok ("\"a\\u0000b\"");
  g_autoptr(JsonNode) member = parse_ok ("{\"k\\u0000\":\"\\u0000\"}");
  const char *str = json_node_get_string (node);

  g_test_summary ("U+0000 is kept as 0xC0 0x80 in the node (json-glib cuts "
                  "strings at NUL) and written back as \\u0000");

  g_assert_cmpuint (strlen (str), ==, 4);
  g_assert_cmpmem (str, 4, "a\xc0\x80" "b", 4);
  assert_rewrites ("\"a\\u0000b\"", "\"a\\u0000b\"");
  g_assert_true (json_object_has_member (json_node_get_object (member), "k\xc0\x80"));
  assert_rewrites ("{\"k\\u0000\":\"\\u0000\"}", "{\"k\\u0000\":\"\\u0000\"}");
}

static void
test_surrogates (void)
{
  g_autoptr(JsonNode) pair = parse_ok ("\"\\ud83d\\ude00\"");

  g_assert_cmpstr (json_node_get_string (pair), ==, "\xf0\x9f\x98\x80");
  assert_rewrites ("\"\\uD83D\\uDE00\"", "\"\xf0\x9f\x98\x80\"");

  parse_fails ("\"\\ud800\"", "lone high surrogate at byte 1");
  parse_fails ("\"\\ud800x\"", "lone high surrogate");
  parse_fails ("\"\\ud800\\n\"", "lone high surrogate");
  parse_fails ("\"\\ud800\\u0041\"", "lone high surrogate");
  parse_fails ("\"\\ud800\\ud800\"", "lone high surrogate");
  parse_fails ("\"\\ude00\"", "lone low surrogate at byte 1");
  parse_fails ("\"x\\ude00\\ud83d\"", "lone low surrogate at byte 2");
  parse_fails ("\"\\ud800\\u", NULL);
}

static void
test_control_characters (void)
{
  parse_fails ("\"a\tb\"", "raw control character in a string at byte 2");
  parse_fails ("\"a\nb\"", "raw control character");
  parse_fails ("\"\x01\"", "raw control character");
  parse_fails ("{\"\x1f\":1}", "raw control character");
}

static void
test_invalid_utf8 (void)
{
  parse_fails ("\"\xff\"", "invalid UTF-8 at byte 1");
  parse_fails ("\"\xc0\x80\"", "invalid UTF-8 at byte 1");
  parse_fails ("\"\xed\xa0\x80\"", "invalid UTF-8 at byte 1");
  parse_fails ("\"ab\xe2\x82\"", "invalid UTF-8 at byte 3");
  parse_fails ("\"\xf4\x90\x80\x80\"", "invalid UTF-8");
  parse_fails ("[1,\xfe]", "invalid UTF-8 at byte 3");
}

static void
test_nul_byte (void)
{
  g_test_summary ("A raw NUL byte anywhere is an error, also after a "
                  "complete value");

  parse_fails_len ("1\0", 2, "NUL byte at byte 1");
  parse_fails_len ("\"a\0b\"", 5, "NUL byte at byte 2");
  parse_fails_len ("\0", 1, "NUL byte at byte 0");
}

static void
test_not_terminated (void)
{
  const char data[] = "[1,2]]]]";
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(GError) error = NULL;

  g_test_summary ("The input is bounded by its length, not by a NUL");

  node = snodo_json_parse (data, 5, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (json_array_get_length (json_node_get_array (node)), ==, 2);
  g_clear_pointer (&node, json_node_unref);

  node = snodo_json_parse ("123456", 3, &error);
  g_assert_no_error (error);
  g_assert_cmpint (json_node_get_int (node), ==, 123);
  g_clear_pointer (&node, json_node_unref);

  node = snodo_json_parse ("\"abc\"", 4, &error);
  g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR);
  g_assert_null (node);
}

static char *
nested (const char *open,
        const char *close,
        guint       depth)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < depth; i++)
    g_string_append (s, open);
  g_string_append (s, "1");
  for (guint i = 0; i < depth; i++)
    g_string_append (s, close);
  return g_string_free (s, FALSE);
}

static void
test_depth (void)
{
  g_autofree char *arrays = nested ("[", "]", SNODO_JSON_MAX_DEPTH);
  g_autofree char *objects = nested ("{\"a\":", "}", SNODO_JSON_MAX_DEPTH);
  g_autofree char *arrays_over = nested ("[", "]", SNODO_JSON_MAX_DEPTH + 1);
  g_autofree char *objects_over = nested ("{\"a\":", "}", SNODO_JSON_MAX_DEPTH + 1);
  g_autofree char *deep = g_strnfill (100000, '[');
  g_autofree char *huge = g_strnfill (2 * 1000 * 1000, '[');
  g_autoptr(JsonNode) a = NULL;
  g_autoptr(JsonNode) o = NULL;
  g_autofree char *a_text = NULL;
  g_autofree char *o_text = NULL;

  g_test_summary ("Nesting up to SNODO_JSON_MAX_DEPTH is read; deeper "
                  "input, even a 2 MB line of '[', is an error and never "
                  "overflows the stack");

  a = parse_ok (arrays);
  o = parse_ok (objects);
  a_text = write_node (a);
  o_text = write_node (o);
  g_assert_cmpstr (a_text, ==, arrays);
  g_assert_cmpstr (o_text, ==, objects);

  parse_fails (arrays_over, "nesting deeper than 128 levels at byte 128");
  parse_fails (objects_over, "nesting deeper than 128 levels");
  parse_fails (deep, "nesting deeper");
  parse_fails (huge, "nesting deeper");
}

static void
test_deep_write (void)
{
  g_autoptr(JsonNode) root = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(GPtrArray) arrays = g_ptr_array_new ();
  g_autofree char *text = NULL;
  JsonNode *node = root;
  const guint depth = 200000;

  g_test_summary ("The writer does not recurse: a tree built by the "
                  "application may be deeper than the reader allows");

  json_node_take_array (root, json_array_new ());
  g_ptr_array_add (arrays, json_node_get_array (root));
  for (guint i = 1; i < depth; i++)
    {
      JsonNode *child = json_node_new (JSON_NODE_ARRAY);

      json_node_take_array (child, json_array_new ());
      json_array_add_element (json_node_get_array (node), child);
      g_ptr_array_add (arrays, json_node_get_array (child));
      node = child;
    }

  text = write_node (root);
  g_assert_cmpuint (strlen (text), ==, 2 * depth);
  g_assert_cmpint (text[0], ==, '[');
  g_assert_cmpint (text[2 * depth - 1], ==, ']');

  /* json-glib frees trees recursively: take this one apart from the
   * bottom. */
  for (guint i = arrays->len - 1; i > 0; i--)
    json_array_remove_element (g_ptr_array_index (arrays, i - 1), 0);
}

static void
test_duplicate_members (void)
{
  g_autoptr(JsonNode) node = parse_ok ("{\"a\":1,\"b\":[2],\"a\":{\"c\":3}}");
  JsonObject *object = json_node_get_object (node);

  g_assert_cmpuint (json_object_get_size (object), ==, 2);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (object, "a"), "c"), ==, 3);
}

static void
test_member_order (void)
{
  assert_rewrites ("{\"zeta\":1,\"alpha\":2,\"mid\":{\"y\":1,\"b\":2,\"x\":3},\"a\":[3,2,1]}",
                   "{\"zeta\":1,\"alpha\":2,\"mid\":{\"y\":1,\"b\":2,\"x\":3},\"a\":[3,2,1]}");
}

static void
test_write_escaping (void)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (),
                                                    "a\"b\\c\nd\re\tf\bg\fh\x01\x1f\x7f/\xc3\xa9\xe2\x80\xa8");
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *text = write_node (node);

  g_test_summary ("Quotes, backslashes and control characters are escaped; "
                  "everything else is raw UTF-8; no raw newline is written");

  g_assert_cmpstr (text, ==,
                   "\"a\\\"b\\\\c\\nd\\re\\tf\\bg\\fh\\u0001\\u001f\x7f/\xc3\xa9\xe2\x80\xa8\"");
  g_assert_null (strchr (text, '\n'));
  g_assert_null (strchr (text, '\r'));
  back = parse_ok (text);
  g_assert_cmpstr (json_node_get_string (back), ==, json_node_get_string (node));
}

static void
test_write_member_escaping (void)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autofree char *text = NULL;

  json_object_set_int_member (object, "line\none", 1);
  json_object_set_string_member (object, "q\"", "v");
  json_node_set_object (node, object);
  text = write_node (node);
  g_assert_cmpstr (text, ==, "{\"line\\none\":1,\"q\\\"\":\"v\"}");
}

static void
test_write_invalid_utf8 (void)
{
  static const struct {
    const char *in;
    const char *out;
  } cases[] = {
    { "a\xff" "b", "\"a\xef\xbf\xbd" "b\"" },
    { "a\xe2\x82", "\"a\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "\xed\xa0\x80", "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "\xc1\x81", "\"\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "\xc0\x80", "\"\\u0000\"" },
    { "\xc0", "\"\xef\xbf\xbd\"" },
    { "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
  };

  g_test_summary ("Invalid UTF-8 in a string is written as U+FFFD, one per "
                  "bad byte, so the output is always valid; 0xC0 0x80 is U+0000");

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), cases[i].in);
      g_autoptr(JsonNode) back = NULL;
      g_autofree char *text = write_node (node);

      g_assert_cmpstr (text, ==, cases[i].out);
      back = parse_ok (text);
      g_assert_nonnull (back);
    }
}

static void
test_write_non_finite (void)
{
  g_autoptr(JsonNode) array = json_node_new (JSON_NODE_ARRAY);
  g_autoptr(JsonArray) a = json_array_new ();
  g_autofree char *text = NULL;

  g_test_summary ("Infinities and NaN are written as null (json-glib 1.6 "
                  "writes inf.0, which is not JSON)");

  json_array_add_double_element (a, INFINITY);
  json_array_add_double_element (a, -INFINITY);
  json_array_add_double_element (a, NAN);
  json_array_add_double_element (a, 1.5);
  json_node_set_array (array, a);
  text = write_node (array);
  g_assert_cmpstr (text, ==, "[null,null,null,1.5]");
}

static void
assert_double_text (double      d,
                    const char *expected)
{
  g_autoptr(JsonNode) node = json_node_init_double (json_node_alloc (), d);
  g_autoptr(JsonNode) back = NULL;
  g_autofree char *text = write_node (node);
  double e;

  g_assert_cmpstr (text, ==, expected);
  back = parse_ok (text);
  g_assert_true (json_node_get_value_type (back) == G_TYPE_DOUBLE);
  e = json_node_get_double (back);
  g_assert_cmpmem (&e, sizeof e, &d, sizeof d);
}

static void
test_double_format (void)
{
  g_test_summary ("Doubles are written in the shortest of 15-17 digits that "
                  "reads back identically, and always read back as doubles");

  assert_double_text (0.1, "0.1");
  assert_double_text (2.5, "2.5");
  assert_double_text (1.0, "1.0");
  assert_double_text (100.0, "100.0");
  assert_double_text (-0.0, "-0.0");
  assert_double_text (0.0, "0.0");
  assert_double_text (1e300, "1e+300");
  assert_double_text (-1.5e-300, "-1.5e-300");
  assert_double_text (1e21, "1e+21");
  assert_double_text (1e15, "1e+15");
  assert_double_text (123456789012345.0, "123456789012345.0");
  assert_double_text (0.1 + 0.2, "0.30000000000000004");
  assert_double_text (1.0 / 3.0, "0.3333333333333333");
  assert_double_text (G_MAXDOUBLE, "1.7976931348623157e+308");
  assert_double_text (4.9406564584124654e-324, "4.94065645841247e-324");
  assert_rewrites ("[1.0,-0.0,0.1,1E2]", "[1.0,-0.0,0.1,100.0]");
}

static void
test_double_round_trip (void)
{
  GRand *rand = g_rand_new_with_seed (20260101);

  for (guint i = 0; i < 20000; i++)
    {
      guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(JsonNode) back = NULL;
      g_autofree char *text = NULL;
      double d;
      double e;

      memcpy (&d, &bits, sizeof d);
      if (!isfinite (d))
        continue;

      node = json_node_init_double (json_node_alloc (), d);
      text = write_node (node);
      back = parse_ok (text);
      g_assert_true (json_node_get_value_type (back) == G_TYPE_DOUBLE);
      e = json_node_get_double (back);
      g_assert_cmpmem (&e, sizeof e, &d, sizeof d);
      g_assert_cmpuint (strlen (text), <=, 24);
    }

  g_rand_free (rand);
}

static void
test_to_line (void)
{
  g_autoptr(JsonNode) node = parse_ok ("{\"text\":\"a\\nb\\r\\n\",\"n\":[1,2]}");
  g_autoptr(GBytes) line = snodo_json_to_line (node);
  gsize len = 0;
  const char *data = g_bytes_get_data (line, &len);

  g_assert_cmpmem (data, len, "{\"text\":\"a\\nb\\r\\n\",\"n\":[1,2]}\n", 30);
  g_assert_true (memchr (data, '\n', len - 1) == NULL);
}

static void
test_round_trip_document (void)
{
  const char *doc =
    "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"result\":{\"content\":[{\"type\":\"text\","
    "\"text\":\"h\xc3\xa9 \\\"quoted\\\" \\\\ tab\\t\\u0000 \xf0\x9f\x98\x80\"}],"
    "\"isError\":false,\"n\":null,\"x\":-12.75,\"big\":1e+300,\"i\":-9007199254740993}}";

  assert_rewrites (doc, doc);
}

/* Random mutations of a valid document: the reader must answer each with a
 * tree or an error and nothing else (the tests run with fatal criticals). */
static void
test_random_input (void)
{
  const char *seed_doc =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"x\","
    "\"arguments\":{\"a\":[1,2.5,-3e2,true,false,null,\"\\u00e9\\ud83d\\ude00\\n\"]}}}";
  gsize seed_len = strlen (seed_doc);
  GRand *rand = g_rand_new_with_seed (4242);
  static const char alphabet[] = "{}[]:,\"\\ue0.-+1 \n\x01\xc3\xa9\xff";

  g_test_summary ("Mutated input gives a tree or an error, never a critical; "
                  "whatever parses writes back to text that parses the same");

  for (guint i = 0; i < 20000; i++)
    {
      g_autoptr(GString) s = g_string_new_len (seed_doc, seed_len);
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(GError) error = NULL;
      guint edits = g_rand_int_range (rand, 1, 5);

      for (guint j = 0; j < edits; j++)
        {
          guint pos = g_rand_int_range (rand, 0, s->len);
          char c = alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];

          switch (g_rand_int_range (rand, 0, 3))
            {
            case 0:
              s->str[pos] = c;
              break;
            case 1:
              g_string_insert_c (s, pos, c);
              break;
            default:
              g_string_erase (s, pos, 1);
              break;
            }
        }

      node = snodo_json_parse (s->str, s->len, &error);
      if (node == NULL)
        {
          g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR);
        }
      else
        {
          g_autofree char *text = write_node (node);
          g_autoptr(JsonNode) back = parse_ok (text);
          g_autofree char *again = write_node (back);

          g_assert_no_error (error);
          g_assert_cmpstr (text, ==, again);
        }
    }

  g_rand_free (rand);
}

/* The reader, the UTF-8 check and the writer take runs of plain bytes 32
 * or 16 bytes at a time (SSE2), then a word (8 bytes) at a time, and look
 * at the rest byte by byte: what follows checks every kind of byte at
 * every position around those blocks and words. */

static const char plain_fill[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !#$%&'()*+,-./";

/* @n plain bytes, different ones so that a misplaced copy shows. */
static void
append_plain (GString *s,
              guint    n)
{
  for (guint i = 0; i < n; i++)
    g_string_append_c (s, plain_fill[i % (sizeof plain_fill - 1)]);
}

static void
test_write_integers (void)
{
  static const gint64 values[] = {
    0, 1, -1, 9, 10, -10, 99, 100, 12345, -12345, 999999999, 1000000000,
    G_MAXINT32, G_MININT32, (gint64) G_MAXINT32 + 1, G_MAXINT64, G_MININT64, G_MAXINT64 - 1, G_MININT64 + 1,
  };

  g_test_summary ("Integers are written in full, as printf writes them");

  for (guint i = 0; i < G_N_ELEMENTS (values); i++)
    {
      g_autoptr(JsonNode) node = json_node_init_int (json_node_alloc (), values[i]);
      g_autofree char *text = write_node (node);
      g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, values[i]);

      g_assert_cmpstr (text, ==, expected);
    }

  for (gint64 value = 1; value < G_MAXINT64 / 10; value *= 10)
    for (gint64 delta = -1; delta <= 1; delta++)
      {
        g_autoptr(JsonNode) node = json_node_init_int (json_node_alloc (), -(value + delta));
        g_autofree char *text = write_node (node);
        g_autofree char *expected = g_strdup_printf ("%" G_GINT64_FORMAT, -(value + delta));

        g_assert_cmpstr (text, ==, expected);
      }
}

static void
test_string_runs (void)
{
  /* What is written between two runs of plain bytes, and what it reads as. */
  static const struct {
    const char *json;
    const char *value;
    gsize       value_len;
  } middles[] = {
    { "", "", 0 },
    { "\\n", "\n", 1 },
    { "\\\"", "\"", 1 },
    { "\\\\", "\\", 1 },
    { "\\/", "/", 1 },
    { "\\u00e9", "\xc3\xa9", 2 },
    { "\\u0000", "\xc0\x80", 2 },
    { "\\ud83d\\ude00", "\xf0\x9f\x98\x80", 4 },
    { "\xc3\xa9", "\xc3\xa9", 2 },
    { "\xe2\x82\xac", "\xe2\x82\xac", 3 },
    { "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 4 },
    { "\x7f", "\x7f", 1 },
  };

  g_test_summary ("Strings read the same whatever the length of the plain runs around an escape or a "
                  "non-ASCII character, and wherever they start relative to a word");

  for (guint m = 0; m < G_N_ELEMENTS (middles); m++)
    for (guint before = 0; before < 40; before++)
      for (guint after = 0; after < 36; after += after < 18 || after >= 30 ? 1 : 12)
        for (guint align = 0; align < 8; align++)
          {
            g_autoptr(GString) json = g_string_new (NULL);
            g_autoptr(GString) expected = g_string_new (NULL);
            g_autoptr(JsonNode) node = NULL;
            g_autoptr(JsonNode) back = NULL;
            g_autofree char *text = NULL;
            const char *value;

            g_string_append_len (json, "        ", align);
            g_string_append_c (json, '"');
            append_plain (json, before);
            g_string_append (json, middles[m].json);
            append_plain (json, after);
            g_string_append_c (json, '"');

            append_plain (expected, before);
            g_string_append_len (expected, middles[m].value, middles[m].value_len);
            append_plain (expected, after);

            node = parse_ok (json->str);
            value = json_node_get_string (node);
            g_assert_cmpmem (value, strlen (value), expected->str, expected->len);

            /* And back: the writer escapes only what it must. */
            text = write_node (node);
            back = parse_ok (text);
            g_assert_cmpstr (json_node_get_string (back), ==, expected->str);
          }
}

static void
test_string_run_errors (void)
{
  static const struct {
    const char *bad;
    gsize       len;
    const char *message;
  } bads[] = {
    { "\xff", 1, "invalid UTF-8" },
    { "\xc0\x80", 2, "invalid UTF-8" },
    { "\xc1\xbf", 2, "invalid UTF-8" },
    { "\xe0\x9f\xbf", 3, "invalid UTF-8" },
    { "\xed\xa0\x80", 3, "invalid UTF-8" },
    { "\xf0\x8f\xbf\xbf", 4, "invalid UTF-8" },
    { "\xf4\x90\x80\x80", 4, "invalid UTF-8" },
    { "\xf5\x80\x80\x80", 4, "invalid UTF-8" },
    { "\x80", 1, "invalid UTF-8" },
    { "\xc3", 1, "invalid UTF-8" },
    { "\xe2\x82", 2, "invalid UTF-8" },
    { "\xe2\x82" "a", 3, "invalid UTF-8" },
    { "", 1, "NUL byte" },
    { "\x01", 1, "raw control character in a string" },
    { "\x1f", 1, "raw control character in a string" },
    { "\n", 1, "raw control character in a string" },
    { "\\x", 2, "invalid escape" },
  };

  g_test_summary ("An invalid byte, a raw control character or a bad escape right after a run of plain "
                  "bytes of any length is an error at its very byte");

  for (guint b = 0; b < G_N_ELEMENTS (bads); b++)
    for (guint before = 0; before < 40; before++)
      for (guint align = 0; align < 8; align++)
        for (guint tail = 0; tail < 2; tail++)
          {
            g_autoptr(GString) json = g_string_new (NULL);
            g_autofree char *message = NULL;
            gsize at;

            g_string_append_len (json, "        ", align);
            g_string_append_c (json, '"');
            append_plain (json, before);
            at = json->len;
            g_string_append_len (json, bads[b].bad, bads[b].len);
            /* With more after it, or with the input ending there. */
            if (tail)
              {
                append_plain (json, 9);
                g_string_append_c (json, '"');
              }

            /* The escape error points at the letter after the backslash. */
            if (bads[b].bad[0] == '\\')
              at++;
            message = g_strdup_printf ("%s at byte %" G_GSIZE_FORMAT, bads[b].message, at);
            parse_fails_len (json->str, json->len, message);
          }

  for (guint before = 0; before < 40; before++)
    for (guint align = 0; align < 8; align++)
      {
        g_autoptr(GString) json = g_string_new (NULL);
        g_autofree char *message = NULL;

        g_string_append_len (json, "        ", align);
        g_string_append_c (json, '"');
        append_plain (json, before);
        message = g_strdup_printf ("unterminated string at byte %" G_GSIZE_FORMAT, json->len);
        parse_fails_len (json->str, json->len, message);
      }

  /* Invalid UTF-8 is found before any syntax error, wherever it is. */
  for (guint before = 0; before < 40; before++)
    {
      g_autoptr(GString) json = g_string_new ("[");
      g_autofree char *message = NULL;

      append_plain (json, before);
      g_string_append (json, "\xff");
      message = g_strdup_printf ("invalid UTF-8 at byte %" G_GSIZE_FORMAT, json->len - 1);
      parse_fails_len (json->str, json->len, message);
    }
}

/* The writer's escaping, one byte at a time, as it was written first: the
 * reference the word-at-a-time writer must match. */
static void
reference_write_string (GString    *out,
                        const char *str)
{
  static const char hex[] = "0123456789abcdef";
  const guchar *p = (const guchar *) str;

  g_string_append_c (out, '"');
  while (*p != '\0')
    {
      guchar c = *p;

      if (c >= 0x80)
        {
          gunichar u;

          if (c == 0xc0 && p[1] == 0x80)
            {
              g_string_append (out, "\\u0000");
              p += 2;
              continue;
            }
          u = g_utf8_get_char_validated ((const char *) p, -1);
          if (u < 0x110000)
            {
              g_string_append_len (out, (const char *) p, g_utf8_skip[c]);
              p += g_utf8_skip[c];
            }
          else
            {
              g_string_append (out, "\xef\xbf\xbd");
              p++;
            }
          continue;
        }

      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        case '\b': g_string_append (out, "\\b"); break;
        case '\f': g_string_append (out, "\\f"); break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u00%c%c", hex[c >> 4], hex[c & 0xf]);
          else
            g_string_append_c (out, c);
          break;
        }
      p++;
    }
  g_string_append_c (out, '"');
}

static void
assert_writes_as_reference (const char *str)
{
  g_autoptr(JsonNode) node = json_node_init_string (json_node_alloc (), str);
  g_autoptr(JsonObject) object = json_object_new ();
  g_autoptr(JsonNode) member = NULL;
  g_autoptr(GString) expected = g_string_new (NULL);
  g_autofree char *text = NULL;
  g_autofree char *member_text = NULL;

  reference_write_string (expected, str);
  text = write_node (node);
  if (!g_str_equal (text, expected->str))
    g_test_message ("input: %s", str);
  g_assert_cmpstr (text, ==, expected->str);

  /* Member names go through the same code. */
  json_object_set_int_member (object, str, 1);
  member = json_node_init_object (json_node_alloc (), object);
  member_text = write_node (member);
  g_string_prepend_c (expected, '{');
  g_string_append (expected, ":1}");
  g_assert_cmpstr (member_text, ==, expected->str);
}

static void
test_write_runs (void)
{
  static const char *middles[] = {
    "", "\"", "\\", "\n", "\r", "\t", "\b", "\f", "\x01", "\x1f", "\x7f", "/",
    "\xc0\x80", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
    "\xff", "\x80", "\xc0", "\xc1\x81", "\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xf0\x9f\x98",
  };
  GRand *rand = g_rand_new_with_seed (20261201);
  static const char alphabet[] = "aZ \"\\\n\x01\x1f\x7f\x80\xbf\xc0\xc2\xc3\xa9\xe2\x82\xac\xed\xa0\xf0\x9f\x98\xf4\x90\xff";

  g_test_summary ("The writer escapes exactly as the byte-at-a-time reference does, for every special "
                  "byte after and before plain runs of any length, at any alignment, and for random bytes");

  for (guint m = 0; m < G_N_ELEMENTS (middles); m++)
    for (guint before = 0; before < 20; before++)
      for (guint after = 0; after < 12; after++)
        for (guint align = 0; align < 8; align++)
          {
            g_autoptr(GString) buffer = g_string_new (NULL);

            /* The string starts @align bytes into the buffer. */
            g_string_append_len (buffer, "zzzzzzzz", align);
            append_plain (buffer, before);
            g_string_append (buffer, middles[m]);
            append_plain (buffer, after);
            assert_writes_as_reference (buffer->str + align);
          }

  for (guint i = 0; i < 20000; i++)
    {
      g_autoptr(GString) buffer = g_string_new (NULL);
      guint len = g_rand_int_range (rand, 0, 48);

      for (guint j = 0; j < len; j++)
        {
          if (g_rand_int_range (rand, 0, 4) == 0)
            g_string_append_c (buffer, alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]);
          else
            append_plain (buffer, 1);
        }
      assert_writes_as_reference (buffer->str);
    }

  g_rand_free (rand);
}

/* Appends one random valid character to @json (as JSON) and to @value (as
 * the reader stores it). */
static void
append_random_character (GRand   *rand,
                         GString *json,
                         GString *value)
{
  static const char *escapes[][2] = {
    { "\\n", "\n" }, { "\\t", "\t" }, { "\\\"", "\"" }, { "\\\\", "\\" }, { "\\/", "/" },
    { "\\b", "\b" }, { "\\f", "\f" }, { "\\r", "\r" },
  };
  gunichar c;

  switch (g_rand_int_range (rand, 0, 8))
    {
    case 0:
      {
        guint e = g_rand_int_range (rand, 0, G_N_ELEMENTS (escapes));

        g_string_append (json, escapes[e][0]);
        g_string_append (value, escapes[e][1]);
      }
      break;
    case 1:
      /* \uXXXX, U+0000 and surrogate pairs included. */
      do
        c = g_rand_int_range (rand, 0, 0x110000);
      while (c >= 0xd800 && c <= 0xdfff);
      if (g_rand_int_range (rand, 0, 4) == 0)
        c = 0;
      if (c >= 0x10000)
        g_string_append_printf (json, "\\u%04x\\u%04x", 0xd800 + ((c - 0x10000) >> 10),
                                0xdc00 + ((c - 0x10000) & 0x3ff));
      else
        g_string_append_printf (json, "\\u%04X", c);
      if (c == 0)
        g_string_append (value, "\xc0\x80");
      else
        g_string_append_unichar (value, c);
      break;
    case 2:
      /* Raw UTF-8 of 2, 3 or 4 bytes. */
      do
        c = g_rand_int_range (rand, 0x80, 0x110000);
      while (c >= 0xd800 && c <= 0xdfff);
      g_string_append_unichar (json, c);
      g_string_append_unichar (value, c);
      break;
    default:
      {
        guint n = g_rand_int_range (rand, 1, 20);
        gsize start = json->len;

        append_plain (json, n);
        g_string_append_len (value, json->str + start, n);
      }
      break;
    }
}

static void
test_random_strings (void)
{
  GRand *rand = g_rand_new_with_seed (1712);

  g_test_summary ("Random strings of plain runs, escapes and UTF-8 of every width read as built, "
                  "and write back to text that reads the same");

  for (guint i = 0; i < 5000; i++)
    {
      g_autoptr(GString) json = g_string_new ("{\"");
      g_autoptr(GString) value = g_string_new (NULL);
      g_autoptr(GString) name = g_string_new (NULL);
      g_autoptr(JsonNode) node = NULL;
      g_autoptr(JsonNode) back = NULL;
      g_autofree char *text = NULL;
      guint n = g_rand_int_range (rand, 0, 12);
      JsonObject *object;

      for (guint j = 0; j < 3; j++)
        append_random_character (rand, json, name);
      g_string_append (json, "\":\"");
      for (guint j = 0; j < n; j++)
        append_random_character (rand, json, value);
      g_string_append (json, "\"}");

      node = parse_ok (json->str);
      object = json_node_get_object (node);
      g_assert_true (json_object_has_member (object, name->str));
      g_assert_cmpstr (json_object_get_string_member (object, name->str), ==, value->str);

      text = write_node (node);
      back = parse_ok (text);
      g_assert_cmpstr (json_object_get_string_member (json_node_get_object (back), name->str), ==, value->str);
    }

  g_rand_free (rand);
}

static void
test_write_nesting (void)
{
  g_test_summary ("Writing objects and arrays nested around the depth where the writer's stack "
                  "moves to the heap keeps every member in place");

  for (guint depth = 1; depth < 40; depth++)
    {
      g_autoptr(GString) json = g_string_new (NULL);
      g_autoptr(JsonNode) node = NULL;
      g_autofree char *text = NULL;

      for (guint i = 0; i < depth; i++)
        g_string_append_printf (json, "{\"a%u\":[%u,", i, i);
      g_string_append (json, "null");
      for (guint i = 0; i < depth; i++)
        g_string_append_printf (json, "],\"b%u\":\"%u\"}", i, i);

      node = parse_ok (json->str);
      text = write_node (node);
      g_assert_cmpstr (text, ==, json->str);
    }
}

static void
test_throughput (void)
{
  g_autoptr(GString) doc = g_string_new ("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"items\":[");
  g_autoptr(GTimer) timer = g_timer_new ();
  guint rounds = 0;
  double elapsed;

  for (guint i = 0; doc->len < 1000 * 1000; i++)
    g_string_append_printf (doc, "%s{\"name\":\"item %u\",\"text\":\"caf\xc3\xa9 \\\"%u\\\" "
                            "lorem ipsum dolor sit amet\",\"n\":%u,\"x\":%u.25,\"ok\":true}",
                            i > 0 ? "," : "", i, i, i, i);
  g_string_append (doc, "]}}");

  do
    {
      g_autoptr(JsonNode) node = parse_ok (doc->str);

      rounds++;
      elapsed = g_timer_elapsed (timer, NULL);
    }
  while (elapsed < 1.0);

  g_test_maximized_result (doc->len * rounds / elapsed / 1e6,
                           "reader: %.1f MB/s on a %" G_GSIZE_FORMAT "-byte message",
                           doc->len * rounds / elapsed / 1e6, doc->len);

  g_timer_start (timer);
  rounds = 0;
  {
    g_autoptr(JsonNode) node = parse_ok (doc->str);

    do
      {
        g_autofree char *text = write_node (node);

        rounds++;
        elapsed = g_timer_elapsed (timer, NULL);
      }
    while (elapsed < 1.0);
  }

  g_test_maximized_result (doc->len * rounds / elapsed / 1e6,
                           "writer: %.1f MB/s", doc->len * rounds / elapsed / 1e6);
}

static void
test_size_estimate (void)
{
  gsize size = 0;
  JsonNode *node;

  g_test_summary ("The reader's estimate of what a tree holds follows what glibc counts "
                  "for it, within 40% (10% but for empty containers), for arrays of "
                  "numbers, strings, objects and arrays");

  /* Any tree: the estimate is reported, and grows with the tree. */
  {
    const char *small = "{\"a\":[1,\"x\",null,true,{}]}";

    node = snodo_json_parse_full (small, strlen (small), NULL, &size, NULL);
    g_assert_nonnull (node);
    g_assert_cmpuint (size, >, strlen (small));
  }
  json_node_unref (node);

#if defined(__GLIBC__) && !defined(__SANITIZE_ADDRESS__)
  if (g_test_subprocess ())
    {
      /* In a process of its own, so that no node freed by an earlier test
       * waits in the slice allocator's caches to be reused. */
      /* Kept until the end, for the same reason. */
      g_autoptr(GPtrArray) trees = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
      const char *shapes[] = { "1", "\"abcdefghijklmnopqrst\"", "{\"name\":\"x\",\"value\":12,\"flag\":true}",
                               "[1,2,3]", "{\"a\":null}", "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}",
                               "{}", "[]" };

      for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
        {
          g_autoptr(GString) text = g_string_new ("[");
          g_autoptr(GError) error = NULL;
          struct mallinfo2 before;
          struct mallinfo2 after;
          gsize measured;
          double ratio;

          for (guint j = 0; j < 100000; j++)
            {
              if (j > 0)
                g_string_append_c (text, ',');
              g_string_append (text, shapes[i]);
            }
          g_string_append_c (text, ']');

          before = mallinfo2 ();
          node = snodo_json_parse_full (text->str, text->len, NULL, &size, &error);
          after = mallinfo2 ();
          g_assert_no_error (error);
          measured = (after.uordblks + after.hblkhd) - (before.uordblks + before.hblkhd);
          ratio = (double) size / (double) measured;
          g_test_message ("%s: %zu bytes of text, %zu estimated, %zu measured (%.2f)",
                          shapes[i], text->len, size, measured, ratio);
          g_assert_cmpfloat (ratio, >, 0.8);
          g_assert_cmpfloat (ratio, <, 1.4);
          /* The case of the overload: tens of times the text. */
          if (i == 0)
            g_assert_cmpuint (size, >, 30 * text->len);
          g_ptr_array_add (trees, node);
        }
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
#else
  g_test_skip ("needs glibc's own count of the heap, without AddressSanitizer");
#endif
}

static void
test_text_estimate (void)
{
  const char *shapes[] = { "1", "\"abcdefghijklmnopqrst\"", "\"caf\\u00e9\\n\"",
                           "{\"name\":\"x\",\"value\":12,\"flag\":true}",
                           "[1,2,3]", "{\"a\":null}", "null", "{}", "[]" };
  struct {
    const char *text;
    const char *id;
  } ids[] = {
    { "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\"}", "7" },
    { "{\"method\":\"id\",\"params\":{\"id\":1}, \"id\" : \"a,}\\\"b\" }", "\"a,}\\\"b\"" },
    { "{\"params\":{\"id\":1}}", NULL },
    { "{\"id\"", NULL },
    { "[\"id\",1]", NULL },
    { "{\"id\":", "" },
  };

  g_test_summary ("The quick look at unread text gives a lower bound of what the reader "
                  "builds, close to it for an array of small numbers, and finds the id "
                  "of the root object without being fooled by strings or nesting");

  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autoptr(GString) text = g_string_new ("{\"id\":1,\"a\":[");
      g_autoptr(JsonNode) node = NULL;
      const char *id;
      gsize id_len;
      gsize size = 0;
      gsize estimate;

      for (guint j = 0; j < 1000; j++)
        {
          if (j > 0)
            g_string_append_c (text, ',');
          g_string_append (text, shapes[i]);
        }
      g_string_append (text, "]}");
      node = snodo_json_parse_full (text->str, text->len, NULL, &size, NULL);
      g_assert_nonnull (node);
      estimate = snodo_json_text_estimate (text->str, text->len, &id, &id_len);
      g_test_message ("%s: %zu estimated, %zu built", shapes[i], estimate, size);
      g_assert_cmpuint (estimate, <=, size);
      if (i == 0)
        g_assert_cmpuint (estimate, >=, size * 9 / 10);
      g_assert_nonnull (id);
      g_assert_cmpmem (id, id_len, "1", 1);
    }

  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    {
      const char *id;
      gsize id_len;

      /* Not NUL-terminated where it ends: nothing is read past it. */
      g_autofree char *copy = g_memdup2 (ids[i].text, strlen (ids[i].text));

      snodo_json_text_estimate (copy, strlen (ids[i].text), &id, &id_len);
      if (ids[i].id == NULL)
        g_assert_null (id);
      else
        {
          g_assert_nonnull (id);
          g_assert_cmpmem (id, id_len, ids[i].id, strlen (ids[i].id));
        }
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/json/scalars", test_scalars);
  g_test_add_func ("/snodo/json/text-estimate", test_text_estimate);
  g_test_add_func ("/snodo/json/structure", test_structure);
  g_test_add_func ("/snodo/json/strict", test_strict);
  g_test_add_func ("/snodo/json/error-messages", test_error_messages);
  g_test_add_func ("/snodo/json/integers", test_integers);
  g_test_add_func ("/snodo/json/doubles", test_doubles);
  g_test_add_func ("/snodo/json/number-overflow", test_number_overflow);
  g_test_add_func ("/snodo/json/escapes", test_escapes);
  g_test_add_func ("/snodo/json/nul-escape", test_nul_escape);
  g_test_add_func ("/snodo/json/surrogates", test_surrogates);
  g_test_add_func ("/snodo/json/control-characters", test_control_characters);
  g_test_add_func ("/snodo/json/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/snodo/json/nul-byte", test_nul_byte);
  g_test_add_func ("/snodo/json/not-terminated", test_not_terminated);
  g_test_add_func ("/snodo/json/depth", test_depth);
  g_test_add_func ("/snodo/json/deep-write", test_deep_write);
  g_test_add_func ("/snodo/json/duplicate-members", test_duplicate_members);
  g_test_add_func ("/snodo/json/member-order", test_member_order);
  g_test_add_func ("/snodo/json/write-escaping", test_write_escaping);
  g_test_add_func ("/snodo/json/write-member-escaping", test_write_member_escaping);
  g_test_add_func ("/snodo/json/write-invalid-utf8", test_write_invalid_utf8);
  g_test_add_func ("/snodo/json/write-non-finite", test_write_non_finite);
  g_test_add_func ("/snodo/json/double-format", test_double_format);
  g_test_add_func ("/snodo/json/double-round-trip", test_double_round_trip);
  g_test_add_func ("/snodo/json/to-line", test_to_line);
  g_test_add_func ("/snodo/json/round-trip-document", test_round_trip_document);
  g_test_add_func ("/snodo/json/random-input", test_random_input);
  g_test_add_func ("/snodo/json/write-integers", test_write_integers);
  g_test_add_func ("/snodo/json/string-runs", test_string_runs);
  g_test_add_func ("/snodo/json/string-run-errors", test_string_run_errors);
  g_test_add_func ("/snodo/json/write-runs", test_write_runs);
  g_test_add_func ("/snodo/json/random-strings", test_random_strings);
  g_test_add_func ("/snodo/json/write-nesting", test_write_nesting);
  g_test_add_func ("/snodo/json/size-estimate", test_size_estimate);
  /* A measurement, not a check: registered only with -m perf, so that a
   * normal run neither skips nor counts it. */
  if (g_test_perf ())
    g_test_add_func ("/snodo/json/throughput", test_throughput);

  return g_test_run ();
}
