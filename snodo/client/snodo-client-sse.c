/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* An event stream (text/event-stream) cut into events, as the Streamable
 * HTTP client reads the server's SSE answers and its GET stream: fields
 * `data`, `id`, `event` and `retry`, comments, the three line ends (CR,
 * LF, CRLF, even split between two chunks), and the bounds on a line and
 * on an event's data. It knows no HTTP and no JSON. See
 * snodo-client-private.h. */

#include "config.h"

#include <string.h>

#include "snodo-client-private.h"

#include "snodo-base-private.h"

void
snodo_sse_parser_init (SnodoSseParser *parser,
                       gsize           max_bytes)
{
  memset (parser, 0, sizeof *parser);
  parser->line = g_byte_array_new ();
  parser->data = g_string_new (NULL);
  parser->retry_ms = -1;
  parser->max_bytes = max_bytes;
  parser->at_start = TRUE;
}

void
snodo_sse_parser_clear (SnodoSseParser *parser)
{
  g_clear_pointer (&parser->line, g_byte_array_unref);
  if (parser->data != NULL)
    g_string_free (g_steal_pointer (&parser->data), TRUE);
  g_clear_pointer (&parser->last_event_id, g_free);
  g_clear_pointer (&parser->event, g_free);
}

static void
sse_field (SnodoSseParser *parser,
           const char     *name,
           const char     *value)
{
  if (g_str_equal (name, "data"))
    {
      g_string_append (parser->data, value);
      g_string_append_c (parser->data, '\n');
      parser->has_data = TRUE;
    }
  else if (g_str_equal (name, "id"))
    {
      /* An id with NUL cannot be the line's text here: a C string stops
       * there, so the line was refused before. */
      /* An empty id is none: nothing to resume from. */
      g_free (parser->last_event_id);
      parser->last_event_id = *value != '\0' ? g_strdup (value) : NULL;
    }
  else if (g_str_equal (name, "event"))
    {
      g_free (parser->event);
      parser->event = g_strdup (value);
    }
  else if (g_str_equal (name, "retry"))
    {
      guint64 ms;

      if (*value != '\0' && g_ascii_string_to_unsigned (value, 10, 0, G_MAXINT32, &ms, NULL))
        parser->retry_ms = (gint64) ms;
    }
  /* Any other field is ignored. */
}

/* One whole line (without its end), or an empty one: the end of an event. */
static gboolean
sse_line (SnodoSseParser   *parser,
          SnodoSseEventFunc func,
          gpointer          user_data,
          GError          **error)
{
  char *line;
  char *colon;
  const char *value;

  if (parser->line->len == 0)
    {
      if (parser->has_data)
        {
          gboolean go_on;

          /* The last newline of data is not part of it. */
          g_string_truncate (parser->data, parser->data->len - 1);
          go_on = func (parser->event != NULL ? parser->event : "message",
                        parser->data->str, parser->data->len, parser->last_event_id, user_data);
          g_string_truncate (parser->data, 0);
          parser->has_data = FALSE;
          g_clear_pointer (&parser->event, g_free);
          if (!go_on)
            return FALSE;
        }
      g_clear_pointer (&parser->event, g_free);
      return TRUE;
    }

  if (memchr (parser->line->data, '\0', parser->line->len) != NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("The server's event stream holds a NUL byte"));
      return FALSE;
    }
  g_byte_array_append (parser->line, (const guint8 *) "", 1);
  line = (char *) parser->line->data;
  if (line[0] == ':')
    {
      g_byte_array_set_size (parser->line, 0);
      return TRUE;
    }
  colon = strchr (line, ':');
  if (colon != NULL)
    {
      *colon = '\0';
      value = colon + 1;
      if (*value == ' ')
        value++;
    }
  else
    value = "";
  sse_field (parser, line, value);
  g_byte_array_set_size (parser->line, 0);

  if (parser->data->len > parser->max_bytes)
    {
      /* A string for the number: gettext cannot see through G_GSIZE_FORMAT. */
      g_autofree char *limit = g_strdup_printf ("%" G_GSIZE_FORMAT, parser->max_bytes);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                   _("The server sent an event larger than %s bytes"), limit);
      return FALSE;
    }
  return TRUE;
}

/**
 * snodo_sse_parser_push:
 *
 * Cuts @len bytes of the stream into lines and calls @func for each event
 * whose data is complete. Returns %FALSE with @error set when the stream
 * breaks a bound, or without when @func asked to stop.
 */
gboolean
snodo_sse_parser_push (SnodoSseParser    *parser,
                       const char        *chunk,
                       gsize              len,
                       SnodoSseEventFunc  func,
                       gpointer           user_data,
                       GError           **error)
{
  gsize i = 0;

  if (parser->at_start && len > 0)
    {
      /* A byte order mark may open the stream; the check waits for the
       * chunk that holds its three bytes. */
      static const char bom[] = "\xEF\xBB\xBF";
      gsize have = parser->line->len;

      while (have < 3 && i < len && chunk[i] == bom[have])
        {
          g_byte_array_append (parser->line, (const guint8 *) chunk + i, 1);
          have++;
          i++;
        }
      if (have == 3)
        {
          g_byte_array_set_size (parser->line, 0);
          parser->at_start = FALSE;
        }
      else if (i < len)
        parser->at_start = FALSE;
    }

  while (i < len)
    {
      const char *start = chunk + i;
      gsize rest = len - i;
      gsize n = 0;

      if (parser->after_cr)
        {
          parser->after_cr = FALSE;
          if (*start == '\n')
            {
              i++;
              continue;
            }
        }

      while (n < rest && start[n] != '\n' && start[n] != '\r')
        n++;
      if (parser->line->len + n > parser->max_bytes)
        {
          g_autofree char *limit = g_strdup_printf ("%" G_GSIZE_FORMAT, parser->max_bytes);

          g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE,
                       _("The server sent an event larger than %s bytes"), limit);
          return FALSE;
        }
      g_byte_array_append (parser->line, (const guint8 *) start, n);
      i += n;
      if (n == rest)
        break;
      parser->after_cr = chunk[i] == '\r';
      i++;
      if (!sse_line (parser, func, user_data, error))
        return FALSE;
    }
  return TRUE;
}
