/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "snodo-base-private.h"
#include "snodo-error.h"
#include "snodo-skill-frontmatter-private.h"

/*
 * The front matter of a SKILL.md, read as the subset of YAML 1.2 that skill
 * authors write: block mappings and sequences, plain scalars (resolved by
 * the core schema: null, booleans, integers, floats, else strings), single-
 * and double-quoted scalars, literal and folded block scalars with their
 * chomping indicators, flow sequences and mappings on one line, and
 * comments. Anchors, aliases, tags, directives and complex keys are refused
 * rather than read wrong. The result is what the Skills extension calls the
 * front matter "rendered verbatim as a JSON object".
 */

#define MAX_NESTING 32

typedef struct
{
  /* Columns of indentation, and the text after it (without the line's
   * end, trailing blanks kept for block scalars). */
  int         indent;
  const char *text;
  gsize       length;
  gboolean    blank;
} Line;

typedef struct
{
  GArray  *lines;
  guint    next;
  GError **error;
  guint    depth;
} Parser;

static gboolean
fail (Parser     *parser,
      guint       line,
      const char *message)
{
  if (*parser->error == NULL)
    g_set_error (parser->error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                 _("The front matter cannot be read at line %u: %s"), line + 2, message);
  return FALSE;
}

static Line *
line_at (Parser *parser,
         guint   i)
{
  return &g_array_index (parser->lines, Line, i);
}

/* Skips blank and comment lines. */
static void
skip_blank (Parser *parser)
{
  while (parser->next < parser->lines->len && line_at (parser, parser->next)->blank)
    parser->next++;
}

/* ---- Scalars ------------------------------------------------------------ */

static JsonNode *
node_string (const char *text,
             gssize      length)
{
  g_autofree char *copy = length < 0 ? g_strdup (text) : g_strndup (text, length);

  return json_node_init_string (json_node_alloc (), copy);
}

static gboolean
all_digits (const char *s,
            const char *digits)
{
  if (*s == '\0')
    return FALSE;
  for (; *s != '\0'; s++)
    if (strchr (digits, *s) == NULL)
      return FALSE;
  return TRUE;
}

