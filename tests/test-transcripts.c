/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * Transcript tests: each file under tests/data/transcripts is one test. A
 * fresh snodo-demo is spawned and the file's lines are played against it
 * through real pipes. The format is described in
 * tests/data/transcripts/README.md; in short:
 *
 *   > {json}     send this line (verbatim, unless it holds "$ref:")
 *   >> {json}    send this line in the same write as the line before
 *   < {json}     the next message must match
 *   <* {json}    consecutive <* lines: the next messages, in any order
 *   !eof         close standard input; what follows is written after it
 *   # comment    (and blank lines) ignored
 *   #! args: …   (first line only) options for snodo-demo
 *
 * At the end of every transcript the runner closes standard input (if
 * !eof did not), and expects the end of output and exit status 0: a
 * message nobody expected is a failure, wherever it comes.
 */

#include "config.h"

#include <string.h>

#include "snodo-test-peer.h"

/* Generous bounds: a loaded 2-core machine must pass. A bound is only
 * reached when a test fails. */
#define READ_TIMEOUT_MS 10000
#define EXIT_TIMEOUT_MS 10000

typedef enum
{
  STEP_SEND,
  STEP_EXPECT,
  STEP_EOF,
} StepKind;

typedef struct
{
  StepKind   kind;
  /* Line number in the file, from 1. */
  guint      line_no;
  /* STEP_SEND and STEP_EXPECT: the text after the marker. */
  char      *text;
  /* STEP_SEND: written in the same write as the step before (">>"). */
  gboolean   same_write;
  /* STEP_SEND: the text holds "$ref:" and is substituted before sending. */
  gboolean   substitute;
  /* STEP_EXPECT: the parsed expectation. */
  JsonNode  *expected;
  /* STEP_EXPECT: part of a block of "<*" lines. */
  gboolean   any_order;
} Step;

typedef struct
{
  char      *path;
  GStrv      args;
  /* The comment lines before the first step, joined: the test's summary. */
  GString   *summary;
  GPtrArray *steps;
} Transcript;

static void
step_free (Step *step)
{
  g_free (step->text);
  g_clear_pointer (&step->expected, json_node_unref);
  g_free (step);
}

static void
transcript_free (Transcript *transcript)
{
  g_free (transcript->path);
  g_strfreev (transcript->args);
  if (transcript->summary != NULL)
    g_string_free (transcript->summary, TRUE);
  g_clear_pointer (&transcript->steps, g_ptr_array_unref);
  g_free (transcript);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Transcript, transcript_free)

/* ---- Patterns ------------------------------------------------------------ */

static gboolean
is_pattern (const char *string,
            const char *prefix)
{
  return g_str_has_prefix (string, prefix);
}

/* Checks that every "$…" string in @node is a known pattern and that
 * "..." is only ever true. */
static gboolean
check_patterns (JsonNode    *node,
                gboolean     in_expectation,
                char       **why)
{
  switch (JSON_NODE_TYPE (node))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        json_object_iter_init (&iter, json_node_get_object (node));
        while (json_object_iter_next (&iter, &name, &member))
          {
            if (g_str_equal (name, "...") &&
                (!in_expectation || !JSON_NODE_HOLDS_VALUE (member) ||
                 json_node_get_value_type (member) != G_TYPE_BOOLEAN || !json_node_get_boolean (member)))
              {
                *why = g_strdup ("\"...\" must be true, and only in an expected message");
                return FALSE;
              }
            if (!check_patterns (member, in_expectation, why))
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *array = json_node_get_array (node);

        for (guint i = 0; i < json_array_get_length (array); i++)
          if (!check_patterns (json_array_get_element (array, i), in_expectation, why))
            return FALSE;
        return TRUE;
      }

    case JSON_NODE_VALUE:
      if (json_node_get_value_type (node) == G_TYPE_STRING)
        {
          const char *s = json_node_get_string (node);

          if (s[0] != '$' || s[1] == '$')
            return TRUE;
          if (in_expectation &&
              (g_str_equal (s, "$any") || g_str_equal (s, "$string") || g_str_equal (s, "$number") ||
               (is_pattern (s, "$capture:") && s[9] != '\0')))
            return TRUE;
          if (is_pattern (s, "$ref:") && s[5] != '\0')
            return TRUE;
          *why = g_strdup_printf ("unknown pattern \"%s\" (write \"$%s\" for a literal string)", s, s);
          return FALSE;
        }
      return TRUE;

    case JSON_NODE_NULL:
    default:
      return TRUE;
    }
}

/* ---- Loading ------------------------------------------------------------- */

