/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "snodo-base-private.h"
#include "snodo-json-private.h"
#include "snodo-json-scan-private.h"

/*
 * The reader is a loop over an explicit stack of at most
 * SNODO_JSON_MAX_DEPTH open containers, so the depth of the input never
 * reaches the C stack. Every new node is attached to its parent (or becomes
 * the root) as soon as it is created, so on error freeing the root frees
 * everything built so far.
 *
 * The writer walks the tree with an explicit stack for the same reason: a
 * tree built by the application may be deeper than the reader allows. Its
 * first levels live on the C stack, so that writing a message allocates
 * nothing but its text; deeper trees move it to the heap.
 */

/*
 * What the reader's tree holds in memory, estimated as it is built, from
 * the sizes json-glib 1.6 (with GLib 2.74's slice allocator and glibc's
 * malloc) takes for each part, measured by building trees of a million
 * parts in a fresh process:
 *  - a node, null or a placeholder: 37 bytes; a node with a value (number,
 *    boolean, string): 73 bytes, plus its string's own block;
 *  - a string block: its length and NUL with malloc's 8-byte header,
 *    rounded up to 16, 32 at least;
 *  - an array: 120 bytes; each element: 12 bytes (its slot, in a block
 *    grown by doubling);
 *  - an object: 400 bytes (its hash table and member list; an empty one
 *    takes 290, but the first member makes the table allocate), each
 *    member 72 bytes (a hash slot grown by doubling, a list link) plus the
 *    block of its name.
 * A 2,000,000-byte array of one-digit numbers comes out at 85 bytes per
 * element against 84 measured; tests/test-json.c checks the estimate
 * against glibc's own count for a few shapes (within 10% but for empty
 * objects, overestimated by a third).
 */
#define COST_NODE        37
#define COST_VALUE_NODE  73
#define COST_ARRAY       120
#define COST_ELEMENT     12
#define COST_OBJECT      400
#define COST_MEMBER      72

static inline gsize
snodo_json_block_cost (gsize len)
{
  return MAX (32, (len + 1 + 8 + 15) & ~(gsize) 15);
}


/* The first byte of @data that is not valid UTF-8 (the start of an
 * ill-formed sequence, or a NUL byte), or NULL when all @len bytes are:
 * g_utf8_validate_len(), with runs of ASCII taken eight bytes at a time. */
static const char *
snodo_json_find_invalid_utf8 (const char *data,
                              gsize       len)
{
  const guchar *p = (const guchar *) data;
  const guchar *end = p + len;

  for (;;)
    {
      const guchar *limit;

      SKIP_PLAIN_WORDS (p, end, validate);
      if (p >= end)
        return NULL;

      /* Byte by byte over the next word (a sequence may end after it). */
      limit = end - p > 8 ? p + 8 : end;
      while (p < limit)
        {
          if (*p < 0x80)
            {
              if (*p == '\0')
                return (const char *) p;
              p++;
            }
          else
            {
              guint n = snodo_json_utf8_sequence (p, end);

              if (n == 0)
                return (const char *) p;
              p += n;
            }
        }
    }
}

typedef enum
{
  READ_VALUE,
  READ_AFTER_VALUE,
  READ_MEMBER_NAME,
} ReadState;

typedef struct
{
  /* Exactly one of the two is set; both are borrowed from the node held by
   * the parent (or by the root). */
  JsonArray  *array;
  JsonObject *object;
  JsonNode   *node;
  /* Set even for a container that is read and not built (then neither
   * array nor object is). */
  gboolean    is_array;
  /* This is the outer object of snodo_json_read(): its member of the inner
   * name is deferred. */
  gboolean    defers;
  /* The root object of snodo_json_parse_top(), not built: its members go
   * to the caller's slots. */
  gboolean    flat;
  /* Its params object, not built either: its members go here. */
  SnodoJsonMembers *flat_members;
} ReadFrame;

/* Where snodo_json_parse_top() leaves what it does not build. */
typedef struct
{
  JsonNode         **members;
  gboolean          *jsonrpc_ok;
  SnodoJsonMembers  *params;
  gboolean          *params_unbuilt;
  /* Where the members of the deferred value are, or NULL. */
  SnodoJsonSpans    *spans;
  /* A string "method", not built (or NULL: built). */
  const char       **method;
  char             **method_copy;
  /* The input may be written to while it is read. */
  gboolean           writable;
} ReadTop;

typedef struct
{
  const char *start;
  const char *p;
  const char *end;
  /* Scratch buffers reused for every string and number: value holds the
   * decoded string or number text, name the pending member name. */
  GString    *value;
  GString    *name;
  GError    **error;
  /* A string held U+0000. */
  gboolean    has_nul;
  /* The input may be written to while it is read (it is put back). */
  gboolean    writable;
  /* Set by the caller of snodo_json_reader_string() when a long string
   * may be left in the input instead of copied to the scratch buffer;
   * then placed is where it starts (NULL when it was copied), placed_len
   * its length, and placed_quote its closing quote, to be its NUL while
   * it is copied, or NULL when a NUL ends it already. */
  gboolean    may_place;
  const char *placed;
  gsize       placed_len;
  char       *placed_quote;
} Reader;

/* A string at least this long is built straight from a writable input
 * (see snodo_json_reader_string()): one copy of it, not two. */
#define PLACED_MIN_BYTES SNODO_JSON_PLACED_MIN_BYTES

static gsize
snodo_json_reader_offset (Reader     *reader,
                          const char *at)
{
  return (gsize) (at - reader->start);
}

static gboolean
snodo_json_reader_fail (Reader     *reader,
                        const char *at,
                        const char *what)
{
  g_set_error (reader->error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR,
               /* Translators: %s describes a problem in a JSON text
                * ("unexpected end of input"), %lu is a byte offset */
               _("%s at byte %lu"),
               what, (gulong) snodo_json_reader_offset (reader, at));
  return FALSE;
}

