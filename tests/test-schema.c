/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"
#include "snodo-schema-private.h"

typedef struct
{
  const char *schema;
  const char *instance;
  const char *error;  /* NULL: valid */
} Case;

static const Case cases[] = {
  { "true", "{\"a\":1}", NULL },
  { "false", "1", "is not allowed" },
  { "{}", "[1,\"x\",null]", NULL },
  { "{\"type\":\"string\"}", "\"x\"", NULL },
  { "{\"type\":\"string\"}", "1", "expected string" },
  { "{\"type\":[\"string\",\"null\"]}", "null", NULL },
  { "{\"type\":[\"string\",\"null\"]}", "true", "expected one of string, null" },
  { "{\"type\":\"integer\"}", "5", NULL },
  { "{\"type\":\"integer\"}", "5.0", NULL },
  { "{\"type\":\"integer\"}", "5.5", "expected integer" },
  { "{\"type\":\"number\"}", "5.5", NULL },
  { "{\"type\":\"boolean\"}", "0", "expected boolean" },
  { "{\"type\":\"object\",\"required\":[\"a\"]}", "{}", "“a” is required" },
  { "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}", "{\"a\":\"x\",\"b\":1}", NULL },
  { "{\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":false}", "{\"b\":1}",
    "/b: is not an allowed property" },
  { "{\"additionalProperties\":{\"type\":\"number\"}}", "{\"b\":\"x\"}", "/b: expected number" },
  { "{\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}}}}}",
    "{\"a\":{\"b\":[1,2,\"3\"]}}", "/a/b/2: expected integer" },
  { "{\"items\":{\"type\":\"integer\"}}", "[0,1,2,3,4,5,6,7,8,9,10,\"x\"]", "/11: expected integer" },
  { "{\"items\":{\"items\":{\"type\":\"null\"}}}", "[[],[null,null,1]]", "/1/2: expected null" },
  { "{\"minItems\":2,\"maxItems\":3}", "[1]", "has fewer than 2 items" },
  { "{\"minItems\":2,\"maxItems\":3}", "[1,2,3,4]", "has more than 3 items" },
  { "{\"minLength\":2,\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\"", NULL },
  { "{\"maxLength\":3}", "\"abcd\"", "is longer than 3 characters" },
  /* Characters, not bytes: three 2-byte characters are 6 bytes. */
  { "{\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", NULL },
  { "{\"maxLength\":2}", "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", "is longer than 2 characters" },
  { "{\"minLength\":3}", "\"\xc3\xa9\xc3\xa9\"", "is shorter than 3 characters" },
  { "{\"minLength\":2}", "\"\xf0\x9f\x98\x80\xe2\x82\xac\"", NULL },
  { "{\"maxLength\":1}", "\"\xf0\x9f\x98\x80\xe2\x82\xac\"", "is longer than 1 characters" },
  /* Fractional and negative bounds. */
  { "{\"maxLength\":2.5}", "\"abc\"", "is longer than 2.5 characters" },
  { "{\"maxLength\":2.5}", "\"ab\"", NULL },
  { "{\"minLength\":2.5}", "\"ab\"", "is shorter than 2.5 characters" },
  { "{\"minLength\":2.5}", "\"abc\"", NULL },
  { "{\"minLength\":-1,\"maxLength\":-1}", "\"\"", "is longer than -1 characters" },
  { "{\"minLength\":0}", "\"\"", NULL },
  /* Without bounds, any string is accepted. */
  { "{\"type\":\"string\"}", "\"\xc3\xa9\"", NULL },
  { "{\"minimum\":1,\"maximum\":10}", "0", "is less than the minimum 1" },
  { "{\"exclusiveMaximum\":10}", "10", "is not less than 10" },
  { "{\"multipleOf\":0.5}", "2.5", NULL },
  { "{\"multipleOf\":2}", "3", "is not a multiple of 2" },
  { "{\"enum\":[\"a\",1,null]}", "1.0", NULL },
  { "{\"enum\":[\"a\",1,null]}", "\"b\"", "is not one of the values allowed" },
  { "{\"const\":{\"a\":[1]}}", "{\"a\":[1]}", NULL },
  { "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", "true",
    "matches none of the alternatives (anyOf)" },
  { "{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}", "1",
    "matches 2 of the alternatives, not exactly one (oneOf)" },
  { "{\"allOf\":[{\"minimum\":0},{\"maximum\":5}]}", "6", "is more than the maximum 5" },
  { "{\"not\":{\"type\":\"null\"}}", "null", "matches a schema it must not match (not)" },
  /* What is not checked never rejects. */
  { "{\"$ref\":\"#/$defs/x\",\"pattern\":\"^a$\",\"format\":\"email\"}", "\"b\"", NULL },
};