static Transcript *
transcript_load (const char  *path,
                 char       **why)
{
  g_autoptr(Transcript) transcript = g_new0 (Transcript, 1);
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) lines = NULL;
  gboolean after_eof = FALSE;
  Step *previous = NULL;

  if (!g_file_get_contents (path, &contents, NULL, &error))
    {
      *why = g_strdup (error->message);
      return NULL;
    }

  transcript->path = g_strdup (path);
  transcript->summary = g_string_new (NULL);
  transcript->steps = g_ptr_array_new_with_free_func ((GDestroyNotify) step_free);
  lines = g_strsplit (contents, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];
      guint line_no = i + 1;
      Step *step;

      if (line[0] == '\0')
        continue;

      if (g_str_has_prefix (line, "#!"))
        {
          const char *rest = line + 2;

          while (*rest == ' ')
            rest++;
          if (line_no != 1 || !g_str_has_prefix (rest, "args:"))
            {
              *why = g_strdup_printf ("%d: only \"#! args: …\" is known, and only on the first line", line_no);
              return NULL;
            }
          if (!g_shell_parse_argv (rest + 5, NULL, &transcript->args, &error))
            {
              *why = g_strdup_printf ("%d: %s", line_no, error->message);
              return NULL;
            }
          continue;
        }
      if (line[0] == '#')
        {
          if (transcript->steps->len == 0)
            {
              g_autofree char *text = g_strstrip (g_strdup (line + 1));

              if (transcript->summary->len > 0)
                g_string_append_c (transcript->summary, ' ');
              g_string_append (transcript->summary, text);
            }
          continue;
        }

      step = g_new0 (Step, 1);
      step->line_no = line_no;

      if (g_str_equal (line, "!eof"))
        step->kind = STEP_EOF;
      else if (g_str_has_prefix (line, ">> ") || g_str_has_prefix (line, "> "))
        {
          step->kind = STEP_SEND;
          step->same_write = line[1] == '>';
          step->text = g_strdup (line + (step->same_write ? 3 : 2));
          step->substitute = strstr (step->text, "$ref:") != NULL;
          if (step->same_write && (previous == NULL || previous->kind != STEP_SEND))
            {
              *why = g_strdup_printf ("%d: \">>\" must follow a line that sends", line_no);
              step_free (step);
              return NULL;
            }
          if (step->substitute)
            {
              g_autoptr(JsonNode) node = json_from_string (step->text, &error);

              if (node == NULL)
                {
                  *why = g_strdup_printf ("%d: a line with \"$ref:\" must be JSON: %s", line_no,
                                          error ? error->message : "empty");
                  step_free (step);
                  return NULL;
                }
            }
        }
      else if (g_str_has_prefix (line, "<* ") || g_str_has_prefix (line, "< "))
        {
          g_autofree char *pattern_error = NULL;

          step->kind = STEP_EXPECT;
          step->any_order = line[1] == '*';
          step->text = g_strdup (line + (step->any_order ? 3 : 2));
          step->expected = json_from_string (step->text, &error);
          if (step->expected == NULL)
            {
              *why = g_strdup_printf ("%d: not JSON: %s", line_no, error ? error->message : "empty");
              step_free (step);
              return NULL;
            }
          if (!check_patterns (step->expected, TRUE, &pattern_error))
            {
              *why = g_strdup_printf ("%d: %s", line_no, pattern_error);
              step_free (step);
              return NULL;
            }
        }
      else
        {
          *why = g_strdup_printf ("%d: a line must start with \">\", \">>\", \"<\", \"<*\", \"#\" or be \"!eof\": %s",
                                  line_no, line);
          step_free (step);
          return NULL;
        }

      if (after_eof && step->kind != STEP_EXPECT)
        {
          *why = g_strdup_printf ("%d: after !eof only messages can be expected", line_no);
          step_free (step);
          return NULL;
        }
      if (step->kind == STEP_EOF)
        after_eof = TRUE;

      g_ptr_array_add (transcript->steps, step);
      previous = step;
    }

  return g_steal_pointer (&transcript);
}

/* ---- Matching ------------------------------------------------------------ */

static GHashTable *
captures_new (void)
{
  return g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) json_node_unref);
}

static GHashTable *
captures_copy (GHashTable *captures)
{
  GHashTable *copy = captures_new ();
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_iter_init (&iter, captures);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (copy, g_strdup (key), json_node_ref (value));
  return copy;
}

static const char *
node_kind (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  if (JSON_NODE_HOLDS_NULL (node))
    return "null";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING:
      return "a string";
    case G_TYPE_INT64:
      return "an integer";
    case G_TYPE_DOUBLE:
      return "a number with a fraction or exponent";
    case G_TYPE_BOOLEAN:
      return "a boolean";
    default:
      return "a value";
    }
}