static gboolean
snodo_json_reader_unexpected (Reader     *reader,
                              const char *at)
{
  g_autofree char *what = NULL;
  gunichar c;

  if (at >= reader->end)
    return snodo_json_reader_fail (reader, at, _("unexpected end of input"));

  /* The whole input was validated as UTF-8 before reading started. */
  c = g_utf8_get_char (at);
  if (c >= 0x20 && c < 0x7f && c != '\'')
    what = g_strdup_printf (_("unexpected character '%c'"), (char) c);
  else
    what = g_strdup_printf (_("unexpected character U+%04X"), c);

  return snodo_json_reader_fail (reader, at, what);
}

static inline void
snodo_json_reader_skip_space (Reader *reader)
{
  const char *p = reader->p;

  while (p < reader->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  reader->p = p;
}

static gboolean
snodo_json_reader_hex4 (Reader   *reader,
                        gunichar *out)
{
  gunichar value = 0;

  if (reader->end - reader->p < 4)
    {
      const char *q;

      /* Point at the first byte that is not a hex digit, or at the end. */
      for (q = reader->p; q < reader->end && g_ascii_isxdigit (*q); q++)
        ;
      return snodo_json_reader_fail (reader, q,
                                     q < reader->end ? _("invalid \\u escape")
                                                     : _("unexpected end of input"));
    }

  for (int i = 0; i < 4; i++)
    {
      int digit = g_ascii_xdigit_value (reader->p[i]);

      if (digit < 0)
        return snodo_json_reader_fail (reader, reader->p + i, _("invalid \\u escape"));
      value = (value << 4) | (gunichar) digit;
    }

  reader->p += 4;
  *out = value;
  return TRUE;
}

/* Appends @len bytes of a string read: to @out, or with *@w set, at *@w
 * in the input itself (see snodo_json_reader_string()). */
static inline void
snodo_json_reader_emit (GString     *out,
                        char       **w,
                        const char  *data,
                        gsize        len)
{
  if (*w != NULL)
    {
      memmove (*w, data, len);
      *w += len;
    }
  else if (out != NULL)
    g_string_append_len (out, data, len);
}

/* Called with reader->p just after the opening quote; leaves it just after
 * the closing quote. With @out NULL the string is only checked.
 *
 * With reader->may_place, a long string is left in the input instead
 * (reader->placed, placed_len): one without escapes as it is, its closing
 * quote to be its NUL (placed_quote); one with escapes is decoded over
 * itself once its first PLACED_MIN_BYTES are decoded (what is decoded is
 * never longer than what it was read from, so the writing never passes
 * the reading), and ends with a NUL written there. */
static gboolean
snodo_json_reader_string (Reader  *reader,
                          GString *out)
{
  const char *end = reader->end;
  const char *first = reader->p;
  /* Where the decoded string goes on in the input, once it does. */
  char *w = NULL;

  reader->placed = NULL;
  if (out != NULL)
    {
      out->len = 0;
      out->str[0] = '\0';
    }

  for (;;)
    {
      const char *run = reader->p;
      const char *p = run;
      const char *escape;
      gunichar c;
      char decoded[8];
      gsize decoded_len;
#ifdef SNODO_JSON_HAVE_BLOCKS
      int mask = 0;

      /* Most strings end within sixteen bytes: one block says where. */
      if (end - p >= 16 &&
          (mask = snodo_json_block_stops_read (snodo_json_load_block ((const guchar *) p))) != 0)
        p += __builtin_ctz (mask);
      else
#endif
      for (;;)
        {
          const char *limit;

          SKIP_PLAIN_WORDS (p, end, read);
          limit = end - p > 8 ? p + 8 : end;
          while (p < limit && *p != '"' && *p != '\\' && (guchar) *p >= 0x20)
            p++;
          if (p < limit || p >= end)
            break;
        }
      if (reader->may_place && run == first && p < end && *p == '"' &&
          (gsize) (p - run) >= PLACED_MIN_BYTES)
        {
          /* All of it is one run: left where it is. */
          reader->placed = run;
          reader->placed_len = (gsize) (p - run);
          reader->placed_quote = (char *) p;
          reader->p = p + 1;
          return TRUE;
        }
      if (p > run && w != NULL)
        {
          memmove (w, run, (gsize) (p - run));
          w += p - run;
        }
      else if (p > run && out != NULL)
        {
          gsize n = (gsize) (p - run);

          /* g_string_append_len() without its calls, when it fits;
           * short runs (member names, most values) without memcpy()'s
           * call either. */
          if (out->len == 0 && n <= 16 && out->allocated_len > 16 && end - run >= 16)
            {
              guint64 low;
              guint64 high;

              /* Sixteen bytes, the run and what follows it in the text;
               * the NUL cuts it. */
              memcpy (&low, run, 8);
              memcpy (&high, run + 8, 8);
              memcpy (out->str, &low, 8);
              memcpy (out->str + 8, &high, 8);
              out->len = n;
              out->str[n] = '\0';
            }
          else if (out->len + n < out->allocated_len)
            {
              memcpy (out->str + out->len, run, n);
              out->len += n;
              out->str[out->len] = '\0';
            }
          else
            g_string_append_len (out, run, n);
        }
      reader->p = p;

      if (p >= end)
        return snodo_json_reader_fail (reader, p, _("unterminated string"));

      if (*p == '"')
        {
          reader->p = p + 1;
          if (w != NULL)
            {
              *w = '\0';
              reader->placed = first;
              reader->placed_len = (gsize) (w - first);
              reader->placed_quote = NULL;
            }
          return TRUE;
        }

      if (*p != '\\')
        return snodo_json_reader_fail (reader, p, _("raw control character in a string"));

      if (reader->may_place && w == NULL && out != NULL && out->len >= PLACED_MIN_BYTES)
        {
          /* Long, with escapes: what is decoded so far goes over what it
           * was read from, and the rest is decoded after it. */
          w = (char *) first;
          memcpy (w, out->str, out->len);
          w += out->len;
        }

      escape = p;
      reader->p = p + 2;
      if (p + 1 >= end)
        return snodo_json_reader_fail (reader, p + 1, _("unexpected end of input"));

      decoded_len = 1;
      switch (p[1])
        {
        case '"':
        case '\\':
        case '/':
          decoded[0] = p[1];
          break;
        case 'b':
          decoded[0] = '\b';
          break;
        case 'f':
          decoded[0] = '\f';
          break;
        case 'n':
          decoded[0] = '\n';
          break;
        case 'r':
          decoded[0] = '\r';
          break;
        case 't':
          decoded[0] = '\t';
          break;
        case 'u':
          if (!snodo_json_reader_hex4 (reader, &c))
            return FALSE;

          if (c >= 0xdc00 && c <= 0xdfff)
            return snodo_json_reader_fail (reader, escape, _("lone low surrogate"));

          if (c >= 0xd800 && c <= 0xdbff)
            {
              gunichar low;

              if (reader->end - reader->p < 2 || reader->p[0] != '\\' || reader->p[1] != 'u')
                return snodo_json_reader_fail (reader, escape, _("lone high surrogate"));
              reader->p += 2;
              if (!snodo_json_reader_hex4 (reader, &low))
                return FALSE;
              if (low < 0xdc00 || low > 0xdfff)
                return snodo_json_reader_fail (reader, escape, _("lone high surrogate"));
              c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
            }

          if (c == 0)
            {
              decoded[0] = '\xc0';
              decoded[1] = '\x80';
              decoded_len = 2;
              reader->has_nul = TRUE;
            }
          else
            decoded_len = (gsize) g_unichar_to_utf8 (c, decoded);
          break;
        default:
          return snodo_json_reader_fail (reader, p + 1, _("invalid escape"));
        }
      snodo_json_reader_emit (out, &w, decoded, decoded_len);
    }
}

/* A string node of the string snodo_json_reader_string() left in place:
 * a closing quote becomes its NUL for as long as json-glib copies it. */
static JsonNode *
snodo_json_reader_take_placed (Reader *reader,
                               gsize  *len)
{
  JsonNode *node;

  g_assert (reader->writable);
  *len = reader->placed_len;
  if (reader->placed_quote != NULL)
    *reader->placed_quote = '\0';
  node = json_node_init_string (json_node_alloc (), reader->placed);
  if (reader->placed_quote != NULL)
    *reader->placed_quote = '"';
  reader->placed = NULL;
  return node;
}

/* Reads a number; *@out is its node, or with @out NULL the number is only
 * checked. */
static gboolean
snodo_json_reader_number (Reader    *reader,
                          JsonNode **out)
{
  const char *start = reader->p;
  const char *p = start;
  const char *end = reader->end;
  gboolean negative = FALSE;
  gboolean integral = TRUE;
  gboolean overflow = FALSE;
  guint64 magnitude = 0;
  double d;

  if (*p == '-')
    {
      negative = TRUE;
      p++;
    }

  if (p >= end || !g_ascii_isdigit (*p))
    {
      return snodo_json_reader_fail (reader, p, p >= end ? _("unexpected end of input")
                                                         : _("expected a digit"));
    }

  if (*p == '0')
    {
      p++;
      if (p < end && g_ascii_isdigit (*p))
        {
          return snodo_json_reader_fail (reader, start, _("leading zeros are not allowed"));
        }
    }
  else
    {
      while (p < end && g_ascii_isdigit (*p))
        {
          guint digit = *p - '0';

          if (magnitude > (G_MAXUINT64 - digit) / 10)
            overflow = TRUE;
          else
            magnitude = magnitude * 10 + digit;
          p++;
        }
    }

  if (p < end && *p == '.')
    {
      integral = FALSE;
      p++;
      if (p >= end || !g_ascii_isdigit (*p))
        {
          return snodo_json_reader_fail (reader, p, _("expected a digit after '.'"));
        }
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }

  if (p < end && (*p == 'e' || *p == 'E'))
    {
      integral = FALSE;
      p++;
      if (p < end && (*p == '+' || *p == '-'))
        p++;
      if (p >= end || !g_ascii_isdigit (*p))
        {
          return snodo_json_reader_fail (reader, p, _("expected a digit in the exponent"));
        }
      while (p < end && g_ascii_isdigit (*p))
        p++;
    }

  reader->p = p;

  if (integral && !overflow)
    {
      gint64 value = 0;
      gboolean fits = TRUE;

      if (!negative && magnitude <= (guint64) G_MAXINT64)
        value = (gint64) magnitude;
      else if (negative && magnitude <= (guint64) G_MAXINT64)
        value = -(gint64) magnitude;
      else if (negative && magnitude == (guint64) G_MAXINT64 + 1)
        value = G_MININT64;
      else
        fits = FALSE;

      if (fits)
        {
          if (out != NULL)
            *out = json_node_init_int (json_node_alloc (), value);
          return TRUE;
        }
    }

  /* The input is not NUL-terminated: g_ascii_strtod needs a copy. */
  g_string_truncate (reader->value, 0);
  g_string_append_len (reader->value, start, p - start);
  d = g_ascii_strtod (reader->value->str, NULL);
  if (!isfinite (d))
    return snodo_json_reader_fail (reader, start, _("number out of range"));

  if (out != NULL)
    *out = json_node_init_double (json_node_alloc (), d);
  return TRUE;
}

static gboolean
snodo_json_reader_literal (Reader     *reader,
                           const char *word,
                           gsize       len)
{
  if ((gsize) (reader->end - reader->p) < len || memcmp (reader->p, word, len) != 0)
    {
      const char *p = reader->p;

      /* Point at the first byte that differs. */
      for (gsize i = 0; i < len && p < reader->end && *p == word[i]; i++)
        p++;
      return snodo_json_reader_unexpected (reader, p);
    }

  reader->p += len;
  return TRUE;
}

JsonNode *
snodo_json_parse (const char  *data,
                  gsize        len,
                  GError     **error)
{
  return snodo_json_parse_full (data, len, NULL, NULL, error);
}

/* Whether the member name read is @str, of @len bytes. */
static inline gboolean
snodo_json_name_is (const GString *name,
                    const char    *str,
                    gsize          len)
{
  return name->len == len && memcmp (name->str, str, len) == 0;
}

/* The slot of snodo_json_parse_top() for a member of the root object, or
 * -1 for a name it drops. */
static int
snodo_json_top_slot (const GString *name)
{
#define IS(lit) (name->len == sizeof (lit) - 1 && memcmp (name->str, lit, sizeof (lit) - 1) == 0)
  switch (name->len)
    {
    case 2:
      return IS ("id") ? SNODO_JSON_TOP_ID : -1;
    case 5:
      return IS ("error") ? SNODO_JSON_TOP_ERROR : -1;
    case 6:
      if (IS ("method"))
        return SNODO_JSON_TOP_METHOD;
      if (IS ("params"))
        return SNODO_JSON_TOP_PARAMS;
      return IS ("result") ? SNODO_JSON_TOP_RESULT : -1;
    case 7:
      return IS ("jsonrpc") ? SNODO_JSON_TOP_JSONRPC : -1;
    default:
      return -1;
    }
#undef IS
}

void
snodo_json_members_clear (SnodoJsonMembers *members)
{
  for (guint i = 0; i < members->n; i++)
    {
      if (members->owned & (1u << i))
        g_free ((char *) members->names[i]);
      json_node_unref (members->nodes[i]);
    }
  members->n = 0;
  members->owned = 0;
}

/* The methods of MCP, kept without a copy. */
static const char * const known_methods[] = {
  "tools/call", "tools/list", "ping", "initialize", "notifications/initialized",
  "notifications/cancelled", "notifications/progress", "resources/read", "resources/list",
  "resources/templates/list", "resources/subscribe", "resources/unsubscribe", "prompts/get",
  "prompts/list", "completion/complete", "logging/setLevel", "server/discover",
  "subscriptions/listen", "tasks/get", "tasks/result", "tasks/cancel", "tasks/list",
  "tasks/update", "notifications/roots/list_changed",
};

static const char *
snodo_json_known_method (const GString *value)
{
  for (guint i = 0; i < G_N_ELEMENTS (known_methods); i++)
    if (value->str[0] == known_methods[i][0] && strcmp (value->str, known_methods[i]) == 0)
      return known_methods[i];
  return NULL;
}

static void
read_top_forget_method (ReadTop *flat_top)
{
  if (flat_top->method != NULL)
    {
      *flat_top->method = NULL;
      g_clear_pointer (flat_top->method_copy, g_free);
    }
}

/* The names of params members that requests use most, kept without a
 * copy. */
static const char *
snodo_json_known_param (const GString *name)
{
#define IS(lit) (memcmp (name->str, lit, sizeof (lit) - 1) == 0 ? lit : NULL)
  switch (name->len)
    {
    case 3:
      return IS ("uri");
    case 4:
      return name->str[0] == 'n' ? IS ("name") : IS ("task");
    case 5:
      return name->str[0] == '_' ? IS ("_meta") : IS ("level");
    case 6:
      return IS ("cursor");
    case 8:
      return IS ("argument");
    case 9:
      return name->str[0] == 'a' ? IS ("arguments") : IS ("requestId");
    case 12:
      return name->str[0] == 'r' ? IS ("requestState") : IS ("capabilities");
    case 14:
      return IS ("inputResponses");
    case 15:
      return IS ("protocolVersion");
    default:
      return NULL;
    }
#undef IS
}

JsonNode *
snodo_json_members_lookup (const SnodoJsonMembers *members,
                           const char             *name)
{
  for (guint i = 0; i < members->n; i++)
    if (members->names[i][0] == name[0] && strcmp (members->names[i], name) == 0)
      return members->nodes[i];
  return NULL;
}

JsonNode *
snodo_json_members_build (const SnodoJsonMembers *members)
{
  JsonObject *object = json_object_new ();
  JsonNode *node = json_node_alloc ();

  json_node_init_object (node, object);
  json_object_unref (object);
  for (guint i = 0; i < members->n; i++)
    {
      json_node_set_parent (members->nodes[i], node);
      json_object_set_member (object, members->names[i], json_node_ref (members->nodes[i]));
    }
  return node;
}

/* Adds a member to the object at @top, whose members are kept apart;
 * with more than SNODO_JSON_MEMBERS_MAX it builds the object instead
 * (held by *@slot, and @top reads on into it). */
static void
snodo_json_read_add_member (ReadFrame     *top,
                            const GString *name,
                            JsonNode      *node,
                            JsonNode     **slot,
                            gboolean      *unbuilt)
{
  SnodoJsonMembers *members = top->flat_members;

  for (guint i = 0; i < members->n; i++)
    if (strcmp (members->names[i], name->str) == 0)
      {
        json_node_unref (members->nodes[i]);
        members->nodes[i] = node;
        return;
      }

  if (members->n < SNODO_JSON_MEMBERS_MAX)
    {
      const char *known = snodo_json_known_param (name);

      if (known != NULL)
        members->names[members->n] = known;
      else
        {
          members->names[members->n] = g_strndup (name->str, name->len);
          members->owned |= 1u << members->n;
        }
      members->nodes[members->n] = node;
      members->n++;
      return;
    }

  /* Too many to keep apart: built as any other object. */
  *slot = snodo_json_members_build (members);
  snodo_json_members_clear (members);
  *unbuilt = FALSE;
  top->flat_members = NULL;
  top->node = *slot;
  top->object = json_node_get_object (*slot);
  json_node_set_parent (node, top->node);
  json_object_set_member (top->object, name->str, node);
}

/* The reader proper. With @outer and @inner set, the member @inner of the
 * object that is the member @outer of the root object, when it is an
 * object, is read but not built (see snodo_json_parse_deferring()). With
 * @members set, a root object is not built (see snodo_json_parse_top()):
 * then it returns TRUE with *@out NULL. */
static gboolean
snodo_json_read_with (const char  *data,
                      gsize        len,
                      const char  *outer,
                      const char  *inner,
                      ReadTop     *flat_top,
                      JsonNode   **out,
                      gsize       *deferred_offset,
                      gsize       *deferred_len,
                      gboolean    *has_nul,
                      gsize       *size,
                      GString     *value,
                      GString     *name,
                      GError     **error)
{
  ReadFrame stack[SNODO_JSON_MAX_DEPTH];
  JsonNode **members = flat_top != NULL ? flat_top->members : NULL;
  /* The estimate of what the tree holds (see COST_NODE). */
  gsize built = 0;
  ReadState state = READ_VALUE;
  JsonNode *root = NULL;
  const char *invalid = NULL;
  guint depth = 0;
  /* While a deferred value is read: the depth it ends at; else 0 (it is
   * always inside two objects). */
  guint skip_depth = 0;
  gsize skip_start = 0;
  /* The value skipped is a member of a root object that is not built, of
   * a name that is dropped (not the deferred value). */
  gboolean skip_drops = FALSE;
  /* The deferred value being read has its members noted in
   * flat_top->spans; and the name of the member being read of it. */
  SnodoJsonSpans *spans = NULL;
  const char *span_name = NULL;
  gsize span_name_len = 0;
  const char *span_value = NULL;
  /* snodo_json_top_slot() of the member being read of a root object that
   * is not built. */
  int slot = -1;
  gsize outer_len = outer != NULL ? strlen (outer) : 0;
  gsize inner_len = inner != NULL ? strlen (inner) : 0;
  gboolean writable = flat_top != NULL && flat_top->writable;
  gboolean ok;
  Reader reader;

  *out = NULL;
  if (data == NULL)
    data = "";

  invalid = snodo_json_find_invalid_utf8 (data, len);
  if (invalid != NULL)
    {
      g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_PARSE_ERROR,
                   *invalid == '\0' ? _("NUL byte at byte %lu")
                                    : _("invalid UTF-8 at byte %lu"),
                   (gulong) (invalid - data));
      return FALSE;
    }

  reader.start = data;
  reader.p = data;
  reader.end = data + len;
  reader.value = value;
  reader.name = name;
  reader.error = error;
  reader.has_nul = FALSE;
  reader.writable = writable;
  reader.may_place = FALSE;
  reader.placed = NULL;

  for (;;)
    {
      JsonNode *node = NULL;
      ReadFrame *top = depth > 0 ? &stack[depth - 1] : NULL;
      gboolean container = FALSE;
      gboolean is_array = FALSE;
      gboolean defer = FALSE;
      gboolean flat = FALSE;
      SnodoJsonMembers *flat_members = NULL;

      switch (state)
        {
        case READ_VALUE:
          snodo_json_reader_skip_space (&reader);
          if (reader.p >= reader.end)
            {
              snodo_json_reader_unexpected (&reader, reader.p);
              goto fail;
            }
          if (spans != NULL && depth == skip_depth + 1)
            span_value = reader.p;

          /* A member of a root object not built, of a name not kept:
           * checked, not built. */
          if (top != NULL && top->flat && skip_depth == 0 && slot < 0)
            {
              skip_depth = depth;
              skip_drops = TRUE;
            }
          else if (top != NULL && top->flat && skip_depth == 0 && slot == SNODO_JSON_TOP_JSONRPC)
            {
              /* Only whether it is "2.0" is kept: anything but a string
               * is read and not built. */
              *flat_top->jsonrpc_ok = FALSE;
              if (*reader.p != '"')
                {
                  skip_depth = depth;
                  skip_drops = TRUE;
                }
            }

          switch (*reader.p)
            {
            case '{':
              container = TRUE;
              if (skip_depth > 0)
                break;
              if (top == NULL && members != NULL)
                {
                  flat = TRUE;
                  break;
                }
              if (top != NULL && top->flat && slot == SNODO_JSON_TOP_PARAMS && flat_top->params != NULL)
                {
                  /* Its members are kept apart; it replaces an earlier
                   * "params" (and what was deferred of it). */
                  g_clear_pointer (&members[SNODO_JSON_TOP_PARAMS], json_node_unref);
                  snodo_json_members_clear (flat_top->params);
                  *flat_top->params_unbuilt = TRUE;
                  if (outer != NULL)
                    *deferred_len = 0;
                  flat_members = flat_top->params;
                  built += COST_NODE + COST_OBJECT;
                  break;
                }
              if (top != NULL && top->defers && snodo_json_name_is (name, inner, inner_len))
                {
                  /* Held by a null node until the caller builds it. */
                  defer = TRUE;
                  node = json_node_init_null (json_node_alloc ());
                  built += COST_NODE;
                  break;
                }
              node = json_node_alloc ();
              json_node_take_object (json_node_init (node, JSON_NODE_OBJECT), json_object_new ());
              built += COST_OBJECT;
              break;
            case '[':
              container = TRUE;
              is_array = TRUE;
              if (skip_depth > 0)
                break;
              node = json_node_alloc ();
              json_node_take_array (json_node_init (node, JSON_NODE_ARRAY), json_array_new ());
              built += COST_ARRAY;
              break;
            case '"':
              reader.p++;
              /* Only a value built as a string node may stay in place. */
              reader.may_place = reader.writable && skip_depth == 0 &&
                                 !(top != NULL && top->flat &&
                                   (slot == SNODO_JSON_TOP_JSONRPC ||
                                    (slot == SNODO_JSON_TOP_METHOD && flat_top->method != NULL)));
              ok = snodo_json_reader_string (&reader, skip_depth == 0 ? value : NULL);
              reader.may_place = FALSE;
              if (!ok)
                goto fail;
              if (skip_depth == 0 && top != NULL && top->flat && slot == SNODO_JSON_TOP_JSONRPC)
                *flat_top->jsonrpc_ok = value->len == 3 && memcmp (value->str, "2.0", 3) == 0;
              else if (skip_depth == 0 && top != NULL && top->flat && slot == SNODO_JSON_TOP_METHOD &&
                       flat_top->method != NULL)
                {
                  /* It replaces an earlier "method" of any type. */
                  g_clear_pointer (&members[SNODO_JSON_TOP_METHOD], json_node_unref);
                  read_top_forget_method (flat_top);
                  *flat_top->method = snodo_json_known_method (value);
                  if (*flat_top->method == NULL)
                    {
                      /* U+0000 is 0xC0 0x80 here: the copy ends where
                       * a string node's would. */
                      *flat_top->method = *flat_top->method_copy = g_strdup (value->str);
                      built += snodo_json_block_cost (value->len);
                    }
                }
              else if (skip_depth == 0 && reader.placed != NULL)
                {
                  gsize placed_len;

                  node = snodo_json_reader_take_placed (&reader, &placed_len);
                  built += COST_VALUE_NODE + snodo_json_block_cost (placed_len);
                }
              else if (skip_depth == 0)
                {
                  node = json_node_init_string (json_node_alloc (), value->str);
                  built += COST_VALUE_NODE + snodo_json_block_cost (value->len);
                }
              break;
            case 't':
              if (!snodo_json_reader_literal (&reader, "true", 4))
                goto fail;
              if (skip_depth == 0)
                {
                  node = json_node_init_boolean (json_node_alloc (), TRUE);
                  built += COST_VALUE_NODE;
                }
              break;
            case 'f':
              if (!snodo_json_reader_literal (&reader, "false", 5))
                goto fail;
              if (skip_depth == 0)
                {
                  node = json_node_init_boolean (json_node_alloc (), FALSE);
                  built += COST_VALUE_NODE;
                }
              break;
            case 'n':
              if (!snodo_json_reader_literal (&reader, "null", 4))
                goto fail;
              if (skip_depth == 0)
                {
                  node = json_node_init_null (json_node_alloc ());
                  built += COST_NODE;
                }
              break;
            case '-':
            case '0': case '1': case '2': case '3': case '4':
            case '5': case '6': case '7': case '8': case '9':
              if (!snodo_json_reader_number (&reader, skip_depth == 0 ? &node : NULL))
                goto fail;
              if (node != NULL)
                built += COST_VALUE_NODE;
              break;
            default:
              snodo_json_reader_unexpected (&reader, reader.p);
              goto fail;
            }

          if (container && depth == SNODO_JSON_MAX_DEPTH)
            {
              g_autofree char *what = NULL;

              g_clear_pointer (&node, json_node_unref);
              what = g_strdup_printf (_("nesting deeper than %d levels"), SNODO_JSON_MAX_DEPTH);
              snodo_json_reader_fail (&reader, reader.p, what);
              goto fail;
            }

          /* Attach the node at once, so that the root owns everything. */
          if (node == NULL)
            ;
          else if (top == NULL)
            root = node;
          else if (top->flat)
            {
              /* A later "params" replaces a deferred value, and members
               * kept apart. */
              if (slot == SNODO_JSON_TOP_PARAMS)
                {
                  if (outer != NULL)
                    *deferred_len = 0;
                  if (flat_top->params != NULL)
                    {
                      snodo_json_members_clear (flat_top->params);
                      *flat_top->params_unbuilt = FALSE;
                    }
                }
              if (slot == SNODO_JSON_TOP_METHOD)
                read_top_forget_method (flat_top);
              g_clear_pointer (&members[slot], json_node_unref);
              members[slot] = node;
            }
          else if (top->flat_members != NULL)
            {
              /* A later member of the same name replaces a deferred
               * value. */
              if (top->defers && snodo_json_name_is (name, inner, inner_len))
                *deferred_len = 0;
              snodo_json_read_add_member (top, name, node, &members[SNODO_JSON_TOP_PARAMS],
                                          flat_top->params_unbuilt);
              built += COST_MEMBER + snodo_json_block_cost (name->len);
            }
          else
            {
              json_node_set_parent (node, top->node);
              if (top->array != NULL)
                {
                  json_array_add_element (top->array, node);
                  built += COST_ELEMENT;
                }
              else
                {
                  /* A later member of the same name replaces a deferred
                   * value, and so does a later outer object. */
                  if (outer != NULL &&
                      ((top->defers && snodo_json_name_is (name, inner, inner_len)) ||
                       (depth == 1 && snodo_json_name_is (name, outer, outer_len))))
                    *deferred_len = 0;
                  json_object_set_member (top->object, name->str, node);
                  built += COST_MEMBER + snodo_json_block_cost (name->len);
                }
            }

          if (!container)
            {
              state = READ_AFTER_VALUE;
              break;
            }

          if (defer)
            {
              const char *after = snodo_json_skim_object (reader.p, reader.end,
                                                          flat_top != NULL ? flat_top->spans : NULL);

              if (after != NULL)
                {
                  *deferred_offset = (gsize) (reader.p - data);
                  *deferred_len = (gsize) (after - reader.p);
                  reader.p = after;
                  state = READ_AFTER_VALUE;
                  break;
                }
              skip_depth = depth;
              skip_start = (gsize) (reader.p - data);
              node = NULL;
              spans = flat_top != NULL ? flat_top->spans : NULL;
              if (spans != NULL)
                {
                  spans->complete = TRUE;
                  spans->plain = FALSE;
                  spans->n = 0;
                }
            }

          top = &stack[depth++];
          top->node = node;
          top->array = NULL;
          top->object = NULL;
          top->is_array = is_array;
          /* The outer object: a member of the root object. */
          top->defers = outer != NULL && (node != NULL || flat_members != NULL) && !is_array && depth == 2 &&
                        (stack[0].object != NULL || stack[0].flat) &&
                        snodo_json_name_is (name, outer, outer_len);
          top->flat = flat;
          top->flat_members = flat_members;
          reader.p++;
          snodo_json_reader_skip_space (&reader);

          if (!is_array)
            {
              if (node != NULL)
                top->object = json_node_get_object (node);
              if (reader.p < reader.end && *reader.p == '}')
                {
                  reader.p++;
                  depth--;
                  state = READ_AFTER_VALUE;
                }
              else
                state = READ_MEMBER_NAME;
            }
          else
            {
              if (node != NULL)
                top->array = json_node_get_array (node);
              if (reader.p < reader.end && *reader.p == ']')
                {
                  reader.p++;
                  depth--;
                  state = READ_AFTER_VALUE;
                }
              else
                state = READ_VALUE;
            }
          break;

        case READ_MEMBER_NAME:
          /* White space before the name is already skipped. */
          if (reader.p >= reader.end || *reader.p != '"')
            {
              if (reader.p >= reader.end)
                snodo_json_reader_unexpected (&reader, reader.p);
              else
                snodo_json_reader_fail (&reader, reader.p, _("expected a member name"));
              goto fail;
            }
          if (spans != NULL && depth == skip_depth + 1)
            span_name = reader.p;
          reader.p++;
          if (!snodo_json_reader_string (&reader, skip_depth == 0 ? name : NULL))
            goto fail;
          if (spans != NULL && depth == skip_depth + 1)
            span_name_len = (gsize) (reader.p - span_name);
          if (top->flat)
            slot = snodo_json_top_slot (name);
          snodo_json_reader_skip_space (&reader);
          if (reader.p >= reader.end || *reader.p != ':')
            {
              if (reader.p >= reader.end)
                snodo_json_reader_unexpected (&reader, reader.p);
              else
                snodo_json_reader_fail (&reader, reader.p, _("expected ':'"));
              goto fail;
            }
          reader.p++;
          state = READ_VALUE;
          break;

        case READ_AFTER_VALUE:
          if (spans != NULL && depth == skip_depth + 1)
            {
              /* A member of the deferred value just ended. */
              const char *base = data + skip_start;

              if (spans->n < SNODO_JSON_SPANS_MAX && (gsize) (reader.p - base) <= G_MAXUINT32)
                {
                  SnodoJsonSpan *span = &spans->spans[spans->n++];

                  span->name = (guint32) (span_name - base);
                  span->name_len = (guint32) span_name_len;
                  span->value = (guint32) (span_value - base);
                  span->value_len = (guint32) (reader.p - span_value);
                }
              else
                spans->complete = FALSE;
            }
          if (skip_depth > 0 && depth == skip_depth)
            {
              /* The deferred (or dropped) value just ended. */
              if (!skip_drops)
                {
                  *deferred_offset = skip_start;
                  *deferred_len = (gsize) (reader.p - data) - skip_start;
                }
              skip_depth = 0;
              skip_drops = FALSE;
              spans = NULL;
            }

          snodo_json_reader_skip_space (&reader);

          if (top == NULL)
            {
              if (reader.p < reader.end)
                {
                  snodo_json_reader_fail (&reader, reader.p,
                                          _("unexpected data after the value"));
                  goto fail;
                }
              if (has_nul != NULL)
                *has_nul = reader.has_nul;
              if (size != NULL)
                *size = built;
              *out = root;
              return TRUE;
            }

          if (reader.p >= reader.end)
            {
              snodo_json_reader_unexpected (&reader, reader.p);
              goto fail;
            }

          if (*reader.p == ',')
            {
              reader.p++;
              snodo_json_reader_skip_space (&reader);
              state = top->is_array ? READ_VALUE : READ_MEMBER_NAME;
            }
          else if (*reader.p == (top->is_array ? ']' : '}'))
            {
              reader.p++;
              depth--;
            }
          else
            {
              snodo_json_reader_fail (&reader, reader.p,
                                      top->is_array ? _("expected ',' or ']'")
                                                    : _("expected ',' or '}'"));
              goto fail;
            }
          break;

        default:
          g_assert_not_reached ();
        }
    }

fail:
  g_clear_pointer (&root, json_node_unref);
  if (flat_top != NULL)
    read_top_forget_method (flat_top);
  if (members != NULL)
    for (int i = 0; i < SNODO_JSON_TOP_N_MEMBERS; i++)
      g_clear_pointer (&members[i], json_node_unref);
  if (flat_top != NULL && flat_top->params != NULL)
    {
      snodo_json_members_clear (flat_top->params);
      *flat_top->params_unbuilt = FALSE;
    }
  return FALSE;
}

