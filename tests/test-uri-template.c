/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* URI templates of RFC 6570: expansion and matching, on the RFC's own
 * examples, and the linear time of matching, counted in automaton steps. */

#include "config.h"

#include <string.h>

#include "snodo-test-util.h"
#include "snodo-error.h"
#include "snodo-uri-template-private.h"

/* The variables of RFC 6570, section 3.2.1 (which section 1.2's tables of
 * levels 1 to 4 use too). */
#define RFC_VARIABLES \
  "{\"count\":[\"one\",\"two\",\"three\"],\"dom\":[\"example\",\"com\"],\"dub\":\"me/too\"," \
  "\"hello\":\"Hello World!\",\"half\":\"50%\",\"var\":\"value\",\"who\":\"fred\"," \
  "\"base\":\"http://example.com/home/\",\"path\":\"/foo/bar\",\"list\":[\"red\",\"green\",\"blue\"]," \
  "\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"},\"v\":\"6\",\"x\":\"1024\",\"y\":\"768\"," \
  "\"empty\":\"\",\"empty_keys\":[],\"undef\":null}"

/*
 * Every example of RFC 6570 sections 1.2 and 3.2: the template, its
 * expansion (the RFC's), and what matching that expansion gives back (NULL:
 * no match). Where the result is not the variables that were expanded, the
 * case is ambiguous and resolves as the header documents:
 * - "O{empty}X", "O{undef}X": a {x} or {+x} expression never matches the
 *   empty string (level 1's rule), so an empty or undefined value is not
 *   found again.
 * - "?{undef,y}": variables are taken present from the left: "768" is
 *   undef's.
 * - Non-exploded lists and maps come back as their text ("{list}").
 * - "{+keys*}", "{#keys*}", "X{.keys*}": the separator stays raw in the
 *   values, making empty items, which explode never matches.
 * - "up{+path}{var}/here": leftmost-shortest, with var holding no '/'.
 * - Prefixes come back as the prefix; a variable used twice gives the
 *   value its uses agree on ("{/var:1,var}").
 */