static void
test_cases (void)
{
  g_test_summary ("Each keyword the checker knows accepts and refuses as JSON Schema says, "
                  "naming the place; unknown keywords never refuse");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) schema = snodo_test_parse (cases[i].schema);
      g_autoptr(JsonNode) instance = snodo_test_parse (cases[i].instance);
      g_autoptr(GError) error = NULL;
      gboolean valid = snodo_schema_validate (schema, instance, &error);

      g_test_message ("%s against %s", cases[i].instance, cases[i].schema);
      if (cases[i].error == NULL)
        {
          g_assert_no_error (error);
          g_assert_true (valid);
        }
      else
        {
          g_assert_false (valid);
          g_assert_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
          g_assert_true (g_str_has_suffix (error->message, cases[i].error));
        }
    }
}

static void
test_deep (void)
{
  GString *schema = g_string_new (NULL);
  GString *instance = g_string_new (NULL);
  g_autoptr(JsonNode) s = NULL;
  g_autoptr(JsonNode) v = NULL;

  g_test_summary ("A very deep schema is checked to a bounded depth, never overflowing the stack");

  for (guint i = 0; i < 100; i++)
    {
      g_string_append (schema, "{\"properties\":{\"a\":");
      g_string_append (instance, "{\"a\":");
    }
  g_string_append (schema, "{\"type\":\"string\"}");
  g_string_append (instance, "1");
  for (guint i = 0; i < 100; i++)
    {
      g_string_append (schema, "}}");
      g_string_append (instance, "}");
    }
  s = snodo_test_parse (schema->str);
  v = snodo_test_parse (instance->str);
  /* Beyond the bound, accepted rather than refused. */
  g_assert_true (snodo_schema_validate (s, v, NULL));
  g_string_free (schema, TRUE);
  g_string_free (instance, TRUE);
}

/* Builds a string of @n characters, cycling through characters of 1, 2, 3
 * and 4 bytes starting with the one at @shift, so that the multi-byte
 * ones fall at every offset of an 8-byte word. */
static char *
make_text (guint n,
           guint shift)
{
  static const char *characters[] = { "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80" };
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    g_string_append (text, characters[(i + shift) % G_N_ELEMENTS (characters)]);
  return g_string_free (text, FALSE);
}

static gboolean
length_ok (const char *text,
           const char *keyword,
           double      limit)
{
  g_autofree char *json = g_strdup_printf ("{\"%s\":%g}", keyword, limit);
  g_autoptr(JsonNode) schema = snodo_test_parse (json);
  g_autoptr(JsonNode) instance = json_node_init_string (json_node_alloc (), text);

  return snodo_schema_validate (schema, instance, NULL);
}

static void
test_lengths (void)
{
  g_test_summary ("minLength and maxLength count characters exactly at their bounds, "
                  "for every mix of character widths and string lengths around word sizes");

  for (guint n = 0; n < 40; n++)
    for (guint shift = 0; shift < 4; shift++)
      {
        g_autofree char *text = make_text (n, shift);

        g_assert_cmpint (g_utf8_strlen (text, -1), ==, n);
        g_assert_true (length_ok (text, "maxLength", n));
        g_assert_true (length_ok (text, "minLength", n));
        g_assert_true (length_ok (text, "maxLength", n + 1));
        g_assert_false (length_ok (text, "minLength", n + 1));
        if (n > 0)
          {
            g_assert_false (length_ok (text, "maxLength", n - 1));
            g_assert_true (length_ok (text, "minLength", n - 1));
          }
      }

  /* U+0000, as the reader stores it (0xC0 0x80), is one character. */
  g_assert_true (length_ok ("\xc0\x80", "maxLength", 1));
  g_assert_false (length_ok ("\xc0\x80", "minLength", 2));
  g_assert_true (length_ok ("a\xc0\x80" "a\xc0\x80" "a\xc0\x80", "maxLength", 6));
  g_assert_false (length_ok ("a\xc0\x80" "a\xc0\x80" "a\xc0\x80", "maxLength", 5));

  /* Long texts, where counting stops early. */
  {
    g_autofree char *text = make_text (10000, 1);

    g_assert_true (length_ok (text, "maxLength", 10000));
    g_assert_false (length_ok (text, "maxLength", 9999));
    g_assert_false (length_ok (text, "maxLength", 10));
    g_assert_true (length_ok (text, "minLength", 10000));
    g_assert_true (length_ok (text, "minLength", 10));
    g_assert_false (length_ok (text, "minLength", 10001));
    g_assert_false (length_ok (text, "minLength", 30000));
  }
}