/*
 * The reader's scratch buffers stay with the thread from one message to
 * the next (a message is read whole before the next), so that reading
 * does not allocate them, nor grow them again for every long string.
 * Buffers grown beyond SCRATCH_KEPT_BYTES by a message are given back.
 */

#define SCRATCH_KEPT_BYTES 65536

typedef struct
{
  GString  *value;
  GString  *name;
  gboolean  busy;
} ReadScratch;

static void
snodo_json_read_scratch_free (gpointer data)
{
  ReadScratch *scratch = data;

  g_string_free (scratch->value, TRUE);
  g_string_free (scratch->name, TRUE);
  g_free (scratch);
}

static GPrivate read_scratch = G_PRIVATE_INIT (snodo_json_read_scratch_free);

static GString *
snodo_json_read_scratch_trim (GString *buffer)
{
  if (buffer->allocated_len <= SCRATCH_KEPT_BYTES)
    return buffer;
  g_string_free (buffer, TRUE);
  return g_string_sized_new (64);
}

static gboolean
snodo_json_read (const char  *data,
                 gsize        len,
                 const char  *outer,
                 const char  *inner,
                 ReadTop     *flat_top,
                 JsonNode   **out,
                 gsize       *deferred_offset,
                 gsize       *deferred_len,
                 gboolean    *has_nul,
                 gsize       *size,
                 GError     **error)
{
  ReadScratch *scratch = g_private_get (&read_scratch);
  gboolean ok;

  if (scratch == NULL)
    {
      scratch = g_new0 (ReadScratch, 1);
      scratch->value = g_string_sized_new (64);
      scratch->name = g_string_sized_new (64);
      g_private_set (&read_scratch, scratch);
    }

  if (scratch->busy)
    {
      /* Not expected: the reader calls nothing that reads. */
      g_autoptr(GString) value = g_string_sized_new (64);
      g_autoptr(GString) name = g_string_sized_new (64);

      return snodo_json_read_with (data, len, outer, inner, flat_top, out, deferred_offset, deferred_len,
                                   has_nul, size, value, name, error);
    }

  scratch->busy = TRUE;
  ok = snodo_json_read_with (data, len, outer, inner, flat_top, out, deferred_offset, deferred_len,
                             has_nul, size, scratch->value, scratch->name, error);
  scratch->value = snodo_json_read_scratch_trim (scratch->value);
  scratch->name = snodo_json_read_scratch_trim (scratch->name);
  scratch->busy = FALSE;
  return ok;
}

