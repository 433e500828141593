/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The JSON writer: a json-glib tree (or a string) as JSON text, without
 * recursion, allocating nothing but the text for the first levels. The
 * reader is snodo-json.c; what the two share is in
 * snodo-json-scan-private.h. */

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "snodo-base-private.h"
#include "snodo-json-private.h"
#include "snodo-json-scan-private.h"

/* Writing */

typedef struct
{
  /* Exactly one of the two is set, borrowed from the tree being written. */
  JsonArray      *array;
  JsonObject     *object;
  guint           index;
  guint           length;
  JsonObjectIter  iter;
} WriteFrame;

#define WRITE_STACK_INLINE 16

typedef struct
{
  WriteFrame *frames;
  guint       len;
  guint       size;
  WriteFrame  inline_frames[WRITE_STACK_INLINE];
} WriteStack;

static void
snodo_json_write_stack_push (WriteStack       *stack,
                             const WriteFrame *frame)
{
  if (stack->len == stack->size)
    {
      guint size = stack->size * 2;

      if (stack->frames == stack->inline_frames)
        {
          stack->frames = g_new (WriteFrame, size);
          memcpy (stack->frames, stack->inline_frames, sizeof (WriteFrame) * stack->len);
        }
      else
        stack->frames = g_renew (WriteFrame, stack->frames, size);
      stack->size = size;
    }
  stack->frames[stack->len++] = *frame;
}

static void
snodo_json_write_escape (GString *out,
                         guchar   c)
{
  static const char hex[] = "0123456789abcdef";
  char escape[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 0xf] };

  switch (c)
    {
    case '"':
      snodo_json_string_append_len (out, "\\\"", 2);
      break;
    case '\\':
      snodo_json_string_append_len (out, "\\\\", 2);
      break;
    case '\n':
      snodo_json_string_append_len (out, "\\n", 2);
      break;
    case '\r':
      snodo_json_string_append_len (out, "\\r", 2);
      break;
    case '\t':
      snodo_json_string_append_len (out, "\\t", 2);
      break;
    case '\b':
      snodo_json_string_append_len (out, "\\b", 2);
      break;
    case '\f':
      snodo_json_string_append_len (out, "\\f", 2);
      break;
    default:
      snodo_json_string_append_len (out, escape, sizeof escape);
      break;
    }
}

/* Appends the runs of bytes that need no escaping whole: plain ASCII is
 * skipped a word at a time, valid UTF-8 sequences one by one. */
static void
snodo_json_write_string (GString    *out,
                         const char *str)
{
  const guchar *p = (const guchar *) str;
  const guchar *end = p + strlen (str);
  const guchar *run = p;

  for (;;)
    {
      const guchar *limit;
      guint n;

      SKIP_PLAIN_WORDS (p, end, write);
      limit = end - p > 8 ? p + 8 : end;
      while (p < limit && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
        p++;
      if (p == limit)
        {
          if (p < end)
            continue;
          break;
        }

      if (*p < 0x80)
        {
          snodo_json_string_append_len (out, (const char *) run, p - run);
          snodo_json_write_escape (out, *p);
          run = ++p;
        }
      else if (*p == 0xc0 && end - p >= 2 && p[1] == 0x80)
        {
          snodo_json_string_append_len (out, (const char *) run, p - run);
          snodo_json_string_append_len (out, "\\u0000", 6);
          p += 2;
          run = p;
        }
      else if ((n = snodo_json_utf8_sequence (p, end)) > 0)
        p += n;
      else
        {
          /* One U+FFFD for each byte that does not start a valid
           * sequence. */
          snodo_json_string_append_len (out, (const char *) run, p - run);
          snodo_json_string_append_len (out, "\xef\xbf\xbd", 3);
          run = ++p;
        }
    }

  snodo_json_string_append_len (out, (const char *) run, p - run);
}

static gboolean
snodo_json_double_reads_back (const char *text,
                              double      d)
{
  double back = g_ascii_strtod (text, NULL);

  return memcmp (&back, &d, sizeof d) == 0;
}

static void
snodo_json_write_double (GString *out,
                         double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (d))
    {
      snodo_json_string_append_len (out, "null", 4);
      return;
    }

  /* The shortest of 15, 16 or 17 significant digits that reads back to the
   * same bits; 17 always does. */
  g_ascii_formatd (buf, sizeof buf, "%.15g", d);
  if (!snodo_json_double_reads_back (buf, d))
    {
      g_ascii_formatd (buf, sizeof buf, "%.16g", d);
      if (!snodo_json_double_reads_back (buf, d))
        g_ascii_formatd (buf, sizeof buf, "%.17g", d);
    }

  snodo_json_string_append_len (out, buf, strlen (buf));

  /* "%g" writes integral values without a point ("1", "-0"): keep them
   * doubles for the next reader. "1e+300" is already valid JSON. */
  if (strpbrk (buf, ".eE") == NULL)
    snodo_json_string_append_len (out, ".0", 2);
}