static char *
node_text (JsonNode *node)
{
  g_autofree char *text = json_to_string (node, FALSE);

  if (strlen (text) > 300)
    return g_strdup_printf ("%.300s… (%zu characters)", text, strlen (text));
  return g_steal_pointer (&text);
}

static const char *
path_or_top (GString *path)
{
  return path->len > 0 ? path->str : "(the message)";
}

/*
 * Whether @actual matches @expected. With @literal, strings are compared
 * as they are (a captured value against the actual one). On a mismatch,
 * *why says where and how. Captures are recorded in @captures.
 */
static gboolean
match_node (JsonNode    *expected,
            JsonNode    *actual,
            gboolean     literal,
            GHashTable  *captures,
            GString     *path,
            char       **why)
{
  if (!literal && JSON_NODE_HOLDS_VALUE (expected) && json_node_get_value_type (expected) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (expected);

      if (g_str_equal (s, "$any"))
        return TRUE;
      if (g_str_equal (s, "$string"))
        {
          if (JSON_NODE_HOLDS_VALUE (actual) && json_node_get_value_type (actual) == G_TYPE_STRING)
            return TRUE;
          *why = g_strdup_printf ("at %s: expected a string, got %s", path_or_top (path), node_kind (actual));
          return FALSE;
        }
      if (g_str_equal (s, "$number"))
        {
          if (JSON_NODE_HOLDS_VALUE (actual) &&
              (json_node_get_value_type (actual) == G_TYPE_INT64 || json_node_get_value_type (actual) == G_TYPE_DOUBLE))
            return TRUE;
          *why = g_strdup_printf ("at %s: expected a number, got %s", path_or_top (path), node_kind (actual));
          return FALSE;
        }
      if (is_pattern (s, "$capture:"))
        {
          g_hash_table_replace (captures, g_strdup (s + 9), json_node_copy (actual));
          return TRUE;
        }
      if (is_pattern (s, "$ref:"))
        {
          JsonNode *captured = g_hash_table_lookup (captures, s + 5);
          g_autofree char *inner = NULL;

          if (captured == NULL)
            {
              *why = g_strdup_printf ("at %s: nothing was captured as \"%s\"", path_or_top (path), s + 5);
              return FALSE;
            }
          if (!match_node (captured, actual, TRUE, captures, path, &inner))
            {
              g_autofree char *want = node_text (captured);

              *why = g_strdup_printf ("%s (expected the value captured as \"%s\": %s)", inner, s + 5, want);
              return FALSE;
            }
          return TRUE;
        }
      if (s[0] == '$' && s[1] == '$')
        {
          if (JSON_NODE_HOLDS_VALUE (actual) && json_node_get_value_type (actual) == G_TYPE_STRING &&
              g_str_equal (json_node_get_string (actual), s + 1))
            return TRUE;
          *why = g_strdup_printf ("at %s: expected the string \"%s\"", path_or_top (path), s + 1);
          return FALSE;
        }
    }

  if (JSON_NODE_TYPE (expected) != JSON_NODE_TYPE (actual) ||
      (JSON_NODE_HOLDS_VALUE (expected) &&
       json_node_get_value_type (expected) != json_node_get_value_type (actual)))
    {
      *why = g_strdup_printf ("at %s: expected %s, got %s", path_or_top (path),
                              node_kind (expected), node_kind (actual));
      return FALSE;
    }

  switch (JSON_NODE_TYPE (expected))
    {
    case JSON_NODE_OBJECT:
      {
        JsonObject *want = json_node_get_object (expected);
        JsonObject *got = json_node_get_object (actual);
        gboolean open = !literal && json_object_has_member (want, "...");
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;
        gsize len = path->len;

        json_object_iter_init_ordered (&iter, want);
        while (json_object_iter_next_ordered (&iter, &name, &member))
          {
            JsonNode *other;
            gboolean ok;

            if (!literal && g_str_equal (name, "..."))
              continue;
            other = json_object_get_member (got, name);
            if (other == NULL)
              {
                *why = g_strdup_printf ("at %s: the member \"%s\" is missing", path_or_top (path), name);
                return FALSE;
              }
            g_string_append_printf (path, "%s%s", len > 0 ? "." : "", name);
            ok = match_node (member, other, literal, captures, path, why);
            g_string_truncate (path, len);
            if (!ok)
              return FALSE;
          }

        if (!open)
          {
            json_object_iter_init_ordered (&iter, got);
            while (json_object_iter_next_ordered (&iter, &name, &member))
              if (!json_object_has_member (want, name))
                {
                  g_autofree char *value = node_text (member);

                  *why = g_strdup_printf ("at %s: unexpected member \"%s\": %s", path_or_top (path), name, value);
                  return FALSE;
                }
          }
        return TRUE;
      }

    case JSON_NODE_ARRAY:
      {
        JsonArray *want = json_node_get_array (expected);
        JsonArray *got = json_node_get_array (actual);
        gsize len = path->len;

        if (json_array_get_length (want) != json_array_get_length (got))
          {
            *why = g_strdup_printf ("at %s: expected %u elements, got %u", path_or_top (path),
                                    json_array_get_length (want), json_array_get_length (got));
            return FALSE;
          }
        for (guint i = 0; i < json_array_get_length (want); i++)
          {
            gboolean ok;

            g_string_append_printf (path, "[%u]", i);
            ok = match_node (json_array_get_element (want, i), json_array_get_element (got, i),
                             literal, captures, path, why);
            g_string_truncate (path, len);
            if (!ok)
              return FALSE;
          }
        return TRUE;
      }

    case JSON_NODE_NULL:
      return TRUE;

    case JSON_NODE_VALUE:
    default:
      {
        gboolean equal;

        switch (json_node_get_value_type (expected))
          {
          case G_TYPE_STRING:
            equal = g_str_equal (json_node_get_string (expected), json_node_get_string (actual));
            break;
          case G_TYPE_INT64:
            equal = json_node_get_int (expected) == json_node_get_int (actual);
            break;
          case G_TYPE_DOUBLE:
            equal = json_node_get_double (expected) == json_node_get_double (actual);
            break;
          case G_TYPE_BOOLEAN:
            equal = json_node_get_boolean (expected) == json_node_get_boolean (actual);
            break;
          default:
            equal = FALSE;
            break;
          }
        if (!equal)
          {
            g_autofree char *want = node_text (expected);
            g_autofree char *got = node_text (actual);

            *why = g_strdup_printf ("at %s: expected %s, got %s", path_or_top (path), want, got);
          }
        return equal;
      }
    }
}