/* Like snodo_json_parse(); *@has_nul tells whether a string held U+0000
 * (stored as 0xC0 0x80, see snodo-json-private.h), *@size what the tree
 * holds in memory. */
JsonNode *
snodo_json_parse_full (const char  *data,
                       gsize        len,
                       gboolean    *has_nul,
                       gsize       *size,
                       GError     **error)
{
  JsonNode *root;

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  snodo_json_read (data, len, NULL, NULL, NULL, &root, NULL, NULL, has_nul, size, error);
  return root;
}

JsonNode *
snodo_json_parse_deferring (const char  *data,
                            gsize        len,
                            const char  *outer,
                            const char  *inner,
                            gsize       *deferred_offset,
                            gsize       *deferred_len,
                            gboolean    *has_nul,
                            gsize       *size,
                            GError     **error)
{
  JsonNode *root;

  g_return_val_if_fail (data != NULL || len == 0, NULL);
  g_return_val_if_fail (outer != NULL && inner != NULL, NULL);
  g_return_val_if_fail (deferred_offset != NULL && deferred_len != NULL, NULL);

  *deferred_offset = 0;
  *deferred_len = 0;
  snodo_json_read (data, len, outer, inner, NULL, &root, deferred_offset, deferred_len, has_nul, size,
                   error);
  return root;
}