/* A plain scalar, resolved by the core schema of YAML 1.2. */
static JsonNode *
resolve_plain (const char *text)
{
  static const char * const nulls[] = { "", "~", "null", "Null", "NULL", NULL };
  static const char * const trues[] = { "true", "True", "TRUE", NULL };
  static const char * const falses[] = { "false", "False", "FALSE", NULL };
  const char *digits = text;

  if (g_strv_contains (nulls, text))
    return json_node_init_null (json_node_alloc ());
  if (g_strv_contains (trues, text))
    return json_node_init_boolean (json_node_alloc (), TRUE);
  if (g_strv_contains (falses, text))
    return json_node_init_boolean (json_node_alloc (), FALSE);

  if (*digits == '-' || *digits == '+')
    digits++;
  if (all_digits (digits, "0123456789"))
    {
      char *end = NULL;
      gint64 value;

      errno = 0;
      value = g_ascii_strtoll (text, &end, 10);
      if (errno == 0 && *end == '\0')
        return json_node_init_int (json_node_alloc (), value);
      return json_node_init_double (json_node_alloc (), g_ascii_strtod (text, NULL));
    }
  if (g_str_has_prefix (text, "0x") && all_digits (text + 2, "0123456789abcdefABCDEF") && strlen (text) <= 15)
    return json_node_init_int (json_node_alloc (), g_ascii_strtoll (text + 2, NULL, 16));
  if (g_str_has_prefix (text, "0o") && all_digits (text + 2, "01234567") && strlen (text) <= 20)
    return json_node_init_int (json_node_alloc (), g_ascii_strtoll (text + 2, NULL, 8));
  {
    /* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
    const char *p = digits;
    gboolean mantissa = FALSE;

    while (g_ascii_isdigit (*p))
      p++, mantissa = TRUE;
    if (*p == '.')
      {
        p++;
        while (g_ascii_isdigit (*p))
          p++, mantissa = TRUE;
      }
    if (mantissa && (*p == 'e' || *p == 'E'))
      {
        const char *exponent;

        p++;
        if (*p == '-' || *p == '+')
          p++;
        exponent = p;
        while (g_ascii_isdigit (*p))
          p++;
        if (p == exponent)
          mantissa = FALSE;
      }
    if (mantissa && *p == '\0')
      return json_node_init_double (json_node_alloc (), g_ascii_strtod (text, NULL));
  }
  return json_node_init_string (json_node_alloc (), text);
}

static gboolean
append_unichar (GString  *out,
                gunichar  c)
{
  if (!g_unichar_validate (c) || c == 0)
    return FALSE;
  g_string_append_unichar (out, c);
  return TRUE;
}

/* A double-quoted scalar starting at @p (on its quote); *@end is set past
 * its closing quote. */
static JsonNode *
parse_double_quoted (const char  *p,
                     const char  *limit,
                     const char **end)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (p++; p < limit && *p != '"'; p++)
    {
      if (*p != '\\')
        {
          g_string_append_c (out, *p);
          continue;
        }
      if (++p >= limit)
        return NULL;
      switch (*p)
        {
        case '0': g_string_append_c (out, '\0'); return NULL;
        case 'a': g_string_append_c (out, '\a'); break;
        case 'b': g_string_append_c (out, '\b'); break;
        case 't': case '\t': g_string_append_c (out, '\t'); break;
        case 'n': g_string_append_c (out, '\n'); break;
        case 'v': g_string_append_c (out, '\v'); break;
        case 'f': g_string_append_c (out, '\f'); break;
        case 'r': g_string_append_c (out, '\r'); break;
        case 'e': g_string_append_c (out, '\x1b'); break;
        case ' ': case '"': case '/': case '\\': g_string_append_c (out, *p); break;
        case 'N': g_string_append (out, "\xc2\x85"); break;
        case '_': g_string_append (out, "\xc2\xa0"); break;
        case 'L': g_string_append (out, "\xe2\x80\xa8"); break;
        case 'P': g_string_append (out, "\xe2\x80\xa9"); break;
        case 'x': case 'u': case 'U':
          {
            int n = *p == 'x' ? 2 : *p == 'u' ? 4 : 8;
            gunichar c = 0;

            for (int i = 0; i < n; i++)
              {
                if (++p >= limit || !g_ascii_isxdigit (*p))
                  return NULL;
                c = c * 16 + g_ascii_xdigit_value (*p);
              }
            if (!append_unichar (out, c))
              return NULL;
          }
          break;
        default:
          return NULL;
        }
    }
  if (p >= limit)
    return NULL;
  *end = p + 1;
  return node_string (out->str, out->len);
}

static JsonNode *
parse_single_quoted (const char  *p,
                     const char  *limit,
                     const char **end)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (p++; p < limit; p++)
    {
      if (*p == '\'')
        {
          if (p + 1 < limit && p[1] == '\'')
            {
              g_string_append_c (out, '\'');
              p++;
              continue;
            }
          *end = p + 1;
          return node_string (out->str, out->len);
        }
      g_string_append_c (out, *p);
    }
  return NULL;
}

static const char *
skip_spaces (const char *p,
             const char *limit)
{
  while (p < limit && (*p == ' ' || *p == '\t'))
    p++;
  return p;
}

/* Whether the rest of the line from @p is only blanks or a comment. */
static gboolean
rest_is_empty (const char *p,
               const char *limit)
{
  p = skip_spaces (p, limit);
  return p == limit || *p == '#';
}

/* Where a plain scalar that starts at @p ends: at " #", at ": " or a
 * final ':' when @key, at the flow indicators when @flow. */
static const char *
plain_end (const char *p,
           const char *limit,
           gboolean    key,
           gboolean    flow)
{
  const char *start = p;

  for (; p < limit; p++)
    {
      if (*p == '#' && p > start && (p[-1] == ' ' || p[-1] == '\t'))
        break;
      if (*p == ':' && (p + 1 == limit || p[1] == ' ' || p[1] == '\t' || (flow && strchr (",[]{}", p[1]) != NULL)) &&
          (key || flow))
        break;
      if (flow && strchr (",[]{}", *p) != NULL)
        break;
    }
  while (p > start && (p[-1] == ' ' || p[-1] == '\t'))
    p--;
  return p;
}

static gboolean
starts_unsupported (char c)
{
  return c == '&' || c == '*' || c == '!' || c == '%' || c == '@' || c == '`' || c == '?';
}