/* json-glib keeps the last of two members of the same name; the raw line
 * shows both. Returns the first name that appears twice in one object of
 * @line (which is valid JSON), or NULL. */
static char *
find_duplicate_member (const char *line)
{
  g_autoptr(GPtrArray) stack = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_autoptr(GHashTable) none = g_hash_table_new (g_str_hash, g_str_equal);
  gboolean expect_name = FALSE;

  for (const char *p = line; *p != '\0'; p++)
    {
      switch (*p)
        {
        case '{':
          g_ptr_array_add (stack, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
          expect_name = TRUE;
          break;
        case '[':
          g_ptr_array_add (stack, g_hash_table_ref (none));
          expect_name = FALSE;
          break;
        case '}':
        case ']':
          if (stack->len > 0)
            g_ptr_array_remove_index (stack, stack->len - 1);
          expect_name = FALSE;
          break;
        case ',':
          expect_name = stack->len > 0 && g_ptr_array_index (stack, stack->len - 1) != none;
          break;
        case '"':
          {
            const char *q = p + 1;

            while (*q != '\0' && *q != '"')
              {
                if (*q == '\\' && q[1] != '\0')
                  q++;
                q++;
              }
            if (expect_name)
              {
                GHashTable *names = g_ptr_array_index (stack, stack->len - 1);
                char *name = g_strndup (p + 1, q - p - 1);

                if (g_hash_table_contains (names, name))
                  return name;
                g_hash_table_add (names, name);
                expect_name = FALSE;
              }
            p = *q != '\0' ? q : q - 1;
          }
          break;
        default:
          break;
        }
    }
  return NULL;
}

/* ---- Running ------------------------------------------------------------- */

typedef struct
{
  Transcript  *transcript;
  TestProcess *process;
  GHashTable  *captures;
  GString     *pending;
  gboolean     stdin_closed;
} Run;

/* Reads one message. On failure, fails the test and returns NULL. */
static JsonNode *
run_read (Run        *run,
          const Step *step,
          char      **raw)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *line = NULL;
  g_autofree char *duplicate = NULL;
  gboolean timed_out = FALSE;
  JsonNode *node;

  line = test_process_read_line (run->process, READ_TIMEOUT_MS, &timed_out);
  if (line == NULL)
    {
      g_test_fail_printf ("%s:%u: expected a message, got %s\n  expected: %s",
                          run->transcript->path, step->line_no,
                          timed_out ? "nothing within " G_STRINGIFY (READ_TIMEOUT_MS) " ms" : "the end of output",
                          step->text);
      return NULL;
    }
  node = json_from_string (line, &error);
  if (node == NULL)
    {
      g_test_fail_printf ("%s:%u: the server wrote a line that is not JSON (%s)\n  actual: %s",
                          run->transcript->path, step->line_no, error ? error->message : "empty", line);
      return NULL;
    }
  duplicate = find_duplicate_member (test_process_get_last_line (run->process));
  if (duplicate != NULL)
    {
      g_test_fail_printf ("%s:%u: the server wrote a member twice in one object: \"%s\"\n  actual: %s",
                          run->transcript->path, step->line_no, duplicate, line);
      json_node_unref (node);
      return NULL;
    }
  *raw = g_steal_pointer (&line);
  return node;
}

