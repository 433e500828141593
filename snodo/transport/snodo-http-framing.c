/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Malformed chunked bodies, answered 400 before libsoup misreads them
 * (snodo-http-framing-private.h). libsoup 3.2 reads a size line with an
 * unchecked strtoul: "zz", "-5" or 2^64-1 read as the last chunk, and the
 * bytes after them as a new request; it drops the rest of a line after a
 * chunk's data; it ends a connection whose size line is 128 bytes or more
 * without an answer. The listener follows the bytes it hands libsoup with
 * this, and refuses the request at the first byte that breaks the chunked
 * framing of RFC 9112: a 400 with error -32700, then the connection ends. */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"
#include "snodo-http-framing-private.h"

enum {
  STATE_HEAD,
  STATE_BODY,
  STATE_CHUNK_SIZE,
  STATE_CHUNK_DATA,
  STATE_CHUNK_END,
  STATE_TRAILER,
  /* Not followed (an encoding libsoup refuses itself, or a malformed
   * body already refused). */
  STATE_OFF,
};

/* The longest size line accepted: libsoup cannot read one of 128 bytes. */
#define MAX_SIZE_LINE 127
/* A chunk size of more hexadecimal digits than this cannot be meant. */
#define MAX_SIZE_DIGITS 15

static void
framing_next_request (SnodoHttpFraming *self)
{
  self->state = STATE_HEAD;
  self->seen_request_line = FALSE;
  self->chunked = FALSE;
  self->has_length = FALSE;
  self->remaining = 0;
}

static gboolean
line_has_name (const char *line,
               gsize       kept,
               const char *name,
               gsize       n)
{
  return kept > n && line[n] == ':' && g_ascii_strncasecmp (line, name, n) == 0;
}

/* The value of a header line (kept whole), trimmed; NULL when the line
 * was longer than what is kept. */
static char *
line_value (SnodoHttpFraming *self,
            gsize             name_len)
{
  if (self->line_len > self->kept)
    return NULL;
  return g_strstrip (g_strndup (self->line + name_len + 1, self->kept - name_len - 1));
}

/* A head line ended. */
static void
framing_head_line (SnodoHttpFraming *self)
{
  if (self->line_len == 0)
    {
      if (!self->seen_request_line)
        return;   /* empty lines before a request are allowed */
      if (self->chunked)
        self->state = STATE_CHUNK_SIZE;
      else if (self->has_length && self->remaining > 0)
        self->state = STATE_BODY;
      else
        framing_next_request (self);
      return;
    }
  if (!self->seen_request_line)
    {
      self->seen_request_line = TRUE;
      return;
    }
  /* Most lines name neither header. */
  if (self->line[0] != 't' && self->line[0] != 'T' && self->line[0] != 'c' && self->line[0] != 'C')
    return;
  if (line_has_name (self->line, self->kept, "transfer-encoding", strlen ("transfer-encoding")))
    {
      g_autofree char *value = line_value (self, strlen ("transfer-encoding"));

      /* Anything but one "chunked" is libsoup's to refuse or read. */
      if (value != NULL && g_ascii_strcasecmp (value, "chunked") == 0 && !self->chunked)
        self->chunked = TRUE;
      else
        self->state = STATE_OFF;
    }
  else if (line_has_name (self->line, self->kept, "content-length", strlen ("content-length")))
    {
      g_autofree char *value = line_value (self, strlen ("content-length"));
      guint64 length;

      if (value == NULL || self->has_length ||
          !g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &length, NULL))
        self->state = STATE_OFF;
      else
        {
          self->has_length = TRUE;
          self->remaining = length;
        }
    }
}

/* A chunk size line ended: FALSE if it is malformed. */
static gboolean
framing_size_line (SnodoHttpFraming *self)
{
  guint64 size = 0;
  guint significant = 0;
  gsize i = 0;

  if (self->line_len > MAX_SIZE_LINE)
    return FALSE;
  for (; i < self->kept && g_ascii_isxdigit (self->line[i]); i++)
    {
      size = size * 16 + g_ascii_xdigit_value (self->line[i]);
      if (size > 0 && ++significant > MAX_SIZE_DIGITS)
        return FALSE;
    }
  if (i == 0)
    return FALSE;
  /* Then only chunk extensions: optional blanks, ";". */
  while (i < self->kept && (self->line[i] == ' ' || self->line[i] == '\t'))
    i++;
  if (i < self->line_len && (i >= self->kept || self->line[i] != ';'))
    return FALSE;
  if (size == 0)
    self->state = STATE_TRAILER;
  else
    {
      self->state = STATE_CHUNK_DATA;
      self->remaining = size;
    }
  return TRUE;
}