gboolean
snodo_json_parse_top (const char        *data,
                      gsize              len,
                      gboolean           writable,
                      const char        *inner,
                      JsonNode         **root,
                      JsonNode          *members[SNODO_JSON_TOP_N_MEMBERS],
                      gboolean          *jsonrpc_ok,
                      const char       **method,
                      char             **method_copy,
                      SnodoJsonMembers  *params,
                      gboolean          *params_unbuilt,
                      gsize             *deferred_offset,
                      gsize             *deferred_len,
                      SnodoJsonSpans    *deferred_spans,
                      gboolean          *has_nul,
                      gsize             *size,
                      GError           **error)
{
  ReadTop top = { members, jsonrpc_ok, params, params_unbuilt, deferred_spans, method, method_copy, writable };

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (root != NULL && members != NULL && jsonrpc_ok != NULL, FALSE);
  g_return_val_if_fail (params == NULL || params_unbuilt != NULL, FALSE);
  g_return_val_if_fail (deferred_offset != NULL && deferred_len != NULL, FALSE);
  g_return_val_if_fail ((method == NULL) == (method_copy == NULL), FALSE);

  memset (members, 0, SNODO_JSON_TOP_N_MEMBERS * sizeof (JsonNode *));
  if (method != NULL)
    {
      *method = NULL;
      *method_copy = NULL;
    }
  *jsonrpc_ok = FALSE;
  if (params != NULL)
    {
      params->n = 0;
      params->owned = 0;
      *params_unbuilt = FALSE;
    }
  *deferred_offset = 0;
  *deferred_len = 0;
  if (deferred_spans != NULL)
    {
      deferred_spans->complete = FALSE;
      deferred_spans->plain = FALSE;
      deferred_spans->n = 0;
    }
  return snodo_json_read (data, len, inner != NULL ? "params" : NULL, inner, &top, root,
                          deferred_offset, deferred_len, has_nul, size, error);
}

JsonNode *
snodo_json_node_take_object (JsonObject *object)
{
  JsonNode *node = json_node_new (JSON_NODE_OBJECT);

  json_node_take_object (node, object);
  return node;
}

gboolean
snodo_json_node_is_string (JsonNode *node)
{
  return node != NULL && JSON_NODE_HOLDS_VALUE (node) &&
         json_node_get_value_type (node) == G_TYPE_STRING;
}

gboolean
snodo_json_node_is_number (JsonNode *node)
{
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  return type == G_TYPE_INT64 || type == G_TYPE_DOUBLE;
}

const char *
snodo_json_object_get_string (JsonObject *object,
                              const char *name)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;

  return snodo_json_node_is_string (node) ? json_node_get_string (node) : NULL;
}