static void
run_flush (Run *run)
{
  if (run->pending->len == 0)
    return;
  test_process_send_bytes (run->process, run->pending->str, run->pending->len);
  g_string_truncate (run->pending, 0);
}

/* Replaces "$ref:NAME" strings by the captured values, and "$$…" by "$…". */
static gboolean
substitute (JsonNode    *node,
            GHashTable  *captures,
            char       **why)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) names = json_object_get_members (object);

      for (GList *l = names; l != NULL; l = l->next)
        {
          /* Replacing a member frees the name the list points to. */
          g_autofree char *name = g_strdup (l->data);
          JsonNode *member = json_object_get_member (object, name);

          if (JSON_NODE_HOLDS_VALUE (member) && json_node_get_value_type (member) == G_TYPE_STRING &&
              json_node_get_string (member)[0] == '$')
            {
              const char *s = json_node_get_string (member);

              if (is_pattern (s, "$ref:"))
                {
                  JsonNode *captured = g_hash_table_lookup (captures, s + 5);

                  if (captured == NULL)
                    {
                      *why = g_strdup_printf ("nothing was captured as \"%s\"", s + 5);
                      return FALSE;
                    }
                  json_object_set_member (object, name, json_node_copy (captured));
                }
              else if (s[1] == '$')
                {
                  g_autofree char *literal = g_strdup (s + 1);

                  json_object_set_string_member (object, name, literal);
                }
            }
          else if (!substitute (member, captures, why))
            return FALSE;
        }
    }
  else if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          JsonNode *element = json_array_get_element (array, i);

          if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING &&
              json_node_get_string (element)[0] == '$')
            {
              const char *s = json_node_get_string (element);
              JsonNode *captured = is_pattern (s, "$ref:") ? g_hash_table_lookup (captures, s + 5) : NULL;

              if (is_pattern (s, "$ref:") && captured == NULL)
                {
                  *why = g_strdup_printf ("nothing was captured as \"%s\"", s + 5);
                  return FALSE;
                }
              if (captured != NULL)
                {
                  /* json-glib has no setter for an element: rebuild. */
                  g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

                  for (guint j = 0; j < json_array_get_length (array); j++)
                    json_array_add_element (copy, json_node_copy (j == i ? captured : json_array_get_element (array, j)));
                  json_node_set_array (node, copy);
                  array = json_node_get_array (node);
                }
              else if (s[1] == '$')
                {
                  g_autoptr(JsonArray) copy = json_array_sized_new (json_array_get_length (array));

                  for (guint j = 0; j < json_array_get_length (array); j++)
                    {
                      if (j == i)
                        json_array_add_string_element (copy, s + 1);
                      else
                        json_array_add_element (copy, json_node_copy (json_array_get_element (array, j)));
                    }
                  json_node_set_array (node, copy);
                  array = json_node_get_array (node);
                }
            }
          else if (!substitute (element, captures, why))
            return FALSE;
        }
    }
  return TRUE;
}

static gboolean
run_send (Run        *run,
          const Step *step)
{
  if (!step->same_write)
    run_flush (run);

  if (step->substitute)
    {
      g_autoptr(JsonNode) node = json_from_string (step->text, NULL);
      g_autofree char *why = NULL;
      g_autofree char *text = NULL;

      if (!substitute (node, run->captures, &why))
        {
          g_test_fail_printf ("%s:%u: %s\n  line: %s", run->transcript->path, step->line_no, why, step->text);
          return FALSE;
        }
      text = json_to_string (node, FALSE);
      g_string_append (run->pending, text);
    }
  else
    g_string_append (run->pending, step->text);
  g_string_append_c (run->pending, '\n');
  return TRUE;
}

