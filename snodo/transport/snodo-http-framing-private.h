/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/*
 * The framing of the requests on one HTTP/1.1 connection, followed byte by
 * byte as the listener hands them to libsoup, for one purpose: to notice a
 * malformed chunked body (a size line that is not hexadecimal, too long or
 * too large, data not followed by CRLF), which libsoup 3.2 reads with an
 * unchecked strtoul, and answer it 400 itself (see snodo-http-framing.c).
 * Heads are not kept: only the first bytes of each line.
 */

#define SNODO_HTTP_FRAMING_LINE 64

typedef struct
{
  guint8  state;
  /* The current line: its first bytes, and its whole length. */
  guint8  kept;
  char    line[SNODO_HTTP_FRAMING_LINE];
  gsize   line_len;
  /* Bytes left of a body or a chunk's data. */
  guint64 remaining;
  guint   seen_request_line : 1;
  guint   chunked : 1;
  guint   has_length : 1;
  guint   cr : 1;
} SnodoHttpFraming;

/* Follows @len bytes read; FALSE at the first byte of a malformed chunked
 * body (then it stops following). */
gboolean snodo_http_framing_feed   (SnodoHttpFraming *self,
                                    const guint8     *data,
                                    gsize             len);

/* Writes a 400 answer (error -32700) on @base, without blocking, as far as
 * it goes; the caller shuts the connection's sending side after it. */
void     snodo_http_framing_refuse (GIOStream        *base);

/* Closes @base once the client has stopped sending (end of stream, or
 * after 2 s), so that the 400 is not lost to a reset. */
void     snodo_http_framing_linger (GIOStream        *base,
                                    GMainContext     *context);

G_END_DECLS