static JsonNode *parse_flow (Parser      *parser,
                             guint        line,
                             const char **p,
                             const char  *limit);

/* One node inside a flow collection. */
static JsonNode *
parse_flow_node (Parser      *parser,
                 guint        line,
                 const char **p,
                 const char  *limit)
{
  const char *end = NULL;
  JsonNode *node;

  *p = skip_spaces (*p, limit);
  if (*p >= limit)
    {
      fail (parser, line, _("a flow collection is not closed on its line"));
      return NULL;
    }
  if (**p == '[' || **p == '{')
    return parse_flow (parser, line, p, limit);
  if (**p == '"' || **p == '\'')
    {
      node = **p == '"' ? parse_double_quoted (*p, limit, &end) : parse_single_quoted (*p, limit, &end);
      if (node == NULL)
        fail (parser, line, _("a quoted scalar is not valid"));
      else
        *p = end;
      return node;
    }
  if (starts_unsupported (**p))
    {
      fail (parser, line, _("anchors, aliases, tags and complex keys are not supported"));
      return NULL;
    }
  end = plain_end (*p, limit, FALSE, TRUE);
  {
    g_autofree char *text = g_strndup (*p, end - *p);

    node = resolve_plain (text);
  }
  *p = skip_spaces (end, limit);
  return node;
}

/* A flow sequence or mapping, on one line, starting at *@p. */
static JsonNode *
parse_flow (Parser      *parser,
            guint        line,
            const char **p,
            const char  *limit)
{
  gboolean mapping = **p == '{';
  char close = mapping ? '}' : ']';
  g_autoptr(JsonArray) array = mapping ? NULL : json_array_new ();
  g_autoptr(JsonObject) object = mapping ? json_object_new () : NULL;

  if (++parser->depth > MAX_NESTING)
    {
      fail (parser, line, _("it nests too deep"));
      return NULL;
    }
  (*p)++;
  while (TRUE)
    {
      g_autoptr(JsonNode) key = NULL;
      g_autoptr(JsonNode) value = NULL;

      *p = skip_spaces (*p, limit);
      if (*p < limit && **p == close)
        break;
      key = parse_flow_node (parser, line, p, limit);
      if (key == NULL)
        return NULL;
      *p = skip_spaces (*p, limit);
      if (mapping)
        {
          if (*p >= limit || **p != ':' || !JSON_NODE_HOLDS_VALUE (key) ||
              json_node_get_value_type (key) != G_TYPE_STRING)
            {
              fail (parser, line, _("a flow mapping needs string keys and values"));
              return NULL;
            }
          (*p)++;
          value = parse_flow_node (parser, line, p, limit);
          if (value == NULL)
            return NULL;
          if (json_object_has_member (object, json_node_get_string (key)))
            {
              fail (parser, line, _("a key is repeated"));
              return NULL;
            }
          json_object_set_member (object, json_node_get_string (key), g_steal_pointer (&value));
        }
      else
        json_array_add_element (array, g_steal_pointer (&key));
      *p = skip_spaces (*p, limit);
      if (*p < limit && **p == ',')
        {
          (*p)++;
          continue;
        }
      if (*p < limit && **p == close)
        break;
      fail (parser, line, _("a flow collection is not closed on its line"));
      return NULL;
    }
  (*p)++;
  parser->depth--;
  return mapping ? json_node_init_object (json_node_alloc (), object)
                 : json_node_init_array (json_node_alloc (), array);
}

/* A literal (|) or folded (>) block scalar whose header is @header; its
 * lines are those after the current one indented more than @parent. */