static gboolean
run_expect (Run        *run,
            const Step *step)
{
  g_autoptr(JsonNode) actual = NULL;
  g_autoptr(GString) path = g_string_new (NULL);
  g_autofree char *raw = NULL;
  g_autofree char *why = NULL;

  actual = run_read (run, step, &raw);
  if (actual == NULL)
    return FALSE;
  if (!match_node (step->expected, actual, FALSE, run->captures, path, &why))
    {
      g_test_fail_printf ("%s:%u: the message does not match %s\n  expected: %s\n  actual:   %s",
                          run->transcript->path, step->line_no, why, step->text, raw);
      return FALSE;
    }
  return TRUE;
}

/* Finds an assignment of @n actual messages to the @n expectations of a
 * "<*" block, trying every order (blocks are small). */
static gboolean
assign (Step      **block,
        JsonNode  **actual,
        guint       n,
        guint       i,
        gboolean   *used,
        GHashTable *captures,
        GHashTable **result)
{
  if (i == n)
    {
      *result = captures_copy (captures);
      return TRUE;
    }
  for (guint j = 0; j < n; j++)
    {
      g_autoptr(GHashTable) attempt = NULL;
      g_autoptr(GString) path = g_string_new (NULL);
      g_autofree char *why = NULL;

      if (used[j])
        continue;
      attempt = captures_copy (captures);
      if (!match_node (block[i]->expected, actual[j], FALSE, attempt, path, &why))
        continue;
      used[j] = TRUE;
      if (assign (block, actual, n, i + 1, used, attempt, result))
        return TRUE;
      used[j] = FALSE;
    }
  return FALSE;
}

static gboolean
run_expect_any_order (Run    *run,
                      Step  **block,
                      guint   n)
{
  g_autofree JsonNode **actual = g_new0 (JsonNode *, n);
  g_autofree gboolean *used = g_new0 (gboolean, n);
  g_autoptr(GPtrArray) raws = g_ptr_array_new_with_free_func (g_free);
  GHashTable *result = NULL;
  gboolean ok = TRUE;

  for (guint i = 0; i < n && ok; i++)
    {
      char *raw = NULL;

      actual[i] = run_read (run, block[i], &raw);
      if (actual[i] == NULL)
        ok = FALSE;
      else
        g_ptr_array_add (raws, raw);
    }

  if (ok && assign (block, actual, n, 0, used, run->captures, &result))
    {
      g_hash_table_unref (run->captures);
      run->captures = result;
    }
  else if (ok)
    {
      g_autoptr(GString) report = g_string_new (NULL);

      g_string_append_printf (report, "%s:%u-%u: the %u messages read match the %u lines of the <* block in no order",
                              run->transcript->path, block[0]->line_no, block[n - 1]->line_no, n, n);
      for (guint i = 0; i < n; i++)
        g_string_append_printf (report, "\n  expected (line %u): %s", block[i]->line_no, block[i]->text);
      for (guint j = 0; j < n; j++)
        {
          g_string_append_printf (report, "\n  actual:   %s", (char *) g_ptr_array_index (raws, j));
          for (guint i = 0; i < n; i++)
            {
              g_autoptr(GHashTable) attempt = captures_copy (run->captures);
              g_autoptr(GString) path = g_string_new (NULL);
              g_autofree char *why = NULL;

              if (match_node (block[i]->expected, actual[j], FALSE, attempt, path, &why))
                g_string_append_printf (report, "\n    matches line %u", block[i]->line_no);
              else
                g_string_append_printf (report, "\n    against line %u: %s", block[i]->line_no, why);
            }
        }
      g_test_fail_printf ("%s", report->str);
      ok = FALSE;
    }

  for (guint i = 0; i < n; i++)
    g_clear_pointer (&actual[i], json_node_unref);
  return ok;
}

static void
run_close_stdin (Run *run)
{
  run_flush (run);
  if (!run->stdin_closed)
    test_process_close_stdin (run->process);
  run->stdin_closed = TRUE;
}

/* The end of the transcript: nothing more on standard output, and exit 0. */
static void
run_finish (Run *run)
{
  g_autofree char *line = NULL;
  gboolean timed_out = FALSE;
  int status;

  run_close_stdin (run);
  line = test_process_read_line (run->process, READ_TIMEOUT_MS, &timed_out);
  if (line != NULL)
    {
      g_test_fail_printf ("%s: end of transcript: expected the end of output, got a message\n  actual: %s",
                          run->transcript->path, line);
      return;
    }
  if (timed_out)
    {
      g_test_fail_printf ("%s: end of transcript: standard output still open "
                          G_STRINGIFY (READ_TIMEOUT_MS) " ms after the end of input",
                          run->transcript->path);
      return;
    }
  status = test_process_wait (run->process, EXIT_TIMEOUT_MS);
  if (status < 0)
    g_test_fail_printf ("%s: end of transcript: snodo-demo did not exit within "
                        G_STRINGIFY (EXIT_TIMEOUT_MS) " ms after the end of its output",
                        run->transcript->path);
  else if (status != 0)
    g_test_fail_printf ("%s: end of transcript: snodo-demo exited with status %d, expected 0",
                        run->transcript->path, status);
}

