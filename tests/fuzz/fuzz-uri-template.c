/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for URI templates: the input is a template and a URI,
 * split at the first newline. The template is parsed; when it is valid,
 * the URI is matched against it. A match must give one valid UTF-8 value
 * per variable, and expanding the template with those values
 * (percent-encoded) must give a URI that matches again, with the same
 * values: matching is the reverse of expansion.
 */

#include "config.h"

#include <string.h>

#include "snodo-uri-template-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

/* Level-1 expansion of a template that parsed. */
static char *
expand (const char *template,
        JsonObject *variables)
{
  GString *uri = g_string_new (NULL);
  const char *p = template;

  while (*p != '\0')
    {
      const char *close;
      g_autofree char *name = NULL;
      const char *value;

      if (*p != '{')
        {
          g_string_append_c (uri, *p++);
          continue;
        }
      close = strchr (p, '}');
      g_assert (close != NULL);
      name = g_strndup (p + 1, close - p - 1);
      value = json_object_get_string_member (variables, name);
      g_assert (value != NULL);
      g_string_append_uri_escaped (uri, value, NULL, FALSE);
      p = close + 1;
    }
  return g_string_free (uri, FALSE);
}

static gboolean
same_values (JsonObject *a,
             JsonObject *b)
{
  g_autoptr(GList) members = json_object_get_members (a);

  if (json_object_get_size (a) != json_object_get_size (b))
    return FALSE;
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *value = json_object_get_string_member (a, l->data);
      const char *other = json_object_get_string_member_with_default (b, l->data, NULL);

      if (other == NULL || strcmp (value, other) != 0)
        return FALSE;
    }
  return TRUE;
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  const char *split = memchr (data, '\n', size);
  g_autofree char *text = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *expanded = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SnodoUriTemplate) template = NULL;
  g_autoptr(JsonObject) variables = NULL;
  g_autoptr(JsonObject) again = NULL;
  g_autoptr(GList) members = NULL;

  if (split == NULL)
    split = (const char *) data + size;
  /* The API takes C strings: a NUL cuts them short, as it would anyway. */
  text = g_strndup ((const char *) data, split - (const char *) data);
  uri = split < (const char *) data + size ?
        g_strndup (split + 1, (const char *) data + size - split - 1) : g_strdup ("");

  template = snodo_uri_template_parse (text, &error);
  if (template == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }
  g_assert (error == NULL);

  variables = snodo_uri_template_match (template, uri);
  if (variables == NULL)
    return 0;

  g_assert (json_object_get_size (variables) == snodo_uri_template_get_n_variables (template));
  members = json_object_get_members (variables);
  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *value = json_object_get_string_member (variables, l->data);

      g_assert (value != NULL && value[0] != '\0');
      g_assert (g_utf8_validate (value, -1, NULL));
    }

  expanded = expand (text, variables);
  again = snodo_uri_template_match (template, expanded);
  g_assert (again != NULL);
  g_assert (same_values (variables, again));
  return 0;
}