static JsonNode *
parse_block_scalar (Parser     *parser,
                    guint       line,
                    const char *header,
                    const char *limit,
                    int         parent)
{
  gboolean folded = *header == '>';
  char chomp = 'c';
  int explicit = 0;
  int indent = -1;
  g_autoptr(GString) out = g_string_new (NULL);
  guint trailing = 0;
  gboolean previous_more = FALSE;
  gboolean first = TRUE;
  const char *p;

  for (p = header + 1; p < limit && *p != ' ' && *p != '\t' && *p != '#'; p++)
    {
      if ((*p == '-' || *p == '+') && chomp == 'c')
        chomp = *p;
      else if (*p >= '1' && *p <= '9' && explicit == 0)
        explicit = *p - '0';
      else
        {
          fail (parser, line, _("a block scalar's header is not valid"));
          return NULL;
        }
    }
  if (!rest_is_empty (p, limit))
    {
      fail (parser, line, _("a block scalar's header is not valid"));
      return NULL;
    }
  if (explicit > 0)
    indent = parent + explicit;

  while (parser->next < parser->lines->len)
    {
      Line *l = line_at (parser, parser->next);
      gboolean empty = l->length == 0 || strspn (l->text, " \t") == l->length;
      gboolean more;

      if (empty && (indent < 0 || l->indent <= indent))
        {
          trailing++;
          parser->next++;
          continue;
        }
      if (indent < 0)
        {
          if (l->indent <= parent)
            break;
          indent = l->indent;
        }
      if (l->indent < indent)
        break;

      more = l->indent > indent || l->text[0] == ' ' || l->text[0] == '\t';
      if (!first)
        {
          if (!folded || more || previous_more)
            g_string_append_c (out, '\n');
          else if (trailing == 0)
            g_string_append_c (out, ' ');
        }
      for (guint i = 0; i < trailing; i++)
        g_string_append_c (out, '\n');
      trailing = 0;
      for (int i = indent; i < l->indent; i++)
        g_string_append_c (out, ' ');
      g_string_append_len (out, l->text, l->length);
      previous_more = more;
      first = FALSE;
      parser->next++;
    }

  if (!first && chomp != '-')
    g_string_append_c (out, '\n');
  if (chomp == '+')
    for (guint i = 0; i < trailing; i++)
      g_string_append_c (out, '\n');
  return node_string (out->str, out->len);
}

static JsonNode *parse_block (Parser *parser,
                              int     indent);

/* The value after "key:" or "- " on line @line, from @p: inline, a block
 * scalar, or a block collection on the lines after, indented more than
 * @parent (or a sequence at @parent, for a mapping's value). */
static JsonNode *
parse_value (Parser     *parser,
             guint       line,
             const char *p,
             const char *limit,
             int         parent,
             gboolean    in_mapping)
{
  p = skip_spaces (p, limit);
  if (rest_is_empty (p, limit))
    {
      Line *next;

      skip_blank (parser);
      if (parser->next >= parser->lines->len)
        return json_node_init_null (json_node_alloc ());
      next = line_at (parser, parser->next);
      if (next->indent > parent ||
          (in_mapping && next->indent == parent && next->text[0] == '-' &&
           (next->length == 1 || next->text[1] == ' ')))
        return parse_block (parser, next->indent);
      return json_node_init_null (json_node_alloc ());
    }
  if (*p == '|' || *p == '>')
    return parse_block_scalar (parser, line, p, limit, parent);
  if (*p == '[' || *p == '{')
    {
      JsonNode *node = parse_flow (parser, line, &p, limit);

      if (node != NULL && !rest_is_empty (p, limit))
        {
          json_node_unref (node);
          fail (parser, line, _("there is text after a flow collection"));
          return NULL;
        }
      return node;
    }
  if (*p == '"' || *p == '\'')
    {
      const char *end = NULL;
      JsonNode *node = *p == '"' ? parse_double_quoted (p, limit, &end) : parse_single_quoted (p, limit, &end);

      if (node == NULL)
        {
          fail (parser, line, _("a quoted scalar is not valid or not closed on its line"));
          return NULL;
        }
      if (!rest_is_empty (end, limit))
        {
          json_node_unref (node);
          fail (parser, line, _("there is text after a quoted scalar"));
          return NULL;
        }
      return node;
    }
  if (starts_unsupported (*p))
    {
      fail (parser, line, _("anchors, aliases, tags and complex keys are not supported"));
      return NULL;
    }

  {
    /* A plain scalar, maybe continued on the lines after that are
     * indented more than @parent: folded, one space a line break, a
     * newline for each blank line. */
    g_autoptr(GString) text = g_string_new (NULL);
    const char *end = plain_end (p, limit, TRUE, FALSE);
    guint blanks = 0;
    gboolean continued = FALSE;

    g_string_append_len (text, p, end - p);
    if (end < limit && !rest_is_empty (end, limit))
      {
        fail (parser, line, _("a plain scalar holds “: ”; quote it"));
        return NULL;
      }
    while (parser->next < parser->lines->len)
      {
        Line *l = line_at (parser, parser->next);
        const char *lp, *llimit;

        if (l->length == 0)
          {
            blanks++;
            parser->next++;
            continue;
          }
        if (l->indent <= parent || l->text[0] == '#')
          break;
        lp = l->text;
        llimit = l->text + l->length;
        end = plain_end (lp, llimit, TRUE, FALSE);
        if (end < llimit && !rest_is_empty (end, llimit))
          {
            fail (parser, parser->next, _("a plain scalar holds “: ”; quote it"));
            return NULL;
          }
        if (blanks == 0)
          g_string_append_c (text, ' ');
        for (guint i = 0; i < blanks; i++)
          g_string_append_c (text, '\n');
        blanks = 0;
        g_string_append_len (text, lp, end - lp);
        continued = TRUE;
        parser->next++;
        if (end < llimit)
          break;
      }
    /* Blank lines after the scalar belong to no one. */
    return continued ? node_string (text->str, text->len) : resolve_plain (text->str);
  }
}

