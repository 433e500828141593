/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Reading JSON text without building it: the quick way through a deferred
 * object that the reader (snodo-json.c) takes for the _meta of every
 * 2026-07-28 request, and the helpers that read members and strings of
 * text the reader has accepted already. */

#include "config.h"

#include <string.h>

#include "snodo-json-private.h"
#include "snodo-json-scan-private.h"

/*
 * The quick way through a deferred object (the _meta of every 2026-07-28
 * request): a tight loop that checks the grammar and notes where its
 * members are, for the common text (no escape, integers of at most 18
 * digits, nesting of at most 32 levels). It accepts only what the reader
 * accepts; anything else it leaves to the reader (it returns NULL), which
 * then reads the value the thorough way, with the same result or error.
 */

#define SKIM_MAX_DEPTH 32

static inline const char *
skim_space (const char *p,
            const char *end)
{
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* @p is just after the opening quote: just after the closing one, or
 * NULL. */
static inline const char *
skim_string (const char *p,
             const char *end)
{
#ifdef SNODO_JSON_HAVE_BLOCKS
  /* Sixteen bytes at a time, from the first: these strings are short
   * (names, versions), and the general loop's set-up cost more than its
   * blocks of 32 save. */
  while (end - p >= 16)
    {
      int mask = snodo_json_block_stops_read (snodo_json_load_block ((const guchar *) p));

      if (mask != 0)
        {
          p += __builtin_ctz (mask);
          return *p == '"' ? p + 1 : NULL;
        }
      p += 16;
    }
#else
  SKIP_PLAIN_WORDS (p, end, read);
#endif
  while (p < end && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
    p++;
  if (p >= end || *p != '"')
    return NULL;
  return p + 1;
}

const char *
snodo_json_skim_object (const char     *p,
                        const char     *end,
                        SnodoJsonSpans *spans)
{
  const char *base = p;
  const char *name = NULL;
  const char *name_end = NULL;
  const char *value = NULL;
  /* One bit per level: set for an array. */
  guint32 arrays = 0;
  guint depth = 0;

  if (spans != NULL)
    {
      spans->complete = TRUE;
      /* Set once the whole object is read: it has no escape then. */
      spans->plain = FALSE;
      spans->n = 0;
    }

  goto open_value;

member:
  if (p >= end || *p != '"')
    return NULL;
  if (depth == 1)
    name = p;
  p = skim_string (p + 1, end);
  if (p == NULL)
    return NULL;
  if (depth == 1)
    name_end = p;
  p = skim_space (p, end);
  if (p >= end || *p != ':')
    return NULL;
  p = skim_space (p + 1, end);
  if (depth == 1)
    value = p;

open_value:
  if (p >= end)
    return NULL;
  switch (*p)
    {
    case '{':
    case '[':
      if (depth == SKIM_MAX_DEPTH)
        return NULL;
      if (*p == '[')
        arrays |= 1u << depth;
      else
        arrays &= ~(1u << depth);
      depth++;
      p = skim_space (p + 1, end);
      if (p < end && *p == (arrays & (1u << (depth - 1)) ? ']' : '}'))
        {
          p++;
          depth--;
          goto after_value;
        }
      if (arrays & (1u << (depth - 1)))
        goto open_value;
      goto member;
    case '"':
      p = skim_string (p + 1, end);
      if (p == NULL)
        return NULL;
      break;
    case 't':
      if (end - p < 4 || memcmp (p, "true", 4) != 0)
        return NULL;
      p += 4;
      break;
    case 'f':
      if (end - p < 5 || memcmp (p, "false", 5) != 0)
        return NULL;
      p += 5;
      break;
    case 'n':
      if (end - p < 4 || memcmp (p, "null", 4) != 0)
        return NULL;
      p += 4;
      break;
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
      {
        const char *digits;

        if (*p == '-')
          p++;
        digits = p;
        if (p >= end || !g_ascii_isdigit (*p))
          return NULL;
        if (*p == '0')
          p++;
        else
          while (p < end && g_ascii_isdigit (*p) && p - digits < 18)
            p++;
        /* A fraction, an exponent, a leading zero or a long integer. */
        if (p < end && (g_ascii_isdigit (*p) || *p == '.' || *p == 'e' || *p == 'E'))
          return NULL;
      }
      break;
    default:
      return NULL;
    }

after_value:
  if (depth == 0)
    {
      if (spans != NULL)
        spans->plain = TRUE;
      return p;
    }
  if (depth == 1 && spans != NULL)
    {
      /* A member of the object ended. */
      if (spans->n < SNODO_JSON_SPANS_MAX && (gsize) (p - base) <= G_MAXUINT32)
        {
          SnodoJsonSpan *span = &spans->spans[spans->n++];

          span->name = (guint32) (name - base);
          span->name_len = (guint32) (name_end - name);
          span->value = (guint32) (value - base);
          span->value_len = (guint32) (p - value);
        }
      else
        spans->complete = FALSE;
    }
  p = skim_space (p, end);
  if (p >= end)
    return NULL;
  if (*p == ',')
    {
      p = skim_space (p + 1, end);
      if (arrays & (1u << (depth - 1)))
        goto open_value;
      goto member;
    }
  if (*p != (arrays & (1u << (depth - 1)) ? ']' : '}'))
    return NULL;
  p++;
  depth--;
  goto after_value;
}

/* Reading what the reader accepted, without building it */

/* @p is just after the opening quote; returns just after the closing one.
 * The text was read already: no control character is in a string. */
static const char *
snodo_json_text_skip_string (const char *p,
                             const char *end)
{
  for (;;)
    {
      SKIP_PLAIN_WORDS (p, end, read);
      while (p < end && *p != '"' && *p != '\\')
        p++;
      if (p >= end)
        return end;
      if (*p == '"')
        return p + 1;
      /* An escape: its next byte is never the end of the string. */
      p += 2;
    }
}

static const char *
snodo_json_text_skip_space (const char *p,
                            const char *end)
{
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  return p;
}

/* Returns the end of the value at @p. */
static const char *
snodo_json_text_skip_value (const char *p,
                            const char *end)
{
  guint depth = 0;

  if (p < end && *p != '"' && *p != '{' && *p != '[')
    {
      /* A number or a literal. */
      while (p < end && *p != ',' && *p != '}' && *p != ']' &&
             *p != ' ' && *p != '\n' && *p != '\r' && *p != '\t')
        p++;
      return p;
    }

  do
    {
      char c = *p++;

      if (c == '"')
        p = snodo_json_text_skip_string (p, end);
      else if (c == '{' || c == '[')
        depth++;
      else if (c == '}' || c == ']')
        depth--;
    }
  while (depth > 0 && p < end);
  return p;
}

void
snodo_json_member_iter_init (SnodoJsonMemberIter *iter,
                             const char          *text,
                             gsize                len)
{
  const char *end = text + len;
  const char *p = snodo_json_text_skip_space (text, end);

  g_return_if_fail (p < end && *p == '{');

  iter->p = p + 1;
  iter->end = end;
}

gboolean
snodo_json_member_iter_next (SnodoJsonMemberIter  *iter,
                             const char          **name,
                             gsize                *name_len,
                             const char          **value,
                             gsize                *value_len)
{
  const char *end = iter->end;
  const char *p = snodo_json_text_skip_space (iter->p, end);

  if (p < end && *p == ',')
    p = snodo_json_text_skip_space (p + 1, end);
  if (p >= end || *p != '"')
    {
      iter->p = end;
      return FALSE;
    }

  *name = p;
  p = snodo_json_text_skip_string (p + 1, end);
  *name_len = (gsize) (p - *name);
  p = snodo_json_text_skip_space (p, end);
  /* The colon. */
  p = snodo_json_text_skip_space (p + 1, end);
  *value = p;
  p = snodo_json_text_skip_value (p, end);
  *value_len = (gsize) (p - *value);
  iter->p = p;
  return TRUE;
}

gboolean
snodo_json_text_is_string (const char *text,
                           gsize       len)
{
  return len >= 2 && text[0] == '"';
}

gboolean
snodo_json_text_equal_string (const char *text,
                              gsize       len,
                              const char *str)
{
  g_autoptr(JsonNode) node = NULL;

  if (!snodo_json_text_is_string (text, len))
    return FALSE;
  if (memchr (text + 1, '\\', len - 2) == NULL)
    return len - 2 == strlen (str) && memcmp (text + 1, str, len - 2) == 0;

  /* Escaped: read as the reader reads it. */
  node = snodo_json_parse (text, len, NULL);
  return node != NULL && g_strcmp0 (json_node_get_string (node), str) == 0;
}

char *
snodo_json_text_dup_string (const char *text,
                            gsize       len)
{
  g_autoptr(JsonNode) node = NULL;

  if (!snodo_json_text_is_string (text, len))
    return NULL;
  if (memchr (text + 1, '\\', len - 2) == NULL)
    return g_strndup (text + 1, len - 2);
  node = snodo_json_parse (text, len, NULL);
  return node != NULL ? g_strdup (json_node_get_string (node)) : NULL;
}

/* A quick look at text not read yet */

/* What the reader builds at least (see COST_NODE in snodo-json.c): an
 * array element holding a value, a null one, one holding an object or an
 * array (counted with it); an object, an array, a string's block. */
#define ESTIMATE_VALUE_ELEMENT 85
#define ESTIMATE_NULL_ELEMENT  49
#define ESTIMATE_ELEMENT       12
#define ESTIMATE_OBJECT        400
#define ESTIMATE_ARRAY         120
#define ESTIMATE_STRING        32

/* @p is just after the opening quote of a string of any text: just after
 * the closing quote, or @end. */
static const char *
estimate_skip_string (const char *p,
                      const char *end)
{
  while (p < end)
    {
      if (*p == '"')
        return p + 1;
      if (*p == '\\' && end - p >= 2)
        p++;
      p++;
    }
  return end;
}

gsize
snodo_json_text_estimate (const char  *text,
                          gsize        len,
                          const char **id,
                          gsize       *id_len)
{
  const char *p = text;
  const char *end = text + len;
  gsize cost = 0;
  guint depth = 0;

  *id = NULL;
  *id_len = 0;
  while (p < end)
    {
      char c = *p++;

      switch (c)
        {
        case '"':
          {
            const char *start = p - 1;

            p = estimate_skip_string (p, end);
            /* A decoded string is a third of its text at the least
             * (\u escapes). */
            cost += MAX ((gsize) ESTIMATE_STRING, (gsize) (p - start) / 3);
            if (depth == 1 && *id == NULL && p - start == 4 && memcmp (start, "\"id\"", 4) == 0)
              {
                const char *value = snodo_json_text_skip_space (p, end);
                const char *value_end;

                if (value >= end || *value != ':')
                  break;
                value = snodo_json_text_skip_space (value + 1, end);
                if (value < end && *value == '"')
                  value_end = estimate_skip_string (value + 1, end);
                else
                  {
                    value_end = value;
                    while (value_end < end && *value_end != ',' && *value_end != '}' &&
                           *value_end != ' ' && *value_end != '\n' && *value_end != '\r' && *value_end != '\t')
                      value_end++;
                  }
                *id = value;
                *id_len = (gsize) (value_end - value);
                p = value_end;
              }
          }
          break;
        case '{':
          depth++;
          cost += ESTIMATE_OBJECT;
          break;
        case '[':
          depth++;
          cost += ESTIMATE_ARRAY;
          break;
        case '}':
        case ']':
          if (depth > 0)
            depth--;
          break;
        case ',':
          {
            const char *next = snodo_json_text_skip_space (p, end);

            if (next < end && (*next == '{' || *next == '['))
              cost += ESTIMATE_ELEMENT;
            else if (next < end && *next != 'n')
              cost += ESTIMATE_VALUE_ELEMENT;
            else
              cost += ESTIMATE_NULL_ELEMENT;
          }
          break;
        default:
          break;
        }
    }
  return cost;
}