/* Schemas of the shapes the fast path models, and of shapes next to them
 * that it must hand over. */
static const char *sealed_schemas[] = {
  "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}},\"required\":[\"message\"]}",
  "{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\",\"description\":\"d\"}},"
  "\"required\":[\"message\"],\"additionalProperties\":false,\"$schema\":\"x\"}",
  "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":[\"integer\",\"null\"]},\"b\":{\"type\":\"number\"},"
  "\"c\":{\"type\":\"boolean\"},\"d\":{\"type\":\"array\"},\"e\":{\"type\":\"object\"},\"f\":true,\"g\":false,"
  "\"h\":null,\"i\":{\"type\":\"nonsense\"},\"j\":{\"type\":[]},\"k\":{\"type\":[1]},\"l\":{}},"
  "\"required\":[\"a\",\"z\",7]}",
  "{\"properties\":{\"a\":{\"type\":\"string\",\"maxLength\":2}},\"additionalProperties\":{\"type\":\"integer\"}}",
  "{\"properties\":{\"a\":{\"properties\":{\"b\":{\"type\":\"string\"}},\"required\":[\"b\"]}}}",
  "{\"properties\":{\"a\":{\"enum\":[1,2]}},\"additionalProperties\":true}",
  "{\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":5}",
  "{\"properties\":[1],\"required\":\"a\",\"additionalProperties\":false}",
  "{\"required\":[\"a\",\"b\"]}",
  "{\"type\":\"integer\"}",
  "{\"type\":[\"string\",\"object\"],\"properties\":{\"a\":{\"type\":\"null\"}}}",
  "{\"type\":\"object\",\"minLength\":1,\"properties\":{\"a\":{\"type\":\"string\"}}}",
  "{\"type\":\"object\",\"anyOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}",
  "{\"type\":7}",
  "true",
  "false",
  "3",
};

static const char *sealed_instances[] = {
  "{}", "{\"message\":\"hi\"}", "{\"message\":1}", "{\"message\":null}", "{\"message\":\"x\",\"extra\":true}",
  "{\"a\":1}", "{\"a\":null}", "{\"a\":1.0}", "{\"a\":1.5}", "{\"a\":\"xy\"}", "{\"a\":\"xyz\"}",
  "{\"a\":{\"b\":\"x\"}}", "{\"a\":{\"b\":1}}", "{\"a\":{}}", "{\"a\":2,\"b\":3}", "{\"b\":\"x\"}",
  "{\"a\":1,\"z\":0}", "{\"a\":1,\"z\":0,\"b\":1e400,\"c\":false}",
  "{\"a\":1,\"z\":0,\"b\":1,\"c\":true,\"d\":[],\"e\":{},\"f\":1,\"h\":1,\"i\":1,\"k\":1,\"l\":1}",
  "{\"a\":1,\"z\":0,\"g\":1}", "{\"a\":1,\"z\":0,\"j\":1}", "{\"a\":1,\"z\":0,\"d\":{}}",
  "[]", "\"x\"", "1", "1.0", "1.5", "null", "true",
};

static void
check_same (JsonNode *schema,
            JsonNode *sealed,
            JsonNode *instance)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) sealed_error = NULL;
  gboolean valid = snodo_schema_validate (schema, instance, &error);

  /* Twice: once read, once from what was read. */
  for (int round = 0; round < 2; round++)
    {
      gboolean sealed_valid;

      g_clear_error (&sealed_error);
      sealed_valid = snodo_schema_validate (sealed, instance, &sealed_error);
      g_assert_cmpint (sealed_valid, ==, valid);
      if (!valid)
        {
          g_assert_error (sealed_error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS);
          g_assert_cmpstr (sealed_error->message, ==, error->message);
        }
      else
        g_assert_no_error (sealed_error);

      /* An object, as the server checks tool arguments: the same answer
       * and message without a node around it, sealed or not. */
      if (JSON_NODE_HOLDS_OBJECT (instance))
        for (int which = 0; which < 2; which++)
          {
            g_autoptr(GError) object_error = NULL;
            gboolean object_valid = snodo_schema_validate_object (which ? sealed : schema,
                                                                  json_node_get_object (instance),
                                                                  &object_error);

            g_assert_cmpint (object_valid, ==, valid);
            if (!valid)
              g_assert_cmpstr (object_error->message, ==, error->message);
            else
              g_assert_no_error (object_error);
          }
    }
}