static gboolean
is_item (Line *l)
{
  return l->text[0] == '-' && (l->length == 1 || l->text[1] == ' ' || l->text[1] == '\t');
}

/* A block sequence or mapping whose entries are at @indent. */
static JsonNode *
parse_block (Parser *parser,
             int     indent)
{
  g_autoptr(JsonArray) array = NULL;
  g_autoptr(JsonObject) object = NULL;
  Line *first;

  skip_blank (parser);
  first = line_at (parser, parser->next);
  if (++parser->depth > MAX_NESTING)
    {
      fail (parser, parser->next, _("it nests too deep"));
      return NULL;
    }
  if (is_item (first))
    array = json_array_new ();
  else
    object = json_object_new ();

  while (TRUE)
    {
      guint n;
      Line *l;
      const char *p, *limit;
      JsonNode *value;

      skip_blank (parser);
      if (parser->next >= parser->lines->len)
        break;
      n = parser->next;
      l = line_at (parser, n);
      if (l->indent < indent)
        break;
      if (l->indent > indent)
        {
          fail (parser, n, _("the indentation is not consistent"));
          return NULL;
        }
      p = l->text;
      limit = l->text + l->length;

      if (array != NULL)
        {
          const char *content;
          const char *colon;

          if (!is_item (l))
            break;
          content = skip_spaces (p + 1, limit);
          colon = skip_spaces (plain_end (content, limit, TRUE, FALSE), limit);
          parser->next++;
          if (rest_is_empty (content, limit) || *content == '|' || *content == '>' || *content == '[' ||
              *content == '{' || *content == '"' || *content == '\'' || colon >= limit || *colon != ':')
            value = parse_value (parser, n, content, limit, indent, FALSE);
          else
            {
              /* "- key: value": a mapping, whose entries are at the
               * column of its first key. */
              parser->next = n;
              l->indent += content - p;
              l->length -= content - p;
              l->text = content;
              value = parse_block (parser, l->indent);
            }
          if (value == NULL)
            return NULL;
          json_array_add_element (array, value);
          continue;
        }

      if (is_item (l))
        {
          fail (parser, n, _("a sequence item is where a key should be"));
          return NULL;
        }
      {
        g_autoptr(JsonNode) key = NULL;
        const char *end = NULL;

        if (*p == '"' || *p == '\'')
          {
            key = *p == '"' ? parse_double_quoted (p, limit, &end) : parse_single_quoted (p, limit, &end);
            if (key == NULL)
              return fail (parser, n, _("a quoted key is not valid")), NULL;
            end = skip_spaces (end, limit);
          }
        else if (starts_unsupported (*p) || *p == '[' || *p == '{')
          return fail (parser, n, _("anchors, aliases, tags and complex keys are not supported")), NULL;
        else
          {
            end = plain_end (p, limit, TRUE, FALSE);
            key = node_string (p, end - p);
            end = skip_spaces (end, limit);
          }
        if (end >= limit || *end != ':' || (end + 1 < limit && end[1] != ' ' && end[1] != '\t'))
          return fail (parser, n, _("a line is not of the form “key: value”")), NULL;
        if (json_object_has_member (object, json_node_get_string (key)))
          return fail (parser, n, _("a key is repeated")), NULL;
        parser->next++;
        value = parse_value (parser, n, end + 1, limit, indent, TRUE);
        if (value == NULL)
          return NULL;
        json_object_set_member (object, json_node_get_string (key), value);
      }
    }
  parser->depth--;
  return array != NULL ? json_node_init_array (json_node_alloc (), g_steal_pointer (&array))
                       : json_node_init_object (json_node_alloc (), g_steal_pointer (&object));
}

