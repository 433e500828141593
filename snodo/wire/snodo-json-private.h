/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <string.h>

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/*
 * A strict JSON reader and a compact writer, used for every message on the
 * wire instead of json-glib's parser and generator, which in 1.6 accept
 * single quotes and comments, stop after the first value, wrap integers
 * silently, cut strings at U+0000 and write infinite numbers as `inf.0`.
 *
 * Reading (RFC 8259, strictly):
 *  - the input must be valid UTF-8 (no NUL byte); anything else is an error;
 *  - exactly one value, optionally surrounded by JSON white space
 *    (space, \t, \r, \n); anything after it is an error;
 *  - nesting deeper than SNODO_JSON_MAX_DEPTH arrays/objects is an error;
 *  - integers (no fraction, no exponent) that fit in gint64 become
 *    G_TYPE_INT64 values; every other number becomes a G_TYPE_DOUBLE value;
 *    a number that overflows to infinity is an error;
 *  - escapes: \" \\ \/ \b \f \n \r \t \uXXXX with surrogate pairs; a lone or
 *    mismatched surrogate is an error; raw control characters (< 0x20) in a
 *    string are an error;
 *  - U+0000 (written `\u0000`) is stored in the JsonNode string as the two
 *    bytes 0xC0 0x80 ("modified UTF-8"), because json-glib strings are NUL
 *    terminated; 0xC0 never occurs in valid UTF-8, so the writer maps it
 *    back to `\u0000` without ambiguity;
 *  - duplicate member names: the last one wins.
 * The input is @len bytes and need not be NUL-terminated. The reader keeps
 * no C recursion (an explicit stack of SNODO_JSON_MAX_DEPTH levels) and never
 * emits a critical for any input. Errors are SNODO_RPC_ERROR_PARSE_ERROR,
 * with a message naming the problem and its byte offset (counted from 0),
 * such as "unexpected character 'x' at byte 3".
 *
 * Writing: compact (no white space), members in insertion order, raw UTF-8
 * except `"`, `\` and control characters, which are escaped (\n, \r, \t, \b,
 * \f, else \u00XX); the bytes 0xC0 0x80 are written as `\u0000`; other
 * invalid UTF-8 in a string is written as U+FFFD, one per byte that does not
 * start a valid sequence; a non-finite double is written as `null`; doubles
 * use the shortest of 15, 16 or 17 significant digits that reads back the
 * same, and always look like a double JSON allows (1.0, -0.0, 1e+300, never
 * a bare 1); integers are written in full. The output never contains a raw
 * newline. The writer does not recurse either, so any tree can be written.
 */

#define SNODO_JSON_MAX_DEPTH 128

JsonNode *snodo_json_parse     (const char  *data,
                                gsize        len,
                                GError     **error);
/* *@has_nul (nullable) tells whether a string held U+0000; *@size
 * (nullable) is an estimate of the bytes the tree holds in memory (its
 * nodes, arrays, objects, members and strings, as json-glib allocates
 * them), counted as it is built: tens of times the length of the text for
 * an array of small numbers. */
JsonNode *snodo_json_parse_full (const char  *data,
                                 gsize        len,
                                 gboolean    *has_nul,
                                 gsize       *size,
                                 GError     **error);
/* Like snodo_json_parse_full(), except that the member @inner of the
 * object that is the member @outer of the root object, when it is an
 * object, is checked as thoroughly but not built: a null node holds its
 * place (where json-glib keeps the first of duplicate names), and its text
 * is the *@deferred_len bytes at *@deferred_offset of @data (0 bytes when
 * there is none, or when a later member of either name replaced it). */
JsonNode *snodo_json_parse_deferring (const char  *data,
                                      gsize        len,
                                      const char  *outer,
                                      const char  *inner,
                                      gsize       *deferred_offset,
                                      gsize       *deferred_len,
                                      gboolean    *has_nul,
                                      gsize       *size,
                                      GError     **error);
/* Where the members of a deferred object are in its text, as the reader
 * found them while it checked it (snodo_json_parse_top()): offsets from
 * the object's first byte, of each name with its quotes and of each value,
 * in the order of the text. When the object has more than
 * SNODO_JSON_SPANS_MAX members, complete is FALSE (n is then meaningless):
 * read the text instead (snodo_json_member_iter_init()). */
#define SNODO_JSON_SPANS_MAX 8

typedef struct
{
  guint32 name;
  guint32 name_len;
  guint32 value;
  guint32 value_len;
} SnodoJsonSpan;

typedef struct
{
  gboolean      complete;
  /* TRUE when the object holds no escape at all (no name needs
   * decoding); FALSE says nothing. */
  gboolean      plain;
  guint         n;
  SnodoJsonSpan spans[SNODO_JSON_SPANS_MAX];
} SnodoJsonSpans;

/* The quick way through a deferred object (snodo-json-text.c): @p is at
 * its opening brace. For the common text, returns just after the closing
 * brace with the members noted in @spans; NULL when the text is anything
 * else, which the reader then reads the thorough way. */
const char *snodo_json_skim_object (const char     *p,
                                    const char     *end,
                                    SnodoJsonSpans *spans);

/* The members of a root object that a JSON-RPC message is read for. */
typedef enum
{
  SNODO_JSON_TOP_JSONRPC,
  SNODO_JSON_TOP_ID,
  SNODO_JSON_TOP_METHOD,
  SNODO_JSON_TOP_PARAMS,
  SNODO_JSON_TOP_RESULT,
  SNODO_JSON_TOP_ERROR,
  SNODO_JSON_TOP_N_MEMBERS,
} SnodoJsonTopMember;

