/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * A libFuzzer target for what reads untrusted bytes: the line framer (with
 * a small limit, so that oversized lines happen), the decoder of each line,
 * and the writer of what the decoder accepted. Build and run it by hand
 * (see tests/fuzz/README.md); it is not part of the test suite.
 */

#include "config.h"

#include <string.h>

#include "snodo-frame-private.h"
#include "snodo-json-private.h"
#include "snodo-line-framer-private.h"

int LLVMFuzzerTestOneInput (const guint8 *data,
                            size_t        size);

static void
line_cb (SnodoLineFramerEvent  event,
         const char           *line,
         gsize                 len,
         gpointer              user_data)
{
  g_auto(SnodoFrame) frame = { 0, };

  if (event != SNODO_LINE_FRAMER_LINE)
    return;

  snodo_frame_decode (line, len, &frame);

  /* Leaving params._meta as text (and the root object unbuilt, and
   * params too) changes nothing else, and the text put back is what was
   * built. */
  for (int lazy = 0; lazy < 2; lazy++)
  {
    g_auto(SnodoFrame) deferred = { 0, };

    if (!lazy)
      snodo_frame_decode_deferring (line, len, "_meta", &deferred);
    else
      {
        snodo_frame_decode_lazy (line, len, "_meta", &deferred);
        g_assert (!deferred.params_unbuilt || frame.params != NULL);
        if (deferred.params_unbuilt)
          {
            JsonObjectIter iter;
            const char *name;
            JsonNode *node;

            g_assert (deferred.params_members.n == json_object_get_size (frame.params));
            json_object_iter_init (&iter, frame.params);
            while (json_object_iter_next (&iter, &name, &node))
              if (strcmp (name, "_meta") != 0 || !JSON_NODE_HOLDS_OBJECT (node))
                {
                  g_autofree char *expected = snodo_json_to_string (node, NULL);
                  g_autofree char *got = snodo_json_to_string (snodo_frame_get_param (&deferred, name), NULL);

                  g_assert (strcmp (expected, got) == 0);
                }
            g_assert (snodo_frame_get_params (&deferred) != NULL);
          }
        else if (frame.params != NULL)
          g_assert (json_object_get_size (frame.params) > SNODO_JSON_MEMBERS_MAX);
      }
    g_assert (deferred.kind == frame.kind);
    g_assert (deferred.has_nul == frame.has_nul);
    g_assert (g_strcmp0 (deferred.error_message, frame.error_message) == 0);
    g_assert (g_strcmp0 (deferred.method, frame.method) == 0);
    g_assert (g_strcmp0 (deferred.key, frame.key) == 0);
    g_assert ((deferred.id == NULL) == (frame.id == NULL));
    g_assert (frame.id == NULL || json_node_equal (deferred.id, frame.id));
    g_assert ((deferred.params == NULL) == (frame.params == NULL));
    g_assert ((deferred.params_node == NULL) == (frame.params_node == NULL));
    if (frame.kind == SNODO_FRAME_REQUEST || frame.kind == SNODO_FRAME_NOTIFICATION)
      g_assert (deferred.message == NULL && frame.message != NULL);
    else
      g_assert ((deferred.message == NULL) == (frame.message == NULL));
    if (deferred.deferred != NULL)
      {
        JsonObject *params = json_node_get_object (deferred.params_node);
        const SnodoJsonSpans *spans = &deferred.deferred_spans;
        SnodoJsonMemberIter iter;
        const char *name;
        const char *value;
        gsize name_len;
        gsize value_len;
        guint n = 0;

        /* The reader noted the members of the text as reading the text
         * again finds them. */
        snodo_json_member_iter_init (&iter, deferred.deferred, deferred.deferred_len);
        while (snodo_json_member_iter_next (&iter, &name, &name_len, &value, &value_len))
          {
            if (spans->complete)
              {
                const SnodoJsonSpan *span = &spans->spans[n];

                g_assert (n < spans->n);
                g_assert (span->name == (gsize) (name - deferred.deferred) && span->name_len == name_len);
                g_assert (span->value == (gsize) (value - deferred.deferred) && span->value_len == value_len);
              }
            n++;
          }
        g_assert (spans->complete == (n <= SNODO_JSON_SPANS_MAX));
        g_assert (!spans->complete || spans->n == n);
        g_assert (!spans->plain || memchr (deferred.deferred, '\\', deferred.deferred_len) == NULL);

        json_object_set_member (params, "_meta", snodo_json_parse (deferred.deferred, deferred.deferred_len, NULL));
      }
    if (frame.params_node != NULL)
      {
        g_autofree char *expected = snodo_json_to_string (frame.params_node, NULL);
        g_autofree char *got = snodo_json_to_string (deferred.params_node, NULL);

        g_assert (strcmp (expected, got) == 0);
      }
    if (frame.kind == SNODO_FRAME_RESPONSE)
      {
        static const char * const names[] = { "jsonrpc", "id", "result", "error", "params" };

        for (guint i = 0; i < G_N_ELEMENTS (names); i++)
          {
            JsonNode *x = json_object_get_member (json_node_get_object (frame.message), names[i]);
            JsonNode *y = json_object_get_member (json_node_get_object (deferred.message), names[i]);

            g_assert ((x == NULL) == (y == NULL));
            if (x != NULL)
              {
                g_autofree char *expected = snodo_json_to_string (x, NULL);
                g_autofree char *got = snodo_json_to_string (y, NULL);

                g_assert (strcmp (expected, got) == 0);
              }
          }
      }
  }

  if (frame.message != NULL)
    {
      g_autoptr(GBytes) bytes = snodo_json_to_line (frame.message);
      g_auto(SnodoFrame) again = { 0, };
      gsize out_len;
      const char *out = g_bytes_get_data (bytes, &out_len);

      /* What was accepted writes back to one line that decodes the same way. */
      g_assert (out_len > 0 && out[out_len - 1] == '\n');
      g_assert (memchr (out, '\n', out_len - 1) == NULL);
      snodo_frame_decode (out, out_len - 1, &again);
      g_assert (again.kind == frame.kind);
    }
}

int
LLVMFuzzerTestOneInput (const guint8 *data,
                        size_t        size)
{
  g_autoptr(SnodoLineFramer) framer = snodo_line_framer_new (4096);
  gsize half = size / 2;

  /* Two chunks, so that lines cross a chunk boundary. */
  snodo_line_framer_push (framer, data, half, line_cb, NULL);
  snodo_line_framer_push (framer, data + half, size - half, line_cb, NULL);
  g_assert (snodo_line_framer_get_buffered (framer) < 4096);
  snodo_line_framer_finish (framer, line_cb, NULL);
  return 0;
}
