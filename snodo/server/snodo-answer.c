/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-answer.h"
#include "snodo-answer-private.h"
#include "snodo-wire-private.h"

/**
 * SnodoAnswer:
 *
 * One JSON-RPC answer as Snodo wrote it (or is about to write it): the
 * line, and what answer hooks and middlewares most often want to know of
 * it, read from the line without building a JSON tree.
 *
 * [method@Snodo.Answer.get_line] is the answer as text,
 * [method@Snodo.Answer.is_error] and [method@Snodo.Answer.get_error_code]
 * read the top level of the line only, [method@Snodo.Answer.get_id] is
 * the request's id. A tree is built only when
 * [method@Snodo.Answer.get_tree] is called, once, and shared by whoever
 * asks for it again. An answer never changes; it may be kept (it is
 * reference-counted), and read from any thread.
 *
 * Given to [callback@Snodo.AnswerViewHookFunc] and
 * [callback@Snodo.MiddlewareDoneFunc]; [method@Snodo.Invocation.return_answer]
 * sends one.
 *
 * Since: 0.1
 */

/* A boxed type rather than a GObject: one is made for each answer that
 * hooks see, and a GObject's construction and disposal cost more than
 * the rest of what an answer hook costs. */
struct _SnodoAnswer
{
  gatomicrefcount ref_count;

  /* The line, "\n" included (owned, immutable). */
  GBytes         *line;
  /* The request's id (owned, sealed), or NULL until read from the line. */
  JsonNode       *id;
  /* The top level, read when made: SCAN_*, and the error's code. */
  int             kind;
  gint64          error_code;

  /* Made when first asked for, once (g_once_init_enter()): the line
   * without its newline, NUL-terminated; the parsed line, sealed. */
  char           *text;
  JsonNode       *tree;
};

enum
{
  SCAN_RESULT,
  SCAN_ERROR,
  SCAN_UNKNOWN,
};

G_DEFINE_BOXED_TYPE (SnodoAnswer, snodo_answer, snodo_answer_ref, snodo_answer_unref)

/* Past the string starting at @p (on its opening quote); NULL if it does
 * not end before @end. */
static const char *
skip_string (const char *p,
             const char *end)
{
  for (p++; p < end; p++)
    {
      if (*p == '\\')
        p++;
      else if (*p == '"')
        return p + 1;
    }
  return NULL;
}

static const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
    p++;
  return p;
}

/* Past the value starting at @p; NULL if it does not end before @end. */
static const char *
skip_value (const char *p,
            const char *end)
{
  int depth = 0;

  while (p < end)
    {
      switch (*p)
        {
        case '"':
          p = skip_string (p, end);
          if (p == NULL)
            return NULL;
          if (depth == 0)
            return p;
          continue;
        case '{':
        case '[':
          depth++;
          break;
        case '}':
        case ']':
          if (depth == 0)
            return p;
          if (--depth == 0)
            return p + 1;
          break;
        case ',':
          if (depth == 0)
            return p;
          break;
        default:
          break;
        }
      p++;
    }
  return NULL;
}

/* Calls @member for each member of the object at @p, until it returns
 * FALSE; FALSE if the object is not one. */
typedef gboolean (*MemberFunc) (const char *key,
                                gsize       key_len,
                                const char *value,
                                const char *end,
                                gpointer    data);

static gboolean
snodo_answer_scan_object (const char *p,
                          const char *end,
                          MemberFunc  member,
                          gpointer    data)
{
  p = skip_space (p, end);
  if (p >= end || *p != '{')
    return FALSE;
  p = skip_space (p + 1, end);
  while (p < end && *p == '"')
    {
      const char *key = p + 1;
      const char *key_end = skip_string (p, end);

      if (key_end == NULL)
        return FALSE;
      p = skip_space (key_end, end);
      if (p >= end || *p != ':')
        return FALSE;
      p = skip_space (p + 1, end);
      if (!member (key, key_end - 1 - key, p, end, data))
        return TRUE;
      p = skip_value (p, end);
      if (p == NULL)
        return FALSE;
      p = skip_space (p, end);
      if (p < end && *p == ',')
        p = skip_space (p + 1, end);
    }
  return TRUE;
}

