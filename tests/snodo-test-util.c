/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-test-util.h"

JsonNode *
snodo_test_parse (const char *json)
{
  g_autoptr(GError) error = NULL;
  JsonNode *node = json_from_string (json, &error);

  g_assert_no_error (error);
  g_assert_nonnull (node);
  return node;
}

static gboolean
values_equal (JsonNode *a,
              JsonNode *b)
{
  GType ta = json_node_get_value_type (a);
  GType tb = json_node_get_value_type (b);

  if ((ta == G_TYPE_INT64 || ta == G_TYPE_DOUBLE) && (tb == G_TYPE_INT64 || tb == G_TYPE_DOUBLE))
    {
      if (ta == G_TYPE_INT64 && tb == G_TYPE_INT64)
        return json_node_get_int (a) == json_node_get_int (b);
      return json_node_get_double (a) == json_node_get_double (b);
    }
  if (ta != tb)
    return FALSE;
  if (ta == G_TYPE_STRING)
    return g_strcmp0 (json_node_get_string (a), json_node_get_string (b)) == 0;
  if (ta == G_TYPE_BOOLEAN)
    return json_node_get_boolean (a) == json_node_get_boolean (b);
  return FALSE;
}

gboolean
snodo_test_json_equal (JsonNode *a,
                       JsonNode *b)
{
  if (a == NULL || b == NULL)
    return a == b;
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return FALSE;

  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
      return values_equal (a, b);
    case JSON_NODE_ARRAY:
      {
        JsonArray *aa = json_node_get_array (a);
        JsonArray *ab = json_node_get_array (b);
        guint n = json_array_get_length (aa);

        if (n != json_array_get_length (ab))
          return FALSE;
        for (guint i = 0; i < n; i++)
          if (!snodo_test_json_equal (json_array_get_element (aa, i), json_array_get_element (ab, i)))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *oa = json_node_get_object (a);
        JsonObject *ob = json_node_get_object (b);
        g_autoptr(GList) members = json_object_get_members (oa);

        if (json_object_get_size (oa) != json_object_get_size (ob))
          return FALSE;
        for (const GList *l = members; l; l = l->next)
          {
            if (!json_object_has_member (ob, l->data))
              return FALSE;
            if (!snodo_test_json_equal (json_object_get_member (oa, l->data),
                                        json_object_get_member (ob, l->data)))
              return FALSE;
          }
        return TRUE;
      }
    default:
      return FALSE;
    }
}

static gboolean
wait_timeout_cb (gpointer data)
{
  gboolean *timed_out = data;

  *timed_out = TRUE;
  return G_SOURCE_REMOVE;
}

gboolean
snodo_test_wait_for (const gboolean *flag,
                     guint           timeout_ms)
{
  GMainContext *context = g_main_context_get_thread_default ();
  gboolean timed_out = FALSE;
  GSource *source = g_timeout_source_new (timeout_ms);

  g_source_set_callback (source, wait_timeout_cb, &timed_out, NULL);
  g_source_attach (source, context);
  while (!*flag && !timed_out)
    g_main_context_iteration (context, TRUE);
  g_source_destroy (source);
  g_source_unref (source);
  return *flag;
}
