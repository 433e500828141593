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