static const struct {
  const char *template;
  const char *uri;
  const char *variables;
} rfc_examples[] = {
    { "{var}", "value", "{\"var\":\"value\"}" },
    { "{hello}", "Hello%20World%21", "{\"hello\":\"Hello World!\"}" },
    { "{half}", "50%25", "{\"half\":\"50%\"}" },
    { "O{empty}X", "OX", NULL },
    { "O{undef}X", "OX", NULL },
    { "{x,y}", "1024,768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "{x,hello,y}", "1024,Hello%20World%21,768", "{\"x\":\"1024\",\"hello\":\"Hello World!\",\"y\":\"768\"}" },
    { "?{x,empty}", "?1024,", "{\"x\":\"1024\",\"empty\":\"\"}" },
    { "?{x,undef}", "?1024", "{\"x\":\"1024\"}" },
    { "?{undef,y}", "?768", "{\"undef\":\"768\"}" },
    { "{var:3}", "val", "{\"var\":\"val\"}" },
    { "{var:30}", "value", "{\"var\":\"value\"}" },
    { "{list}", "red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{list*}", "red,green,blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{keys}", "semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{keys*}", "semi=%3B,dot=.,comma=%2C", "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}" },
    { "{+var}", "value", "{\"var\":\"value\"}" },
    { "{+hello}", "Hello%20World!", "{\"hello\":\"Hello World!\"}" },
    { "{+half}", "50%25", "{\"half\":\"50%\"}" },
    { "{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex", "{\"base\":\"http://example.com/home/\"}" },
    { "{+base}index", "http://example.com/home/index", "{\"base\":\"http://example.com/home/\"}" },
    { "O{+empty}X", "OX", NULL },
    { "O{+undef}X", "OX", NULL },
    { "{+path}/here", "/foo/bar/here", "{\"path\":\"/foo/bar\"}" },
    { "here?ref={+path}", "here?ref=/foo/bar", "{\"path\":\"/foo/bar\"}" },
    { "up{+path}{var}/here", "up/foo/barvalue/here", "{\"path\":\"/foo/\",\"var\":\"barvalue\"}" },
    { "{+x,hello,y}", "1024,Hello%20World!,768", "{\"x\":\"1024\",\"hello\":\"Hello World!\",\"y\":\"768\"}" },
    { "{+path,x}/here", "/foo/bar,1024/here", "{\"path\":\"/foo/bar\",\"x\":\"1024\"}" },
    { "{+path:6}/here", "/foo/b/here", "{\"path\":\"/foo/b\"}" },
    { "{+list}", "red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{+list*}", "red,green,blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{+keys}", "semi,;,dot,.,comma,,", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{+keys*}", "semi=;,dot=.,comma=,", NULL },
    { "{#var}", "#value", "{\"var\":\"value\"}" },
    { "{#hello}", "#Hello%20World!", "{\"hello\":\"Hello World!\"}" },
    { "{#half}", "#50%25", "{\"half\":\"50%\"}" },
    { "foo{#empty}", "foo#", "{\"empty\":\"\"}" },
    { "foo{#undef}", "foo", "{}" },
    { "{#x,hello,y}", "#1024,Hello%20World!,768", "{\"x\":\"1024\",\"hello\":\"Hello World!\",\"y\":\"768\"}" },
    { "{#path,x}/here", "#/foo/bar,1024/here", "{\"path\":\"/foo/bar\",\"x\":\"1024\"}" },
    { "{#path:6}/here", "#/foo/b/here", "{\"path\":\"/foo/b\"}" },
    { "{#list}", "#red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{#list*}", "#red,green,blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{#keys}", "#semi,;,dot,.,comma,,", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{#keys*}", "#semi=;,dot=.,comma=,", NULL },
    { "{.who}", ".fred", "{\"who\":\"fred\"}" },
    { "{.who,who}", ".fred.fred", "{\"who\":\"fred\"}" },
    { "{.half,who}", ".50%25.fred", "{\"half\":\"50%\",\"who\":\"fred\"}" },
    { "www{.dom*}", "www.example.com", "{\"dom\":[\"example\",\"com\"]}" },
    { "X{.var}", "X.value", "{\"var\":\"value\"}" },
    { "X{.empty}", "X.", "{\"empty\":\"\"}" },
    { "X{.undef}", "X", "{}" },
    { "X{.var:3}", "X.val", "{\"var\":\"val\"}" },
    { "X{.list}", "X.red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "X{.list*}", "X.red.green.blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "X{.keys}", "X.semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "X{.keys*}", "X.semi=%3B.dot=..comma=%2C", NULL },
    { "X{.empty_keys}", "X", "{}" },
    { "X{.empty_keys*}", "X", "{}" },
    { "{/who}", "/fred", "{\"who\":\"fred\"}" },
    { "{/who,who}", "/fred/fred", "{\"who\":\"fred\"}" },
    { "{/half,who}", "/50%25/fred", "{\"half\":\"50%\",\"who\":\"fred\"}" },
    { "{/who,dub}", "/fred/me%2Ftoo", "{\"who\":\"fred\",\"dub\":\"me/too\"}" },
    { "{/var}", "/value", "{\"var\":\"value\"}" },
    { "{/var,empty}", "/value/", "{\"var\":\"value\",\"empty\":\"\"}" },
    { "{/var,undef}", "/value", "{\"var\":\"value\"}" },
    { "{/var,x}/here", "/value/1024/here", "{\"var\":\"value\",\"x\":\"1024\"}" },
    { "{/var:1,var}", "/v/value", "{\"var\":\"value\"}" },
    { "{/list}", "/red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{/list*}", "/red/green/blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{/list*,path:4}", "/red/green/blue/%2Ffoo", "{\"list\":[\"red\",\"green\",\"blue\"],\"path\":\"/foo\"}" },
    { "{/keys}", "/semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{/keys*}", "/semi=%3B/dot=./comma=%2C", "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}" },
    { "{;who}", ";who=fred", "{\"who\":\"fred\"}" },
    { "{;half}", ";half=50%25", "{\"half\":\"50%\"}" },
    { "{;empty}", ";empty", "{\"empty\":\"\"}" },
    { "{;v,empty,who}", ";v=6;empty;who=fred", "{\"v\":\"6\",\"empty\":\"\",\"who\":\"fred\"}" },
    { "{;v,bar,who}", ";v=6;who=fred", "{\"v\":\"6\",\"who\":\"fred\"}" },
    { "{;x,y}", ";x=1024;y=768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "{;x,y,empty}", ";x=1024;y=768;empty", "{\"x\":\"1024\",\"y\":\"768\",\"empty\":\"\"}" },
    { "{;x,y,undef}", ";x=1024;y=768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "{;hello:5}", ";hello=Hello", "{\"hello\":\"Hello\"}" },
    { "{;list}", ";list=red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{;list*}", ";list=red;list=green;list=blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{;keys}", ";keys=semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{;keys*}", ";semi=%3B;dot=.;comma=%2C", "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}" },
    { "{?who}", "?who=fred", "{\"who\":\"fred\"}" },
    { "{?half}", "?half=50%25", "{\"half\":\"50%\"}" },
    { "{?x,y}", "?x=1024&y=768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "{?x,y,empty}", "?x=1024&y=768&empty=", "{\"x\":\"1024\",\"y\":\"768\",\"empty\":\"\"}" },
    { "{?x,y,undef}", "?x=1024&y=768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "{?var:3}", "?var=val", "{\"var\":\"val\"}" },
    { "{?list}", "?list=red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{?list*}", "?list=red&list=green&list=blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{?keys}", "?keys=semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{?keys*}", "?semi=%3B&dot=.&comma=%2C", "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}" },
    { "{&who}", "&who=fred", "{\"who\":\"fred\"}" },
    { "{&half}", "&half=50%25", "{\"half\":\"50%\"}" },
    { "?fixed=yes{&x}", "?fixed=yes&x=1024", "{\"x\":\"1024\"}" },
    { "{&x,y,empty}", "&x=1024&y=768&empty=", "{\"x\":\"1024\",\"y\":\"768\",\"empty\":\"\"}" },
    { "{&var:3}", "&var=val", "{\"var\":\"val\"}" },
    { "{&list}", "&list=red,green,blue", "{\"list\":\"red,green,blue\"}" },
    { "{&list*}", "&list=red&list=green&list=blue", "{\"list\":[\"red\",\"green\",\"blue\"]}" },
    { "{&keys}", "&keys=semi,%3B,dot,.,comma,%2C", "{\"keys\":\"semi,;,dot,.,comma,,\"}" },
    { "{&keys*}", "&semi=%3B&dot=.&comma=%2C", "{\"keys\":{\"semi\":\";\",\"dot\":\".\",\"comma\":\",\"}}" },
    { "X{#var}", "X#value", "{\"var\":\"value\"}" },
    { "X{#hello}", "X#Hello%20World!", "{\"hello\":\"Hello World!\"}" },
    { "map?{x,y}", "map?1024,768", "{\"x\":\"1024\",\"y\":\"768\"}" },
    { "X{.x,y}", "X.1024.768", "{\"x\":\"1024\",\"y\":\"768\"}" },
};

static void
assert_object (JsonObject *object,
               const char *expected)
{
  g_autoptr(JsonNode) node = json_node_new (JSON_NODE_OBJECT);
  g_autoptr(JsonNode) want = json_from_string (expected, NULL);
  g_autofree char *text = NULL;

  json_node_set_object (node, object);
  text = json_to_string (node, FALSE);
  if (!json_node_equal (node, want))
    g_error ("Expected %s, got %s", expected, text);
}

static void
test_rfc_examples (void)
{
  g_autoptr(JsonNode) values = json_from_string (RFC_VARIABLES, NULL);

  g_test_summary ("Every example of RFC 6570 (sections 1.2 and 3.2) expands as the RFC says, and "
                  "matches back to its variables where that is unambiguous");

  for (guint i = 0; i < G_N_ELEMENTS (rfc_examples); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse_relative (rfc_examples[i].template, &error);
      g_autofree char *uri = NULL;
      g_autoptr(JsonObject) variables = NULL;

      g_test_message ("%s", rfc_examples[i].template);
      g_assert_no_error (error);
      uri = snodo_uri_template_expand (template, json_node_get_object (values), &error);
      g_assert_no_error (error);
      g_assert_cmpstr (uri, ==, rfc_examples[i].uri);

      variables = snodo_uri_template_match (template, rfc_examples[i].uri);
      if (rfc_examples[i].variables == NULL)
        g_assert_null (variables);
      else
        {
          g_assert_nonnull (variables);
          assert_object (variables, rfc_examples[i].variables);
        }
    }
}

static void
test_expand_values (void)
{
  static const struct {
    const char *template;
    const char *values;
    const char *uri;
  } cases[] = {
    /* Numbers and booleans are their text; UTF-8 is escaped byte by byte. */
    { "t://a/{n}/{b}/{d}", "{\"n\":42,\"b\":true,\"d\":0.5}", "t://a/42/true/0.5" },
    { "t://a/{s}", "{\"s\":\"\\u00e9/\"}", "t://a/%C3%A9%2F" },
    { "t://a/{s:1}", "{\"s\":\"\\u00e9t\\u00e9\"}", "t://a/%C3%A9" },
    /* Reserved expansion keeps escapes as they are, and encodes a lone %. */
    { "t://a/{+s}", "{\"s\":\"%41%zz\"}", "t://a/%41%25zz" },
    { "t://a/{x}", "{}", "t://a/" },
    { "t://a{?q,p}", "{\"p\":\"1\"}", "t://a?p=1" },
  };
  static const struct {
    const char *template;
    const char *values;
  } errors[] = {
    { "t://a/{x:2}", "{\"x\":[\"a\"]}" },
    { "t://a/{x}", "{\"x\":[[\"a\"]]}" },
    { "t://a/{x*}", "{\"x\":{\"a\":{}}}" },
  };

  g_test_summary ("Expansion takes strings, numbers, booleans, lists and maps; a prefix on a list or a "
                  "nested value is an error");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (cases[i].template, NULL);
      g_autoptr(JsonNode) values = json_from_string (cases[i].values, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *uri = snodo_uri_template_expand (template, json_node_get_object (values), &error);

      g_assert_no_error (error);
      g_assert_cmpstr (uri, ==, cases[i].uri);
    }
  for (guint i = 0; i < G_N_ELEMENTS (errors); i++)
    {
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (errors[i].template, NULL);
      g_autoptr(JsonNode) values = json_from_string (errors[i].values, NULL);
      g_autoptr(GError) error = NULL;
      g_autofree char *uri = snodo_uri_template_expand (template, json_node_get_object (values), &error);

      g_assert_null (uri);
      g_assert_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA);
    }
}

static void
test_match_rules (void)
{
  static const struct {
    const char *template;
    const char *uri;
    const char *variables;
  } cases[] = {
    /* Query parameters are optional; extra ones do not match. */
    { "t://s{?q,page}", "t://s", "{}" },
    { "t://s{?q,page}", "t://s?page=2", "{\"page\":\"2\"}" },
    { "t://s{?q,page}", "t://s?q=a%26b&page=2", "{\"q\":\"a&b\",\"page\":\"2\"}" },
    { "t://s{?q,page}", "t://s?q=a&page=2&x=1", NULL },
    { "t://s{?q,page}", "t://s?page=2&q=a", NULL },
    /* Reserved expansion takes '/' too. */
    { "file:///{+path}", "file:///a/b%20c/d.txt", "{\"path\":\"a/b c/d.txt\"}" },
    { "t://h{/seg*}", "t://h/a/b/c", "{\"seg\":[\"a\",\"b\",\"c\"]}" },
    { "t://h{/seg*}{?q}", "t://h/a?q=1", "{\"seg\":[\"a\"],\"q\":\"1\"}" },
    { "t://h{?ids*}", "t://h?ids=1&ids=2", "{\"ids\":[\"1\",\"2\"]}" },
    { "t://h{?filter*}", "t://h?a=1&b=", "{\"filter\":{\"a\":\"1\",\"b\":\"\"}}" },
    { "t://h/{m*}", "t://h/a=1,b=2", "{\"m\":{\"a\":\"1\",\"b\":\"2\"}}" },
    { "t://h/{m*}", "t://h/a=1,b", "{\"m\":[\"a=1\",\"b\"]}" },
    { "t://h{#f}", "t://h#x/y", "{\"f\":\"x/y\"}" },
    /* A prefix is at most so many characters. */
    { "t://h/{x:2}", "t://h/%C3%A9t", "{\"x\":\"\u00e9t\"}" },
    { "t://h/{x:2}", "t://h/abc", NULL },
    /* Uses of one variable must agree. */
    { "t://{x}/{x}", "t://a/a", "{\"x\":\"a\"}" },
    { "t://{x}/{x}", "t://a/b", NULL },
    { "t://{x:1}/{x}", "t://a/abc", "{\"x\":\"abc\"}" },
    { "t://{x}/{x:1}", "t://abc/a", "{\"x\":\"abc\"}" },
    { "t://{x:1}/{x}", "t://b/abc", NULL },
    /* The first value of a {x,y} is not empty; later ones may be. */
    { "t://h/{x,y}", "t://h/a,", "{\"x\":\"a\",\"y\":\"\"}" },
    { "t://h/{x,y}", "t://h/,b", "{\"x\":\",b\"}" },
    { "t://h/{x,y}", "t://h/", NULL },
  };

  g_test_summary ("Matching levels 2 to 4: optional variables, runs per operator, explode as arrays or "
                  "objects, prefixes, repeated variables");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (cases[i].template, &error);
      g_autoptr(JsonObject) variables = NULL;

      g_test_message ("%s ~ %s", cases[i].template, cases[i].uri);
      g_assert_no_error (error);
      variables = snodo_uri_template_match (template, cases[i].uri);
      if (cases[i].variables == NULL)
        g_assert_null (variables);
      else
        {
          g_assert_nonnull (variables);
          assert_object (variables, cases[i].variables);
        }
    }
}

/* Matches @uri_of(n) for n and 4n and checks that the steps grow at most
 * linearly: under the bound the header gives, and 4n taking at most 4.1
 * times the steps of n. */
static void
assert_linear (const char *template_text,
               const char *head,
               const char *unit,
               const char *tail)
{
  g_autoptr(SnodoUriTemplate) template = snodo_uri_template_parse (template_text, NULL);
  guint64 steps[2] = { 0, 0 };
  gsize lengths[2] = { 20000, 80000 };
  guint n_states = snodo_uri_template_get_n_states (template);

  for (guint k = 0; k < 2; k++)
    {
      g_autoptr(GString) uri = g_string_new (head);
      g_autoptr(JsonObject) variables = NULL;

      while (uri->len < lengths[k])
        g_string_append (uri, unit);
      g_string_append (uri, tail);
      variables = snodo_uri_template_match_counted (template, uri->str, &steps[k]);
      g_test_message ("%s, %zu characters: %" G_GUINT64_FORMAT " steps, %u states",
                      template_text, uri->len, steps[k], n_states);
      g_assert_cmpuint (steps[k], <=, 2 * (guint64) (uri->len + 1) * n_states);
    }
  g_assert_cmpfloat ((double) steps[1], <=, 4.1 * (double) steps[0]);
}

static void
test_linear (void)
{
  g_test_summary ("Matching takes steps linear in the URI's length on inputs that make naive "
                  "backtracking quadratic or exponential");

  /* Backtracking tries every split of the a's among the variables before
   * failing at the missing final character: O(n^5) or worse. */
  assert_linear ("t://{a}{b}{c}{d}{e}y", "t://", "a", "");
  assert_linear ("t://{+a}{+b}{+c}{+d}x", "t://", "a/", "");
  assert_linear ("t://h{/a*}{/b*}{/c*}/x", "t://h", "/a", "");
  assert_linear ("t://h{?a*}{&b*}z", "t://h?a=1", "&a=1", "");
  assert_linear ("t://h/{a,b,c,d}y", "t://h/", "a,", "");
  assert_linear ("t://h{;a,b}{;c*}{.d}q", "t://h;a=", ";", "");
  /* And when it does match, at the far end. */
  assert_linear ("t://{a}{b}{c}{d}{e}y", "t://", "a", "y");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/uri-template/rfc-examples", test_rfc_examples);
  g_test_add_func ("/snodo/uri-template/expand", test_expand_values);
  g_test_add_func ("/snodo/uri-template/match", test_match_rules);
  g_test_add_func ("/snodo/uri-template/linear", test_linear);

  return g_test_run ();
}