#define KEY_IS(s) (key_len == sizeof (s) - 1 && memcmp (key, s, sizeof (s) - 1) == 0)

static gboolean
snodo_answer_code_member (const char *key,
                          gsize       key_len,
                          const char *value,
                          const char *end,
                          gpointer    data)
{
  if (!KEY_IS ("code"))
    return TRUE;
  if (value < end && (*value == '-' || g_ascii_isdigit (*value)))
    {
      char digits[24];
      gsize n = 0;

      while (value + n < end && n < sizeof digits - 1 && (value[n] == '-' || g_ascii_isdigit (value[n])))
        n++;
      memcpy (digits, value, n);
      digits[n] = '\0';
      *(gint64 *) data = g_ascii_strtoll (digits, NULL, 10);
    }
  return FALSE;
}

typedef struct
{
  int    kind;
  gint64 code;
} Scan;

static gboolean
snodo_answer_top_member (const char *key,
                         gsize       key_len,
                         const char *value,
                         const char *end,
                         gpointer    data)
{
  Scan *scan = data;

  if (KEY_IS ("result"))
    scan->kind = SCAN_RESULT;
  else if (KEY_IS ("error"))
    {
      scan->kind = SCAN_ERROR;
      snodo_answer_scan_object (value, end, snodo_answer_code_member, &scan->code);
    }
  else
    return TRUE;
  return FALSE;
}

#undef KEY_IS

/* How Snodo's encoders begin and go on (snodo-frame.c); other lines take
 * the long way. */
#define ENVELOPE "{\"jsonrpc\":\"2.0\",\"id\":"
#define RESULT ",\"result\":"
#define ERROR_CODE ",\"error\":{\"code\":"

static void
snodo_answer_scan (SnodoAnswer *self)
{
  gsize len;
  const char *data = g_bytes_get_data (self->line, &len);
  const char *end = data + len;
  const char *p = NULL;
  Scan scan = { SCAN_UNKNOWN, 0 };

  if (len > strlen (ENVELOPE) && memcmp (data, ENVELOPE, strlen (ENVELOPE)) == 0)
    p = skip_value (data + strlen (ENVELOPE), end);
  if (p != NULL && end - p > (gssize) strlen (RESULT) && memcmp (p, RESULT, strlen (RESULT)) == 0)
    scan.kind = SCAN_RESULT;
  else if (p != NULL && end - p > (gssize) strlen (ERROR_CODE) && memcmp (p, ERROR_CODE, strlen (ERROR_CODE)) == 0)
    {
      scan.kind = SCAN_ERROR;
      snodo_answer_code_member ("code", 4, p + strlen (ERROR_CODE), end, &scan.code);
    }
  else
    snodo_answer_scan_object (data, end, snodo_answer_top_member, &scan);
  self->kind = scan.kind;
  self->error_code = scan.code;
}