/* Without printf, which costs more than the rest of a small message. */
static void
snodo_json_write_int (GString *out,
                      gint64   value)
{
  char buf[24];
  char *p = buf + sizeof buf;
  /* The magnitude, also for G_MININT64. */
  guint64 magnitude = value < 0 ? -(guint64) value : (guint64) value;

  do
    {
      *--p = (char) ('0' + magnitude % 10);
      magnitude /= 10;
    }
  while (magnitude > 0);
  if (value < 0)
    *--p = '-';
  snodo_json_string_append_len (out, p, buf + sizeof buf - p);
}

static void
snodo_json_write_value (GString  *out,
                        JsonNode *node)
{
  GType type = json_node_get_value_type (node);

  if (type == G_TYPE_INT64)
    snodo_json_write_int (out, json_node_get_int (node));
  else if (type == G_TYPE_DOUBLE)
    snodo_json_write_double (out, json_node_get_double (node));
  else if (type == G_TYPE_BOOLEAN)
    {
      if (json_node_get_boolean (node))
        snodo_json_string_append_len (out, "true", 4);
      else
        snodo_json_string_append_len (out, "false", 5);
    }
  else if (type == G_TYPE_STRING && json_node_get_string (node) != NULL)
    {
      g_string_append_c (out, '"');
      snodo_json_write_string (out, json_node_get_string (node));
      g_string_append_c (out, '"');
    }
  else
    snodo_json_string_append_len (out, "null", 4);
}

/* Writes a scalar, or opens a container and pushes its frame. */
static void
snodo_json_write_node (GString    *out,
                       WriteStack *stack,
                       JsonNode   *node)
{
  WriteFrame frame = { 0, };

  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      frame.object = json_node_get_object (node);
      if (frame.object == NULL)
        {
          snodo_json_string_append_len (out, "{}", 2);
          return;
        }
      g_string_append_c (out, '{');
      json_object_iter_init_ordered (&frame.iter, frame.object);
      snodo_json_write_stack_push (stack, &frame);
      break;

    case JSON_NODE_ARRAY:
      frame.array = json_node_get_array (node);
      if (frame.array == NULL)
        {
          snodo_json_string_append_len (out, "[]", 2);
          return;
        }
      g_string_append_c (out, '[');
      frame.length = json_array_get_length (frame.array);
      snodo_json_write_stack_push (stack, &frame);
      break;

    case JSON_NODE_VALUE:
      snodo_json_write_value (out, node);
      break;

    case JSON_NODE_NULL:
    default:
      snodo_json_string_append_len (out, "null", 4);
      break;
    }
}

/* Appends the compact text of @node to @out. */
void
snodo_json_append_node (GString  *out,
                        JsonNode *node)
{
  WriteStack stack;

  stack.frames = stack.inline_frames;
  stack.len = 0;
  stack.size = WRITE_STACK_INLINE;

  snodo_json_write_node (out, &stack, node);

  while (stack.len > 0)
    {
      WriteFrame *top = &stack.frames[stack.len - 1];
      JsonNode *child = NULL;

      if (top->array != NULL)
        {
          if (top->index < top->length)
            {
              if (top->index > 0)
                g_string_append_c (out, ',');
              child = json_array_get_element (top->array, top->index++);
            }
          else
            {
              g_string_append_c (out, ']');
              stack.len--;
              continue;
            }
        }
      else
        {
          const char *member = NULL;

          if (json_object_iter_next_ordered (&top->iter, &member, &child))
            {
              if (top->index++ > 0)
                g_string_append_c (out, ',');
              g_string_append_c (out, '"');
              snodo_json_write_string (out, member);
              snodo_json_string_append_len (out, "\":", 2);
            }
          else
            {
              g_string_append_c (out, '}');
              stack.len--;
              continue;
            }
        }

      /* This may grow the stack and move top; it is not used after. */
      snodo_json_write_node (out, &stack, child);
    }

  if (stack.frames != stack.inline_frames)
    g_free (stack.frames);
}

/* Appends @str to @out as a JSON string, quotes included. */
void
snodo_json_append_string (GString    *out,
                          const char *str)
{
  g_string_append_c (out, '"');
  snodo_json_write_string (out, str);
  g_string_append_c (out, '"');
}

static GString *
snodo_json_write (JsonNode *node,
                  gsize     reserve)
{
  GString *out = g_string_sized_new (256 + reserve);

  snodo_json_append_node (out, node);
  return out;
}

char *
snodo_json_to_string (JsonNode *node,
                      gsize    *len)
{
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = snodo_json_write (node, 0);
  if (len != NULL)
    *len = out->len;
  return g_string_free (out, FALSE);
}

GBytes *
snodo_json_to_line (JsonNode *node)
{
  GString *out;

  g_return_val_if_fail (node != NULL, NULL);

  out = snodo_json_write (node, 1);
  g_string_append_c (out, '\n');
  return g_string_free_to_bytes (out);
}
