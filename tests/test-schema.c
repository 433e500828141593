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
  { "{\"minItems\":2,\"maxItems\":3}", "[1]", "has fewer than 2 items" },
  { "{\"minItems\":2,\"maxItems\":3}", "[1,2,3,4]", "has more than 3 items" },
  { "{\"minLength\":2,\"maxLength\":3}", "\"\xc3\xa9\xc3\xa9\"", NULL },
  { "{\"maxLength\":3}", "\"abcd\"", "is longer than 3 characters" },
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/snodo/schema/cases", test_cases);
  g_test_add_func ("/snodo/schema/deep", test_deep);

  return g_test_run ();
}