/* The members of an object that was read and not built: names (owned)
 * and values (references, parentless until built), in the order of the
 * text, the last value of duplicate names in the place of the first (as
 * json-glib keeps them). At most SNODO_JSON_MEMBERS_MAX: an object with
 * more is built. */
#define SNODO_JSON_MEMBERS_MAX 8

typedef struct
{
  guint       n;
  /* Bit i set: names[i] is allocated (else it is a static string, for
   * the names requests use most). */
  guint       owned;
  const char *names[SNODO_JSON_MEMBERS_MAX];
  JsonNode   *nodes[SNODO_JSON_MEMBERS_MAX];
} SnodoJsonMembers;

void      snodo_json_members_clear  (SnodoJsonMembers       *members);
JsonNode *snodo_json_members_lookup (const SnodoJsonMembers *members,
                                     const char             *name);
/* A new object node holding the members (each referenced, and given the
 * new node as its parent); @members keeps its references. */
JsonNode *snodo_json_members_build  (const SnodoJsonMembers *members);

/* Like snodo_json_parse_deferring() (with @outer "params"), except that a
 * root object is not built: its members of the names above are left in
 * @members (owned, parentless, NULL when absent; the last of duplicate
 * names wins, as in a built object), every other member is checked as
 * thoroughly and dropped. Returns FALSE with @error set when the text is
 * not JSON; else TRUE, with *@root NULL when the root is an object, else
 * the root (owned). The estimate *@size counts what is kept. */
/* The "jsonrpc" member is not built either: *@jsonrpc_ok says whether the
 * last one was the string "2.0" (members[JSONRPC] stays NULL).
 * With @params set, a "params" member that is an object with at most
 * SNODO_JSON_MEMBERS_MAX members is not built either: its members are left
 * in @params, *@params_unbuilt is TRUE and members[PARAMS] is NULL. */
/* With @method set, a "method" member that is a string is not built
 * either: *@method is its value, a static string for the methods of MCP,
 * else *@method_copy, a copy (owned); members[METHOD] is then NULL. Both
 * are NULL when the last "method" is not a string, or there is none. */
/* The shortest string that snodo_json_parse_top() builds from its text
 * when that is writable. */
#define SNODO_JSON_PLACED_MIN_BYTES 4096

/* With @writable, @data is the reader's to write over, and what it holds
 * afterwards is unspecified: a long string is then built from the text
 * itself (decoded over itself when it has escapes), not copied to a
 * scratch buffer first: one copy of it in memory beside the text, not
 * two. Nothing else may read @data meanwhile. */
gboolean  snodo_json_parse_top (const char        *data,
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
                                gsize       *deferred_offset,
                                gsize       *deferred_len,
                                SnodoJsonSpans *deferred_spans,
                                gboolean    *has_nul,
                                gsize       *size,
                                GError     **error);
/* g_string_append_len() without its call when the bytes fit (GLib 2.74
 * has no inline version): most appends of the writer are a few bytes. */
static inline void
snodo_json_string_append_len (GString    *out,
                              const char *data,
                              gsize       len)
{
  if (G_LIKELY (out->len + len < out->allocated_len))
    {
      memcpy (out->str + out->len, data, len);
      out->len += len;
      out->str[out->len] = '\0';
    }
  else
    g_string_append_len (out, data, len);
}

char     *snodo_json_to_string (JsonNode    *node,
                                gsize       *len);
GBytes   *snodo_json_to_line   (JsonNode    *node);
/* The same text, appended to @out; a string is written with its quotes. */
void      snodo_json_append_node   (GString    *out,
                                    JsonNode   *node);
void      snodo_json_append_string (GString    *out,
                                    const char *str);

/* A new object node that takes @object's reference. */
JsonNode *snodo_json_node_take_object (JsonObject *object);

/* Type checks that never warn: NULL, or a node of another kind, is FALSE. */
gboolean    snodo_json_node_is_string    (JsonNode   *node);
gboolean    snodo_json_node_is_number    (JsonNode   *node);
/* The string member @name of @object (which may be NULL), or NULL when it
 * is absent or not a string. */
const char *snodo_json_object_get_string (JsonObject *object,
                                          const char *name);

/*
 * Reading JSON text the reader accepted (such as a deferred value) without
 * building it. Nothing is checked again: text that the reader did not
 * accept gives unspecified (but memory-safe) results.
 *
 * The members of an object, in order, duplicates included: each name and
 * value as its JSON text (a name with its quotes, escapes not decoded).
 */
typedef struct
{
  const char *p;
  const char *end;
} SnodoJsonMemberIter;

void        snodo_json_member_iter_init  (SnodoJsonMemberIter  *iter,
                                          const char           *text,
                                          gsize                 len);
gboolean    snodo_json_member_iter_next  (SnodoJsonMemberIter  *iter,
                                          const char          **name,
                                          gsize                *name_len,
                                          const char          **value,
                                          gsize                *value_len);
/* A quick look at JSON text not read yet, of any content (a request body,
 * before it is decoded): a lower bound of the bytes the reader would build
 * of it (as snodo_json_parse_full()'s *size counts them), and the text of
 * the first member "id" of the root object (*@id, *@id_len; NULL when
 * there is none). One pass, no allocation. */
gsize       snodo_json_text_estimate     (const char           *text,
                                          gsize                 len,
                                          const char          **id,
                                          gsize                *id_len);
/* Whether the JSON text @text is a string; a string whose value is @str;
 * its value, newly allocated (NULL when it is not a string). */
gboolean    snodo_json_text_is_string    (const char           *text,
                                          gsize                 len);
gboolean    snodo_json_text_equal_string (const char           *text,
                                          gsize                 len,
                                          const char           *str);
char       *snodo_json_text_dup_string   (const char           *text,
                                          gsize                 len);

G_END_DECLS
