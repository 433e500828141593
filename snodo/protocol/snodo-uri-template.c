/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"

#include "snodo-error.h"
#include "snodo-uri-template-private.h"

typedef struct
{
  /* Literal text, or the variable's name. Owned. */
  char     *text;
  gsize     len;
  gboolean  is_variable;
} Part;

struct _SnodoUriTemplate
{
  /* Part, in template order; literal parts are never empty and never
   * adjacent. */
  GArray *parts;
  guint   n_variables;
};

static void
part_clear (Part *part)
{
  g_clear_pointer (&part->text, g_free);
}

static void
add_part (SnodoUriTemplate *self,
          const char       *text,
          gsize             len,
          gboolean          is_variable)
{
  Part part = { g_strndup (text, len), len, is_variable };

  g_array_append_val (self->parts, part);
  if (is_variable)
    self->n_variables++;
}

static gboolean
has_variable (SnodoUriTemplate *self,
              const char       *name,
              gsize             len)
{
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);

      if (part->is_variable && part->len == len && memcmp (part->text, name, len) == 0)
        return TRUE;
    }
  return FALSE;
}

static gboolean
fail (GError     **error,
      const char  *text,
      const char  *why)
{
  g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
               _("“%s” is not a valid URI template: %s"), text, why);
  return FALSE;
}

SnodoUriTemplate *
snodo_uri_template_parse (const char  *text,
                          GError     **error)
{
  g_autoptr(SnodoUriTemplate) self = g_new0 (SnodoUriTemplate, 1);
  g_autoptr(GString) example = g_string_new (NULL);
  const char *literal = text;
  const char *p = text;

  g_return_val_if_fail (text != NULL, NULL);

  self->parts = g_array_new (FALSE, FALSE, sizeof (Part));
  g_array_set_clear_func (self->parts, (GDestroyNotify) part_clear);

  while (*p != '\0')
    {
      const char *name;
      gsize len;

      if (*p == '}')
        {
          fail (error, text, _("a “}” closes no expression"));
          return NULL;
        }
      if (*p != '{')
        {
          g_string_append_c (example, *p);
          p++;
          continue;
        }

      if (p > literal)
        add_part (self, literal, p - literal, FALSE);
      name = ++p;
      while (g_ascii_isalnum (*p) || *p == '_')
        p++;
      len = p - name;
      if (*p == '\0')
        {
          fail (error, text, _("a “{” is not closed"));
          return NULL;
        }
      if (*p != '}')
        {
          fail (error, text,
                _("only {name} expressions are supported, with names of A-Z, a-z, 0-9 and “_”"));
          return NULL;
        }
      if (len == 0)
        {
          fail (error, text, _("an expression has no variable name"));
          return NULL;
        }
      if (has_variable (self, name, len))
        {
          fail (error, text, _("a variable occurs twice"));
          return NULL;
        }
      add_part (self, name, len, TRUE);
      g_string_append_c (example, 'x');
      literal = ++p;
    }
  if (p > literal)
    add_part (self, literal, p - literal, FALSE);

  if (!g_uri_is_valid (example->str, G_URI_FLAGS_NONE, NULL))
    {
      fail (error, text, _("it does not make an absolute URI"));
      return NULL;
    }

  return g_steal_pointer (&self);
}

void
snodo_uri_template_free (SnodoUriTemplate *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->parts, g_array_unref);
  g_free (self);
}

guint
snodo_uri_template_get_n_variables (SnodoUriTemplate *self)
{
  return self->n_variables;
}

/*
 * Which runs of the URI can be a variable's value: a run must decode (as
 * g_uri_unescape_segment() does) to valid UTF-8 without U+0000, so it may
 * neither cut a %XX escape nor a UTF-8 character, nor hold a '%' that
 * starts no escape, an invalid byte or %00. One left-to-right pass marks,
 * for every position of the URI, whether a run may start or end there
 * (@boundary, bit n set) and whether a run may hold it (@bad clear).
 */
static void
uri_mark_runs (const char *uri,
               gsize       n,
               guint8     *boundary,
               guint8     *bad);

#define BIT_GET(row, p) (((row)[(p) >> 3] >> ((p) & 7)) & 1)
#define BIT_SET(row, p) ((row)[(p) >> 3] |= (guint8) (1 << ((p) & 7)))

/* The byte the token at @i stands for (a literal byte or a %XX escape);
 * its length in *@len, 0 for a '%' that starts no escape. */
static int
uri_token (const char *uri,
           gsize       n,
           gsize       i,
           gsize      *len)
{
  if (uri[i] != '%')
    {
      *len = 1;
      return (guint8) uri[i];
    }
  if (i + 2 < n && g_ascii_isxdigit (uri[i + 1]) && g_ascii_isxdigit (uri[i + 2]))
    {
      *len = 3;
      return g_ascii_xdigit_value (uri[i + 1]) << 4 | g_ascii_xdigit_value (uri[i + 2]);
    }
  *len = 0;
  return -1;
}

