/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/*
 * The line framer turns chunks of bytes into lines. It does no I/O.
 *
 * A line's size counts its terminating '\n'. A line whose size is at most
 * max_line_bytes is delivered as SNODO_LINE_FRAMER_LINE, without the '\n'
 * (a trailing '\r' is left for the decoder). As soon as a line is known to be
 * larger (its content reaches max_line_bytes bytes without a newline) it is
 * delivered once as SNODO_LINE_FRAMER_OVERSIZED (line NULL, len the number of
 * bytes seen when that became known, which is max_line_bytes: the same
 * however the input was split), and the rest of it, up to and including the
 * next '\n', is dropped as it arrives.
 *
 * At end of input, snodo_line_framer_finish() delivers a last line without
 * '\n', measured as if it had one (so its content must be shorter than
 * max_line_bytes), unless it is empty or is the tail of an oversized line.
 *
 * The framer never holds more than max_line_bytes - 1 bytes of a line: every
 * chunk is consumed whole by snodo_line_framer_push(). Complete lines inside a
 * chunk are delivered straight from the chunk without copying. The line
 * passed to the callback is not NUL-terminated and is valid only during the
 * call; the callback must not push to or finish the same framer. It is in
 * the chunk pushed or in the framer's own buffer: when the chunks pushed
 * are writable, the callback may write over the line (the framer does
 * not read a line after delivering it). Once it
 * has taken what it needs of a line, the callback may call
 * snodo_line_framer_release_line(), after which the line is gone: a long
 * line's memory is then freed before the callback goes on with what it
 * took, not after it returns.
 *
 * A change of max_line_bytes (at least 1) applies from the next line on.
 * After snodo_line_framer_finish() the framer is empty and can be reused.
 */

typedef enum
{
  SNODO_LINE_FRAMER_LINE,
  SNODO_LINE_FRAMER_OVERSIZED,
} SnodoLineFramerEvent;

typedef struct _SnodoLineFramer SnodoLineFramer;

typedef void (*SnodoLineFramerFunc) (SnodoLineFramerEvent  event,
                                     const char           *line,
                                     gsize                 len,
                                     gpointer              user_data);

SnodoLineFramer *snodo_line_framer_new                (gsize                max_line_bytes);
void             snodo_line_framer_free               (SnodoLineFramer     *self);
void             snodo_line_framer_set_max_line_bytes (SnodoLineFramer     *self,
                                                       gsize                max_line_bytes);
gsize            snodo_line_framer_get_max_line_bytes (SnodoLineFramer     *self);
void             snodo_line_framer_push               (SnodoLineFramer     *self,
                                                       const guint8        *data,
                                                       gsize                len,
                                                       SnodoLineFramerFunc  func,
                                                       gpointer             user_data);
void             snodo_line_framer_finish             (SnodoLineFramer     *self,
                                                       SnodoLineFramerFunc  func,
                                                       gpointer             user_data);
void             snodo_line_framer_release_line       (SnodoLineFramer     *self);
gsize            snodo_line_framer_get_buffered       (SnodoLineFramer     *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SnodoLineFramer, snodo_line_framer_free)

G_END_DECLS