gboolean
snodo_http_framing_feed (SnodoHttpFraming *self,
                         const guint8     *data,
                         gsize             len)
{
  gsize i = 0;

  while (i < len && self->state != STATE_OFF)
    {
      guint8 c;

      if (self->state == STATE_BODY || self->state == STATE_CHUNK_DATA)
        {
          guint64 take = MIN ((guint64) (len - i), self->remaining);

          i += take;
          self->remaining -= take;
          if (self->remaining == 0)
            {
              if (self->state == STATE_BODY)
                framing_next_request (self);
              else
                {
                  self->state = STATE_CHUNK_END;
                  self->cr = FALSE;
                }
            }
          continue;
        }

      if (self->state != STATE_CHUNK_END)
        {
          /* A line (HEAD, CHUNK_SIZE, TRAILER): up to its end at once. */
          const guint8 *end = memchr (data + i, '\n', len - i);
          gsize n = (end != NULL ? (gsize) (end - data) : len) - i;

          if (n > 0)
            {
              gsize keep = MIN (n, (gsize) (SNODO_HTTP_FRAMING_LINE - self->kept));

              memcpy (self->line + self->kept, data + i, keep);
              self->kept += keep;
              self->line_len += n;
              self->cr = data[i + n - 1] == '\r';
              i += n;
            }
          if (end == NULL)
            continue;
        }

      c = data[i++];
      if (self->state == STATE_CHUNK_END)
        {
          if (c == '\r' && !self->cr)
            self->cr = TRUE;
          else if (c == '\n')
            {
              self->state = STATE_CHUNK_SIZE;
              self->cr = FALSE;
            }
          else
            {
              self->state = STATE_OFF;
              return FALSE;
            }
          continue;
        }

      /* c is the '\n' that ends the line: after CR, or alone as libsoup
       * allows. */
      if (self->cr)
        {
          if (self->kept == self->line_len)
            self->kept--;
          self->line_len--;
          self->cr = FALSE;
        }

      switch (self->state)
        {
        case STATE_HEAD:
          framing_head_line (self);
          break;

        case STATE_CHUNK_SIZE:
          if (!framing_size_line (self))
            {
              self->state = STATE_OFF;
              return FALSE;
            }
          break;

        case STATE_TRAILER:
          if (self->line_len == 0)
            framing_next_request (self);
          break;

        default:
          break;
        }
      self->kept = 0;
      self->line_len = 0;
    }
  return TRUE;
}

void
snodo_http_framing_refuse (GIOStream *base)
{
  GOutputStream *output = g_io_stream_get_output_stream (base);
  g_autofree char *body = NULL;
  g_autofree char *response = NULL;

  body = g_strdup_printf ("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"%s\"}}",
                          _("Parse error: the chunked body is malformed"));
  response = g_strdup_printf ("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
                              "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n%s",
                              strlen (body), body);
  if (G_IS_POLLABLE_OUTPUT_STREAM (output))
    g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (output), response, strlen (response),
                                                NULL, NULL);
}

/* ---- Closing after the client stopped sending ------------------------------ */

#define LINGER_MS 2000

typedef struct
{
  GIOStream *base;
  GSource   *read_source;
  GSource   *timeout_source;
} Linger;

static void
linger_end (Linger *linger)
{
  g_clear_pointer (&linger->read_source, snodo_source_destroy_and_unref);
  g_clear_pointer (&linger->timeout_source, snodo_source_destroy_and_unref);
  g_io_stream_close (linger->base, NULL, NULL);
  g_object_unref (linger->base);
  g_free (linger);
}

static gboolean
linger_read_cb (GObject  *stream,
                gpointer  user_data)
{
  Linger *linger = user_data;
  g_autoptr(GError) error = NULL;
  char buffer[4096];
  gssize n;

  do
    n = g_pollable_input_stream_read_nonblocking (G_POLLABLE_INPUT_STREAM (stream), buffer, sizeof buffer,
                                                  NULL, &error);
  while (n > 0);
  if (n < 0 && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    return G_SOURCE_CONTINUE;
  linger_end (linger);
  return G_SOURCE_REMOVE;
}

static gboolean
linger_timeout_cb (gpointer user_data)
{
  linger_end (user_data);
  return G_SOURCE_REMOVE;
}

void
snodo_http_framing_linger (GIOStream    *base,
                           GMainContext *context)
{
  GInputStream *input = g_io_stream_get_input_stream (base);
  Linger *linger;

  if (!G_IS_POLLABLE_INPUT_STREAM (input))
    {
      g_io_stream_close (base, NULL, NULL);
      return;
    }
  linger = g_new0 (Linger, 1);
  linger->base = g_object_ref (base);
  linger->read_source = g_pollable_input_stream_create_source (G_POLLABLE_INPUT_STREAM (input), NULL);
  g_source_set_static_name (linger->read_source, "[snodo] http malformed body linger");
  g_source_set_callback (linger->read_source, G_SOURCE_FUNC (linger_read_cb), linger, NULL);
  g_source_attach (linger->read_source, context);
  linger->timeout_source = g_timeout_source_new (LINGER_MS);
  g_source_set_callback (linger->timeout_source, linger_timeout_cb, linger, NULL);
  g_source_attach (linger->timeout_source, context);
}