static void
uri_mark_runs (const char *uri,
               gsize       n,
               guint8     *boundary,
               guint8     *bad)
{
  gsize i = 0;

  BIT_SET (boundary, n);
  while (i < n)
    {
      guint8 bytes[4];
      gsize len;
      gsize end;
      int byte = uri_token (uri, n, i, &len);
      guint want, k;

      if (byte <= 0)
        {
          /* A '%' that starts no escape, or %00: never in a value. */
          gsize stop = len > 0 ? i + len : i + 1;

          for (gsize q = i; q < stop; q++)
            BIT_SET (bad, q);
          i = stop;
          continue;
        }

      want = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 0;
      bytes[0] = (guint8) byte;
      end = i + len;
      for (k = 1; k < want && end < n; k++)
        {
          int next = uri_token (uri, n, end, &len);

          if (next < 0x80 || next >= 0xC0)
            break;
          bytes[k] = (guint8) next;
          end += len;
        }

      if (want == 0 || k < want || !g_utf8_validate ((const char *) bytes, want, NULL))
        {
          /* Not a whole character: the token is never in a value; the
           * next token may start one. */
          uri_token (uri, n, i, &len);
          for (gsize q = i; q < i + len; q++)
            BIT_SET (bad, q);
          i += len;
          continue;
        }

      /* A whole character: a run may start before it and end after it. */
      BIT_SET (boundary, i);
      i = end;
    }
}

/*
 * The matcher works backwards first: row i of @ok has bit p set when the
 * parts i.. match uri[p..n] exactly (row n_parts: only p = n). A literal
 * row needs the text at p and bit p+len of the next row; a variable row
 * needs p on a boundary and some boundary q > p with bit q of the next row
 * such that uri[p..q) holds no '/' and nothing bad (see uri_mark_runs()),
 * which one right-to-left sweep finds. Then a forward walk picks, for each
 * variable, the smallest such q: its value always decodes.
 */
JsonObject *
snodo_uri_template_match (SnodoUriTemplate *self,
                          const char       *uri)
{
  g_autofree guint8 *ok = NULL;
  g_autofree guint8 *boundary = NULL;
  g_autofree guint8 *bad = NULL;
  g_autoptr(JsonObject) variables = NULL;
  gsize n = strlen (uri);
  gsize stride = (n + 1 + 7) / 8;
  guint n_parts = self->parts->len;
  gsize p = 0;

  ok = g_malloc0 (stride * (n_parts + 1));
  boundary = g_malloc0 (stride);
  bad = g_malloc0 (stride);
  uri_mark_runs (uri, n, boundary, bad);
  BIT_SET (ok + stride * n_parts, n);

  for (guint i = n_parts; i-- > 0;)
    {
      Part *part = &g_array_index (self->parts, Part, i);
      guint8 *row = ok + stride * i;
      const guint8 *next = ok + stride * (i + 1);

      if (!part->is_variable)
        {
          for (gsize q = 0; q + part->len <= n; q++)
            if (BIT_GET (next, q + part->len) && memcmp (uri + q, part->text, part->len) == 0)
              BIT_SET (row, q);
        }
      else
        {
          gboolean reachable = FALSE;

          for (gsize q = n; q-- > 0;)
            {
              if (BIT_GET (next, q + 1) && BIT_GET (boundary, q + 1))
                reachable = TRUE;
              if (uri[q] == '/' || BIT_GET (bad, q))
                reachable = FALSE;
              if (reachable && BIT_GET (boundary, q))
                BIT_SET (row, q);
            }
        }
    }

  if (!BIT_GET (ok, 0))
    return NULL;

  variables = json_object_new ();
  for (guint i = 0; i < n_parts; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);
      const guint8 *next = ok + stride * (i + 1);
      g_autofree char *value = NULL;
      gsize q;

      if (!part->is_variable)
        {
          p += part->len;
          continue;
        }

      /* The smallest end; the run holds no '/' and nothing bad (see
       * above), so its value decodes. */
      for (q = p + 1; !(BIT_GET (next, q) && BIT_GET (boundary, q)); q++)
        ;
      value = g_uri_unescape_segment (uri + p, uri + q, NULL);
      if (value == NULL || !g_utf8_validate (value, -1, NULL))
        {
          g_critical ("A URI template matched a value that does not decode");
          return NULL;
        }
      json_object_set_string_member (variables, part->text, value);
      p = q;
    }

  return g_steal_pointer (&variables);
}