SnodoAnswer *
snodo_answer_new (GBytes   *line,
                  JsonNode *id)
{
  SnodoAnswer *self = g_new0 (SnodoAnswer, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->line = g_bytes_ref (line);
  if (id != NULL)
    {
      self->id = json_node_ref (id);
      json_node_seal (self->id);
    }
  snodo_answer_scan (self);
  return self;
}

/**
 * snodo_answer_ref:
 * @self: an answer
 *
 * Takes a reference.
 *
 * Returns: (transfer full): @self
 *
 * Since: 0.1
 */
SnodoAnswer *
snodo_answer_ref (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/**
 * snodo_answer_unref:
 * @self: (transfer full): an answer
 *
 * Drops a reference; the last frees the answer.
 *
 * Since: 0.1
 */
void
snodo_answer_unref (SnodoAnswer *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_bytes_unref (self->line);
  g_clear_pointer (&self->id, json_node_unref);
  g_free (self->text);
  g_clear_pointer (&self->tree, json_node_unref);
  g_free (self);
}

/**
 * snodo_answer_get_bytes:
 * @self: an answer
 *
 * The answer as Snodo writes it: one line of JSON, its newline included.
 *
 * Returns: (transfer none): the line
 *
 * Since: 0.1
 */
GBytes *
snodo_answer_get_bytes (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->line;
}

/**
 * snodo_answer_get_line:
 * @self: an answer
 *
 * The answer as text: the JSON-RPC message, without the newline that ends
 * it on the wire. Made from the line on the first call.
 *
 * Returns: (transfer none): the answer's JSON
 *
 * Since: 0.1
 */
const char *
snodo_answer_get_line (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (g_once_init_enter (&self->text))
    {
      gsize len;
      const char *data = g_bytes_get_data (self->line, &len);

      if (len > 0 && data[len - 1] == '\n')
        len--;
      g_once_init_leave (&self->text, g_strndup (data, len));
    }
  return self->text;
}

/**
 * snodo_answer_get_tree:
 * @self: an answer
 *
 * The answer parsed: an object with `jsonrpc`, `id` and `result` or
 * `error`. Built on the first call, then shared.
 *
 * Returns: (transfer none): the answer as a sealed tree
 *
 * Since: 0.1
 */
JsonNode *
snodo_answer_get_tree (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (g_once_init_enter (&self->tree))
    {
      g_autoptr(GError) error = NULL;
      gsize len;
      const char *data = g_bytes_get_data (self->line, &len);
      JsonNode *tree = snodo_json_parse (data, len, &error);

      if (tree == NULL)
        {
          /* Snodo wrote it: not expected. An empty object stands in. */
          g_critical ("An answer that cannot be read: %s", error->message);
          tree = json_node_init_object (json_node_alloc (), json_object_new ());
        }
      json_node_seal (tree);
      g_once_init_leave (&self->tree, tree);
    }
  return self->tree;
}

/**
 * snodo_answer_get_id:
 * @self: an answer
 *
 * The id of the request answered (null for an answer to a request whose
 * id could not be read).
 *
 * Returns: (transfer none): the id
 *
 * Since: 0.1
 */
JsonNode *
snodo_answer_get_id (SnodoAnswer *self)
{
  JsonObject *object;
  JsonNode *id;

  g_return_val_if_fail (self != NULL, NULL);

  if (self->id != NULL)
    return self->id;
  object = JSON_NODE_HOLDS_OBJECT (snodo_answer_get_tree (self)) ? json_node_get_object (self->tree) : NULL;
  id = object != NULL ? json_object_get_member (object, "id") : NULL;
  if (id == NULL)
    {
      static JsonNode *null_id;

      if (g_once_init_enter (&null_id))
        {
          JsonNode *node = json_node_init_null (json_node_alloc ());

          json_node_seal (node);
          g_once_init_leave (&null_id, node);
        }
      id = null_id;
    }
  return id;
}

/**
 * snodo_answer_is_error:
 * @self: an answer
 *
 * Whether the answer is a JSON-RPC error (it has `error`, not `result`). A
 * tool's failed result (`isError` in the result) is a result. Read from
 * the top level of the line, without parsing what the result holds.
 *
 * Returns: %TRUE for an error answer
 *
 * Since: 0.1
 */
gboolean
snodo_answer_is_error (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, FALSE);

  return self->kind == SCAN_ERROR;
}

/**
 * snodo_answer_get_error_code:
 * @self: an answer
 *
 * The code of an error answer, such as %SNODO_RPC_ERROR_INVALID_PARAMS.
 *
 * Returns: the error's code, or 0 for a result
 *
 * Since: 0.1
 */
gint64
snodo_answer_get_error_code (SnodoAnswer *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->kind == SCAN_ERROR ? self->error_code : 0;
}