static void
test_transcript (gconstpointer data)
{
  const char *path = data;
  g_autoptr(Transcript) transcript = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autofree char *why = NULL;
  const char *demo = g_getenv ("SNODO_DEMO");
  Run run = { 0, };
  gboolean ok = TRUE;

  transcript = transcript_load (path, &why);
  if (transcript == NULL)
    {
      g_test_fail_printf ("%s:%s", path, why);
      return;
    }
  if (transcript->summary->len > 0)
    g_test_summary (transcript->summary->str);

  g_assert_nonnull (demo);
  g_ptr_array_add (argv, (gpointer) demo);
  for (guint i = 0; transcript->args != NULL && transcript->args[i] != NULL; i++)
    g_ptr_array_add (argv, transcript->args[i]);
  g_ptr_array_add (argv, NULL);

  run.transcript = transcript;
  run.process = test_process_spawn ((const char * const *) argv->pdata);
  run.captures = captures_new ();
  run.pending = g_string_new (NULL);

  for (guint i = 0; ok && i < transcript->steps->len; i++)
    {
      Step *step = g_ptr_array_index (transcript->steps, i);

      switch (step->kind)
        {
        case STEP_SEND:
          ok = run_send (&run, step);
          break;

        case STEP_EXPECT:
          run_flush (&run);
          if (step->any_order)
            {
              guint n = 0;

              while (i + n < transcript->steps->len &&
                     ((Step *) g_ptr_array_index (transcript->steps, i + n))->kind == STEP_EXPECT &&
                     ((Step *) g_ptr_array_index (transcript->steps, i + n))->any_order)
                n++;
              ok = run_expect_any_order (&run, (Step **) transcript->steps->pdata + i, n);
              i += n - 1;
            }
          else
            ok = run_expect (&run, step);
          break;

        case STEP_EOF:
          run_close_stdin (&run);
          break;

        default:
          g_assert_not_reached ();
        }
    }

  if (ok)
    run_finish (&run);

  test_process_free (run.process);
  g_hash_table_unref (run.captures);
  g_string_free (run.pending, TRUE);
}

static void
list_transcripts (const char *root,
                  const char *relative,
                  GPtrArray  *found)
{
  g_autofree char *dir_path = g_build_filename (root, relative, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, &error);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = relative[0] != '\0' ? g_build_filename (relative, name, NULL) : g_strdup (name);
      g_autofree char *full = g_build_filename (root, child, NULL);

      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        list_transcripts (root, child, found);
      else if (g_str_has_suffix (name, ".jsonl"))
        g_ptr_array_add (found, g_steal_pointer (&child));
    }
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return g_strcmp0 (*(const char * const *) a, *(const char * const *) b);
}

typedef struct
{
  const char *expected;
  const char *actual;
  gboolean    matches;
} MatchCase;

