/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for the schema checker: the input is a schema and an
 * instance, split at the first NUL byte or, when there is none, at the
 * first newline (so that corpus files are two lines of JSON). Both are read
 * with the strict JSON reader, as the server reads them, and the instance
 * is checked against the schema, and the schema against itself (a schema
 * is an instance too, and one the fuzzer builds for free). The checker
 * must never crash, leak or hang, must answer the same twice, and must
 * always say why it refused. A sealed copy of the schema (checked from
 * what was read of it once, as tools' schemas are) must give the same
 * answer and message.
 */

#include "config.h"

#include <string.h>

#include "snodo-json-private.h"
#include "snodo-schema-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static void
check (JsonNode *schema,
       JsonNode *sealed,
       JsonNode *instance)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GError) again_error = NULL;
  gboolean valid;
  gboolean again;

  valid = snodo_schema_validate (schema, instance, &error);
  g_assert (valid == (error == NULL));
  if (!valid)
    g_assert (error->message != NULL && error->message[0] != '\0');

  again = snodo_schema_validate (schema, instance, &again_error);
  g_assert (again == valid);
  if (!valid)
    g_assert (strcmp (error->message, again_error->message) == 0);

  for (int round = 0; round < 2; round++)
    {
      g_autoptr(GError) sealed_error = NULL;

      again = snodo_schema_validate (sealed, instance, &sealed_error);
      g_assert (again == valid);
      if (!valid)
        g_assert (strcmp (error->message, sealed_error->message) == 0);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  const char *text = (const char *) data;
  const char *split;
  g_autoptr(JsonNode) schema = NULL;
  g_autoptr(JsonNode) sealed = NULL;
  g_autoptr(JsonNode) instance = NULL;

  split = memchr (text, '\0', size);
  if (split == NULL)
    split = memchr (text, '\n', size);
  if (split == NULL)
    return 0;

  schema = snodo_json_parse (text, split - text, NULL);
  if (schema == NULL)
    return 0;
  sealed = json_node_copy (schema);
  json_node_seal (sealed);
  check (schema, sealed, schema);

  instance = snodo_json_parse (split + 1, size - (split + 1 - text), NULL);
  if (instance != NULL)
    check (schema, sealed, instance);
  return 0;
}