/* A line of the file: "---" or "..." alone, after any trailing blanks. */
static gboolean
is_marker (const char *line,
           gsize       length,
           const char *marker)
{
  while (length > 0 && (line[length - 1] == ' ' || line[length - 1] == '\t' || line[length - 1] == '\r'))
    length--;
  return length == 3 && memcmp (line, marker, 3) == 0;
}

JsonNode *
snodo_skill_parse_frontmatter (const char  *text,
                               gsize        length,
                               GError     **error)
{
  g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (Line));
  const char *p = text;
  const char *limit = text + length;
  gboolean closed = FALSE;
  Parser parser = { lines, 0, error, 0 };
  g_autoptr(JsonNode) root = NULL;

  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (length >= 3 && memcmp (p, "\xef\xbb\xbf", 3) == 0)
    p += 3;
  {
    const char *eol = memchr (p, '\n', limit - p);

    if (eol == NULL || !is_marker (p, eol - p, "---"))
      {
        g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                             _("The file does not begin with front matter (a “---” line)"));
        return NULL;
      }
    p = eol + 1;
  }

  while (p < limit)
    {
      const char *eol = memchr (p, '\n', limit - p);
      const char *end = eol != NULL ? eol : limit;
      Line line = { 0, };
      const char *q;

      if (is_marker (p, end - p, "---") || is_marker (p, end - p, "..."))
        {
          closed = TRUE;
          break;
        }
      if ((gsize) (end - text) > SNODO_SKILL_MAX_FRONTMATTER)
        break;
      if (end > p && end[-1] == '\r')
        end--;
      for (q = p; q < end && *q == ' '; q++)
        ;
      if (q < end && *q == '\t' && (q + 1 < end && q[1] != '#'))
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The front matter cannot be read at line %u: %s"), lines->len + 2,
                       _("it is indented with a tab"));
          return NULL;
        }
      line.indent = q - p;
      line.text = q;
      line.length = end - q;
      /* Trailing blanks matter only inside block scalars, which keep the
       * text as written; elsewhere they are skipped as the line is read. */
      {
        const char *r = skip_spaces (q, end);

        line.blank = r == end || *r == '#';
      }
      if (!g_utf8_validate (p, end - p, NULL) || memchr (p, '\0', end - p) != NULL)
        {
          g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                       _("The front matter cannot be read at line %u: %s"), lines->len + 2,
                       _("it is not UTF-8 text"));
          return NULL;
        }
      g_array_append_val (lines, line);
      p = eol != NULL ? eol + 1 : limit;
    }
  if (!closed)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The front matter is not closed by a “---” line within 64 KiB"));
      return NULL;
    }

  skip_blank (&parser);
  if (parser.next >= lines->len)
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA, _("The front matter is empty"));
      return NULL;
    }
  if (line_at (&parser, parser.next)->indent != 0)
    {
      fail (&parser, parser.next, _("the indentation is not consistent"));
      return NULL;
    }
  root = parse_block (&parser, 0);
  if (root == NULL)
    return NULL;
  skip_blank (&parser);
  if (parser.next < lines->len)
    {
      fail (&parser, parser.next, _("the indentation is not consistent"));
      return NULL;
    }
  if (!JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error_literal (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
                           _("The front matter is not a mapping"));
      return NULL;
    }
  return g_steal_pointer (&root);
}

char *
snodo_skill_digest (GBytes *bytes)
{
  g_autofree char *hex = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, bytes);

  return g_strconcat ("sha256:", hex, NULL);
}

gboolean
snodo_skill_name_is_valid (const char *name)
{
  gsize length = strlen (name);

  if (length == 0 || length > 64 || name[0] == '-' || name[length - 1] == '-' || strstr (name, "--") != NULL)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_islower (name[i]) && !g_ascii_isdigit (name[i]) && name[i] != '-')
      return FALSE;
  return TRUE;
}