static void
test_matcher (void)
{
  static const MatchCase cases[] = {
    { "{\"a\":1}", "{\"a\":1}", TRUE },
    { "{\"a\":1}", "{\"a\":2}", FALSE },
    { "{\"a\":1}", "{\"a\":1.0}", FALSE },
    { "{\"a\":1.5}", "{\"a\":1.5}", TRUE },
    { "{\"a\":1}", "{\"a\":\"1\"}", FALSE },
    { "{\"a\":1}", "{\"a\":1,\"b\":2}", FALSE },
    { "{\"a\":1,\"...\":true}", "{\"a\":1,\"b\":2}", TRUE },
    { "{\"a\":1,\"b\":2}", "{\"a\":1}", FALSE },
    { "{\"a\":{\"b\":[1,2]}}", "{\"a\":{\"b\":[1,2]}}", TRUE },
    { "{\"a\":{\"b\":[1,2]}}", "{\"a\":{\"b\":[1,2,3]}}", FALSE },
    { "{\"a\":{\"b\":[1,2]}}", "{\"a\":{\"b\":[2,1]}}", FALSE },
    { "{\"a\":{\"...\":true}}", "{\"a\":{\"x\":null}}", TRUE },
    { "{\"a\":{\"...\":true}}", "{\"a\":[]}", FALSE },
    { "{\"a\":\"$any\"}", "{\"a\":null}", TRUE },
    { "{\"a\":\"$any\"}", "{}", FALSE },
    { "{\"a\":\"$string\"}", "{\"a\":\"\"}", TRUE },
    { "{\"a\":\"$string\"}", "{\"a\":1}", FALSE },
    { "{\"a\":\"$number\"}", "{\"a\":-1.5e3}", TRUE },
    { "{\"a\":\"$number\"}", "{\"a\":\"1\"}", FALSE },
    { "{\"a\":\"$$x\"}", "{\"a\":\"$x\"}", TRUE },
    { "{\"a\":\"$$x\"}", "{\"a\":\"$$x\"}", FALSE },
    { "{\"a\":null}", "{\"a\":false}", FALSE },
    { "{\"a\":true}", "{\"a\":true}", TRUE },
    { "[{\"a\":\"$capture:c\"},{\"b\":\"$ref:c\"}]", "[{\"a\":7},{\"b\":7}]", TRUE },
    { "[{\"a\":\"$capture:c\"},{\"b\":\"$ref:c\"}]", "[{\"a\":7},{\"b\":\"7\"}]", FALSE },
    { "[{\"a\":\"$capture:c\"},{\"b\":\"$ref:c\"}]", "[{\"a\":{\"x\":[1]}},{\"b\":{\"x\":[1]}}]", TRUE },
    { "[{\"a\":\"$capture:c\"},{\"b\":\"$ref:c\"}]", "[{\"a\":{\"x\":[1]}},{\"b\":{\"x\":[1],\"y\":2}}]", FALSE },
    /* A captured "$any" is a value like any other. */
    { "[\"$capture:c\",\"$ref:c\"]", "[\"$any\",\"$any\"]", TRUE },
    { "[\"$capture:c\",\"$ref:c\"]", "[\"$any\",1]", FALSE },
    { "\"$ref:nothing\"", "1", FALSE },
  };
  static const struct { const char *line; const char *duplicate; } lines[] = {
    { "{\"a\":1,\"b\":{\"a\":2}}", NULL },
    { "{\"a\":1,\"a\":2}", "a" },
    { "{\"x\":[{\"a\":1},{\"a\":1}],\"y\":{\"b\":\"a,\\\"a\\\":\",\"b\":0}}", "b" },
    { "[\"a\",\"a\",{\"a\":[\"a\"]}]", NULL },
  };

  g_test_summary ("The transcript matcher fails on every kind of difference it claims to see");

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(JsonNode) expected = json_from_string (cases[i].expected, NULL);
      g_autoptr(JsonNode) actual = json_from_string (cases[i].actual, NULL);
      g_autoptr(GHashTable) captures = captures_new ();
      g_autoptr(GString) path = g_string_new (NULL);
      g_autofree char *why = NULL;
      gboolean matches;

      g_assert_nonnull (expected);
      g_assert_nonnull (actual);
      matches = match_node (expected, actual, FALSE, captures, path, &why);
      g_test_message ("%s against %s: %s", cases[i].expected, cases[i].actual, why ? why : "a match");
      g_assert_cmpint (matches, ==, cases[i].matches);
      g_assert_true (matches || why != NULL);
    }

  for (guint i = 0; i < G_N_ELEMENTS (lines); i++)
    {
      g_autofree char *duplicate = find_duplicate_member (lines[i].line);

      g_assert_cmpstr (duplicate, ==, lines[i].duplicate);
    }
}

static void
test_found (gconstpointer data)
{
  g_test_summary ("The transcripts directory holds transcripts: an empty listing would pass unseen");
  g_assert_cmpuint (GPOINTER_TO_UINT (data), >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *root = NULL;

  g_test_init (&argc, &argv, NULL);

  root = g_test_build_filename (G_TEST_DIST, "data", "transcripts", NULL);
  list_transcripts (root, "", found);
  g_ptr_array_sort (found, compare_paths);

  g_test_add_func ("/snodo/transcripts/matcher", test_matcher);
  g_test_add_data_func ("/snodo/transcripts/found", GUINT_TO_POINTER (found->len), test_found);
  for (guint i = 0; i < found->len; i++)
    {
      const char *relative = g_ptr_array_index (found, i);
      g_autofree char *stem = g_strndup (relative, strlen (relative) - strlen (".jsonl"));
      g_autofree char *test_path = g_strdup_printf ("/snodo/transcripts/%s", stem);

      g_test_add_data_func_full (test_path, g_build_filename (root, relative, NULL),
                                 test_transcript, g_free);
    }

  return g_test_run ();
}