static void
test_sealed (void)
{
  g_test_summary ("A sealed schema (checked from what was read of it once) accepts and refuses "
                  "exactly as the same schema unsealed, with the same message");

  for (guint i = 0; i < G_N_ELEMENTS (sealed_schemas); i++)
    for (guint j = 0; j < G_N_ELEMENTS (sealed_instances); j++)
      {
        g_autoptr(JsonNode) schema = snodo_test_parse (sealed_schemas[i]);
        g_autoptr(JsonNode) sealed = snodo_test_parse (sealed_schemas[i]);
        g_autoptr(JsonNode) instance = snodo_test_parse (sealed_instances[j]);

        g_test_message ("%s against %s", sealed_instances[j], sealed_schemas[i]);
        json_node_seal (sealed);
        check_same (schema, sealed, instance);
      }

  /* And every case of the table. */
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) schema = snodo_test_parse (cases[i].schema);
      g_autoptr(JsonNode) sealed = snodo_test_parse (cases[i].schema);
      g_autoptr(JsonNode) instance = snodo_test_parse (cases[i].instance);

      json_node_seal (sealed);
      check_same (schema, sealed, instance);
    }
}

static void
test_sealed_many (void)
{
  GPtrArray *schemas = g_ptr_array_new_with_free_func ((GDestroyNotify) json_node_unref);
  GString *wide = g_string_new ("{\"properties\":{");

  g_test_summary ("Many sealed schemas in turn, and one with more properties than are read at "
                  "once, are each checked as their own");

  /* More schemas than are kept read: each still checks its own required
   * member, whichever were read before it. */
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *text = g_strdup_printf ("{\"type\":\"object\",\"properties\":{\"m%u\":{\"type\":\"string\"}},"
                                               "\"required\":[\"m%u\"]}", i, i);
      JsonNode *schema = snodo_test_parse (text);

      json_node_seal (schema);
      g_ptr_array_add (schemas, schema);
    }
  for (guint round = 0; round < 3; round++)
    for (guint i = 0; i < schemas->len; i++)
      {
        g_autofree char *good = g_strdup_printf ("{\"m%u\":\"x\"}", i);
        g_autofree char *bad = g_strdup_printf ("{\"m%u\":\"x\"}", (i + 1) % schemas->len);
        g_autoptr(JsonNode) good_node = snodo_test_parse (good);
        g_autoptr(JsonNode) bad_node = snodo_test_parse (bad);

        g_assert_true (snodo_schema_validate (schemas->pdata[i], good_node, NULL));
        g_assert_false (snodo_schema_validate (schemas->pdata[i], bad_node, NULL));
      }
  g_ptr_array_unref (schemas);

  /* 70 properties, the last one required and typed. */
  for (guint i = 0; i < 70; i++)
    g_string_append_printf (wide, "%s\"p%u\":{\"type\":\"integer\"}", i > 0 ? "," : "", i);
  g_string_append (wide, "},\"required\":[\"p69\"]}");
  {
    g_autoptr(JsonNode) schema = snodo_test_parse (wide->str);
    g_autoptr(JsonNode) sealed = snodo_test_parse (wide->str);
    const char *instances[] = { "{\"p69\":1}", "{\"p69\":\"x\"}", "{\"p0\":1}", "{\"p68\":1,\"p69\":2,\"q\":1}" };

    json_node_seal (sealed);
    for (guint i = 0; i < G_N_ELEMENTS (instances); i++)
      {
        g_autoptr(JsonNode) instance = snodo_test_parse (instances[i]);

        check_same (schema, sealed, instance);
      }
  }
  g_string_free (wide, TRUE);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/schema/cases", test_cases);
  g_test_add_func ("/snodo/schema/deep", test_deep);
  g_test_add_func ("/snodo/schema/lengths", test_lengths);
  g_test_add_func ("/snodo/schema/sealed", test_sealed);
  g_test_add_func ("/snodo/schema/sealed-many", test_sealed_many);

  return g_test_run ();
}
