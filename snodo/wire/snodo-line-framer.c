/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-line-framer-private.h"

struct _SnodoLineFramer
{
  /* The limit for lines that start from now on (set_max_line_bytes). */
  gsize    max_line_bytes;
  /* The limit of the line in progress, taken from max_line_bytes when its
   * first byte arrives, so that a change applies from the next line on. */
  gsize    line_limit;
  /* The start of a line whose '\n' has not arrived yet: at most
   * line_limit - 1 bytes. The allocation grows with need and is capped at
   * line_limit - 1, so it never exceeds the limit either. Owned. */
  char    *buffer;
  gsize    buffered;
  gsize    allocated;
  /* TRUE while dropping the rest of an oversized line, up to its '\n'. */
  gboolean discarding;
};

SnodoLineFramer *
snodo_line_framer_new (gsize max_line_bytes)
{
  SnodoLineFramer *self;

  g_return_val_if_fail (max_line_bytes > 0, NULL);

  self = g_new0 (SnodoLineFramer, 1);
  self->max_line_bytes = max_line_bytes;
  self->line_limit = max_line_bytes;
  return self;
}

void
snodo_line_framer_free (SnodoLineFramer *self)
{
  if (self == NULL)
    return;

  g_free (self->buffer);
  g_free (self);
}

void
snodo_line_framer_set_max_line_bytes (SnodoLineFramer *self,
                                      gsize            max_line_bytes)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (max_line_bytes > 0);

  /* line_limit is refreshed when the next line starts. */
  self->max_line_bytes = max_line_bytes;
}

gsize
snodo_line_framer_get_max_line_bytes (SnodoLineFramer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->max_line_bytes;
}

/* Appends to the partial line; the caller has checked that the result stays
 * below line_limit. */
static void
snodo_line_framer_append (SnodoLineFramer *self,
                          const guint8    *data,
                          gsize            len)
{
  gsize needed = self->buffered + len;

  g_assert (needed < self->line_limit);

  if (needed > self->allocated)
    {
      gsize size = MAX (needed, MAX (self->allocated * 2, 256));

      size = MIN (size, self->line_limit - 1);
      self->buffer = g_realloc (self->buffer, size);
      self->allocated = size;
    }

  memcpy (self->buffer + self->buffered, data, len);
  self->buffered = needed;
}

/* Ends the line in progress: the partial line is forgotten and the next
 * byte starts a new line under the current max_line_bytes. */
static void
snodo_line_framer_reset_line (SnodoLineFramer *self)
{
  self->buffered = 0;
  self->discarding = FALSE;
  self->line_limit = self->max_line_bytes;

  /* Do not keep a large allocation around after one long line. */
  if (self->allocated > 64 * 1024)
    {
      g_clear_pointer (&self->buffer, g_free);
      self->allocated = 0;
    }
}

void
snodo_line_framer_push (SnodoLineFramer     *self,
                        const guint8        *data,
                        gsize                len,
                        SnodoLineFramerFunc  func,
                        gpointer             user_data)
{
  const guint8 *p = data;
  const guint8 *end = data + len;

  g_return_if_fail (self != NULL);
  g_return_if_fail (data != NULL || len == 0);
  g_return_if_fail (func != NULL);

  while (p < end)
    {
      const guint8 *nl = memchr (p, '\n', end - p);
      gsize content;

      if (self->discarding)
        {
          if (nl == NULL)
            return;
          p = nl + 1;
          snodo_line_framer_reset_line (self);
          continue;
        }

      if (self->buffered == 0)
        self->line_limit = self->max_line_bytes;

      content = self->buffered + (gsize) ((nl != NULL ? nl : end) - p);

      if (content >= self->line_limit)
        {
          /* Known to be oversized: its content reached the limit without a
           * newline. Report what the limit let through, so that the event is
           * the same however the input was split. */
          gsize seen = self->line_limit;

          self->buffered = 0;
          self->discarding = TRUE;
          func (SNODO_LINE_FRAMER_OVERSIZED, NULL, seen, user_data);
          continue;
        }

      if (nl == NULL)
        {
          snodo_line_framer_append (self, p, end - p);
          return;
        }

      if (self->buffered == 0)
        {
          /* The whole line is inside this chunk: no copy. */
          func (SNODO_LINE_FRAMER_LINE, (const char *) p, nl - p, user_data);
        }
      else
        {
          if (nl > p)
            snodo_line_framer_append (self, p, nl - p);
          func (SNODO_LINE_FRAMER_LINE, self->buffer, self->buffered, user_data);
        }

      p = nl + 1;
      snodo_line_framer_reset_line (self);
    }
}

void
snodo_line_framer_finish (SnodoLineFramer     *self,
                          SnodoLineFramerFunc  func,
                          gpointer             user_data)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (func != NULL);

  /* The partial line is always shorter than its limit, so it fits with the
   * newline it lacks; the tail of an oversized line is simply dropped. */
  if (!self->discarding && self->buffered > 0)
    func (SNODO_LINE_FRAMER_LINE, self->buffer, self->buffered, user_data);

  snodo_line_framer_reset_line (self);
}

void
snodo_line_framer_release_line (SnodoLineFramer *self)
{
  g_return_if_fail (self != NULL);

  /* A line in the buffer is the whole of what is buffered; one from the
   * chunk pushed is not the framer's to free. As at the end of a line, a
   * small buffer is kept for the next. */
  if (self->buffered > 0 && self->allocated > 64 * 1024)
    {
      g_clear_pointer (&self->buffer, g_free);
      self->allocated = 0;
      self->buffered = 0;
    }
}

gsize
snodo_line_framer_get_buffered (SnodoLineFramer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->buffered;
}
