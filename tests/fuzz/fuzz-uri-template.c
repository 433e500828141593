/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for URI templates of RFC 6570: the input is a template
 * and a URI, split at the first newline. The template is parsed (as a
 * relative template, so that every level's syntax is reached); when it is
 * valid, the URI is matched against it. Checked:
 *
 * - matching takes at most 2 × (length + 1) × states automaton steps plus
 *   the forward walk (at most one step per state and position): linear in
 *   the URI, whatever the input;
 * - a match gives values that are valid UTF-8 strings, or arrays or
 *   objects of them, for variables of the template only;
 * - expanding the template with those values gives a URI that matches
 *   again (unless a variable is used twice), with the same values when the
 *   template is not ambiguous (snodo_uri_template_is_ambiguous()):
 *   matching is the reverse of expansion.
 */

#include "config.h"

#include <string.h>

#include "snodo-uri-template-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static void
assert_string (JsonNode *node)
{
  g_assert (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING);
  g_assert (g_utf8_validate (json_node_get_string (node), -1, NULL));
}

static void
assert_value (JsonNode *node)
{
  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      g_assert (json_array_get_length (array) > 0);
      for (guint i = 0; i < json_array_get_length (array); i++)
        assert_string (json_array_get_element (array, i));
    }
  else if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);

      g_assert (members != NULL);
      for (GList *l = members; l != NULL; l = l->next)
        {
          g_assert (g_utf8_validate (l->data, -1, NULL));
          assert_string (json_object_get_member (object, l->data));
        }
    }
  else
    assert_string (node);
}

static JsonObject *
match_checked (SnodoUriTemplate *template,
               const char       *uri)
{
  guint64 steps = 0;
  guint64 cells = ((guint64) strlen (uri) + 1) * snodo_uri_template_get_n_states (template);
  JsonObject *variables = snodo_uri_template_match_counted (template, uri, &steps);

  g_assert (steps <= 2 * cells);
  return variables;
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
  g_autoptr(JsonNode) node = NULL;
  g_autoptr(JsonNode) node_again = NULL;

  if (split == NULL)
    split = (const char *) data + size;
  /* The API takes C strings: a NUL cuts them short, as it would anyway. */
  text = g_strndup ((const char *) data, split - (const char *) data);
  uri = split < (const char *) data + size ?
        g_strndup (split + 1, (const char *) data + size - split - 1) : g_strdup ("");

  template = snodo_uri_template_parse_relative (text, &error);
  if (template == NULL)
    {
      g_assert (error != NULL);
      return 0;
    }
  g_assert (error == NULL);

  variables = match_checked (template, uri);
  if (variables == NULL)
    return 0;

  g_assert (json_object_get_size (variables) <= snodo_uri_template_get_n_variables (template));
  members = json_object_get_members (variables);
  for (GList *l = members; l != NULL; l = l->next)
    {
      g_assert (strstr (text, l->data) != NULL);
      assert_value (json_object_get_member (variables, l->data));
    }

  expanded = snodo_uri_template_expand (template, variables, &error);
  g_assert (error == NULL && expanded != NULL);
  again = match_checked (template, expanded);
  if (!snodo_uri_template_is_ambiguous (template))
    {
      g_assert (again != NULL);
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (node, variables);
      node_again = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (node_again, again);
      g_assert (json_node_equal (node, node_again));
    }
  return 0;
}
