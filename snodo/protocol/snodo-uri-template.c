/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <string.h>

#include "snodo-base-private.h"

#include "snodo-error.h"
#include "snodo-uri-template-private.h"

/* ---- Operators (RFC 6570, appendix A) ----------------------------------- */

typedef struct
{
  char        op;
  const char *first;
  const char *sep;
  gboolean    named;
  const char *ifemp;
  gboolean    reserved;
  /* The characters a value's run never holds when matching. */
  const char *stop;
} Operator;

static const Operator operators[] = {
  { '\0', "",  ",", FALSE, "",  FALSE, "/" },
  { '+',  "",  ",", FALSE, "",  TRUE,  "" },
  { '#',  "#", ",", FALSE, "",  TRUE,  "" },
  { '.',  ".", ".", FALSE, "",  FALSE, "/" },
  { '/',  "/", "/", FALSE, "",  FALSE, "/" },
  { ';',  ";", ";", TRUE,  "",  FALSE, "/;" },
  { '?',  "?", "&", TRUE,  "=", FALSE, "&#" },
  { '&',  "&", "&", TRUE,  "=", FALSE, "&#" },
};

/* ---- The parsed template ------------------------------------------------ */

typedef struct
{
  char     *name;
  /* 0 for none. */
  guint     prefix;
  gboolean  explode;
  /* Its index among the template's variable uses. */
  guint     slot;
} VarSpec;

typedef struct
{
  /* Literal text (owned), or NULL for an expression. */
  char           *text;
  gsize           len;
  const Operator *op;
  /* VarSpec */
  GArray         *vars;
} Part;

typedef enum
{
  I_LIT,
  I_CHAR,
  I_BOUNDARY,
  I_SPLIT,
  I_JMP,
  I_SAVE,
  I_MATCH,
  I_FAIL,
} InstKind;

typedef enum
{
  SAVE_VALUE_START,
  SAVE_VALUE_END,
  SAVE_ITEM_START,
  SAVE_ITEM_END,
} SaveKind;

typedef struct
{
  InstKind    kind;
  /* The next state; for I_SPLIT the preferred one. */
  guint       next;
  /* I_SPLIT: the other one. */
  guint       alt;
  /* I_LIT: text owned by a Part or an Operator. */
  const char *text;
  gsize       len;
  /* I_CHAR: bit c set for a byte c the run never holds. */
  guint8      stop[32];
  /* I_SAVE. */
  guint       slot;
  SaveKind    save;
} Inst;

struct _SnodoUriTemplate
{
  /* Part, in template order; literal parts are never empty and never
   * adjacent. */
  GArray   *parts;
  /* VarSpec *, borrowed from the parts, by slot. */
  GPtrArray *uses;
  guint     n_uses;
  guint     n_variables;
  gboolean  ambiguous;
  /* Inst: the matching automaton; its epsilon moves only go forwards. */
  GArray   *program;
};

static void
part_clear (Part *part)
{
  g_clear_pointer (&part->text, g_free);
  g_clear_pointer (&part->vars, g_array_unref);
}

static void
var_spec_clear (VarSpec *spec)
{
  g_clear_pointer (&spec->name, g_free);
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

static void
add_literal (SnodoUriTemplate *self,
             const char       *text,
             gsize             len)
{
  Part part = { g_strndup (text, len), len, NULL, NULL };

  g_array_append_val (self->parts, part);
}

static const Operator *
find_operator (char c)
{
  for (guint i = 1; i < G_N_ELEMENTS (operators); i++)
    if (operators[i].op == c)
      return &operators[i];
  return NULL;
}

/* varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded */
static const char *
scan_name (const char *p)
{
  gboolean after_char = FALSE;

  for (;;)
    {
      if (g_ascii_isalnum (*p) || *p == '_')
        p++;
      else if (*p == '%' && g_ascii_isxdigit (p[1]) && g_ascii_isxdigit (p[2]))
        p += 3;
      else if (*p == '.' && after_char && (g_ascii_isalnum (p[1]) || p[1] == '_' || p[1] == '%'))
        {
          p++;
          continue;
        }
      else
        return p;
      after_char = TRUE;
    }
}

/* Parses the expression after the '{' at *@p; leaves *@p after its '}'. */
static gboolean
parse_expression (SnodoUriTemplate  *self,
                  const char        *text,
                  const char       **p,
                  GString           *example,
                  GError           **error)
{
  const char *q = *p;
  Part part = { NULL, 0, &operators[0], NULL };

  part.op = find_operator (*q);
  if (part.op != NULL)
    q++;
  else if (*q != '\0' && strchr ("=,!@|", *q) != NULL)
    return fail (error, text, _("the operators “=”, “,”, “!”, “@” and “|” are reserved"));
  else
    part.op = &operators[0];
  part.vars = g_array_new (FALSE, TRUE, sizeof (VarSpec));
  g_array_set_clear_func (part.vars, (GDestroyNotify) var_spec_clear);

  for (;;)
    {
      VarSpec spec = { NULL, 0, FALSE, self->n_uses++ };
      const char *name = q;

      q = scan_name (q);
      if (*q == '\0')
        goto unclosed;
      if (q == name)
        {
          fail (error, text, _("an expression has no variable name, or a name has a character "
                               "other than A-Z, a-z, 0-9, “_”, “.” and percent escapes"));
          goto error;
        }
      /* Names are kept as written, escapes and all. */
      spec.name = g_strndup (name, q - name);
      if (*q == '*')
        {
          spec.explode = TRUE;
          q++;
        }
      else if (*q == ':')
        {
          const char *digits = ++q;

          while (g_ascii_isdigit (*q) && q - digits < 5)
            spec.prefix = spec.prefix * 10 + (*q++ - '0');
          if (q == digits || *digits == '0' || q - digits > 4)
            {
              g_free (spec.name);
              fail (error, text, _("a prefix is a number from 1 to 9999"));
              goto error;
            }
        }
      g_array_append_val (part.vars, spec);
      if (*q == ',')
        {
          q++;
          continue;
        }
      if (*q == '}')
        break;
      if (*q == '\0')
        goto unclosed;
      fail (error, text, _("a variable is followed by a character other than “,”, “:”, “*” or “}”"));
      goto error;
    }

  g_string_append (example, part.op->first);
  g_string_append_c (example, 'x');
  g_array_append_val (self->parts, part);
  *p = q + 1;
  return TRUE;

unclosed:
  fail (error, text, _("a “{” is not closed"));
error:
  g_array_unref (part.vars);
  return FALSE;
}

static void compile (SnodoUriTemplate *self);
static gboolean find_ambiguity (SnodoUriTemplate *self);

static SnodoUriTemplate *
parse (const char  *text,
       gboolean     absolute,
       GError     **error)
{
  g_autoptr(SnodoUriTemplate) self = g_new0 (SnodoUriTemplate, 1);
  g_autoptr(GString) example = g_string_new (NULL);
  g_autoptr(GHashTable) names = g_hash_table_new (g_str_hash, g_str_equal);
  const char *literal = text;
  const char *p = text;

  g_return_val_if_fail (text != NULL, NULL);

  self->parts = g_array_new (FALSE, FALSE, sizeof (Part));
  g_array_set_clear_func (self->parts, (GDestroyNotify) part_clear);
  self->uses = g_ptr_array_new ();

  while (*p != '\0')
    {
      Part *part;

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
        add_literal (self, literal, p - literal);
      p++;
      if (!parse_expression (self, text, &p, example, error))
        return NULL;
      part = &g_array_index (self->parts, Part, self->parts->len - 1);
      for (guint i = 0; i < part->vars->len; i++)
        {
          VarSpec *spec = &g_array_index (part->vars, VarSpec, i);

          if (!g_hash_table_contains (names, spec->name))
            {
              g_hash_table_add (names, spec->name);
              self->n_variables++;
            }
          else
            self->ambiguous = TRUE;
        }
      literal = p;
    }
  if (p > literal)
    add_literal (self, literal, p - literal);

  /* The uses, by slot (the parts' arrays no longer move). */
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);

      for (guint j = 0; part->vars != NULL && j < part->vars->len; j++)
        g_ptr_array_add (self->uses, &g_array_index (part->vars, VarSpec, j));
    }

  if (absolute && !g_uri_is_valid (example->str, G_URI_FLAGS_NONE, NULL))
    {
      fail (error, text, _("it does not make an absolute URI"));
      return NULL;
    }

  self->ambiguous = self->ambiguous || find_ambiguity (self);
  compile (self);
  return g_steal_pointer (&self);
}

SnodoUriTemplate *
snodo_uri_template_parse (const char  *text,
                          GError     **error)
{
  return parse (text, TRUE, error);
}

SnodoUriTemplate *
snodo_uri_template_parse_relative (const char  *text,
                                   GError     **error)
{
  return parse (text, FALSE, error);
}

void
snodo_uri_template_free (SnodoUriTemplate *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->parts, g_array_unref);
  g_clear_pointer (&self->uses, g_ptr_array_unref);
  g_clear_pointer (&self->program, g_array_unref);
  g_free (self);
}

guint
snodo_uri_template_get_n_variables (SnodoUriTemplate *self)
{
  return self->n_variables;
}

gboolean
snodo_uri_template_is_ambiguous (SnodoUriTemplate *self)
{
  return self->ambiguous;
}

guint
snodo_uri_template_get_n_states (SnodoUriTemplate *self)
{
  return self->program->len;
}

/* See snodo_uri_template_is_ambiguous(): expansion leaves a character raw
 * that matching would take as a boundary. */
static gboolean
find_ambiguity (SnodoUriTemplate *self)
{
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);
      gboolean several;
      gboolean later = FALSE;

      if (part->vars == NULL)
        continue;
      several = part->vars->len > 1;
      for (guint j = 0; j < part->vars->len; j++)
        several = several || g_array_index (part->vars, VarSpec, j).explode;
      if (several && (part->op->reserved || part->op->op == '.'))
        return TRUE;
      /* Without names, a value of a later variable when an earlier one is
       * undefined reads as the earlier one's ("?{undef,y}"). */
      if (part->vars->len > 1 && !part->op->named)
        return TRUE;
      for (guint j = i + 1; j < self->parts->len; j++)
        later = later || g_array_index (self->parts, Part, j).vars != NULL;
      if (!later)
        continue;
      /* Another expression follows: the run must end at a reserved
       * character, which expansion always encodes in a value. */
      if (part->op->reserved || i + 1 >= self->parts->len)
        return TRUE;
      part = &g_array_index (self->parts, Part, i + 1);
      if (part->text == NULL || strchr (":/?#[]@!$&'()*+,;=", part->text[0]) == NULL)
        return TRUE;
    }
  return FALSE;
}

/* ---- Compiling the matching automaton ----------------------------------- */

static guint
emit (SnodoUriTemplate *self,
      InstKind          kind)
{
  Inst inst = { 0, };

  inst.kind = kind;
  inst.next = self->program->len + 1;
  g_array_append_val (self->program, inst);
  return self->program->len - 1;
}

#define INST(self, i) (&g_array_index ((self)->program, Inst, (i)))

static void
emit_literal (SnodoUriTemplate *self,
              const char       *text)
{
  guint i;

  if (*text == '\0')
    return;
  i = emit (self, I_LIT);
  INST (self, i)->text = text;
  INST (self, i)->len = strlen (text);
}

static void
emit_save (SnodoUriTemplate *self,
           guint             slot,
           SaveKind          save)
{
  guint i = emit (self, I_SAVE);

  INST (self, i)->slot = slot;
  INST (self, i)->save = save;
}

static guint
emit_char (SnodoUriTemplate *self,
           const char       *stop,
           const char       *more_stop)
{
  guint i = emit (self, I_CHAR);
  Inst *inst = INST (self, i);

  for (const char *c = stop; *c != '\0'; c++)
    inst->stop[(guint8) *c >> 3] |= (guint8) (1 << (*c & 7));
  for (const char *c = more_stop; *c != '\0'; c++)
    inst->stop[(guint8) *c >> 3] |= (guint8) (1 << (*c & 7));
  return i;
}

/* A run of characters from a boundary to a boundary, the shortest first. */
static void
emit_run (SnodoUriTemplate *self,
          const char       *stop,
          const char       *more_stop,
          gboolean          non_empty)
{
  guint loop, again, end;

  emit (self, I_BOUNDARY);
  if (non_empty)
    emit_char (self, stop, more_stop);
  loop = emit (self, I_SPLIT);
  INST (self, loop)->alt = loop + 1;
  again = emit_char (self, stop, more_stop);
  INST (self, again)->next = loop;
  end = emit (self, I_BOUNDARY);
  INST (self, loop)->next = end;
}

static void
emit_item (SnodoUriTemplate *self,
           const Operator   *op,
           VarSpec          *spec,
           gboolean          non_empty)
{
  if (spec->explode)
    {
      guint item = self->program->len;
      guint more;

      emit_save (self, spec->slot, SAVE_ITEM_START);
      emit_run (self, op->stop, op->sep, TRUE);
      emit_save (self, spec->slot, SAVE_ITEM_END);
      more = emit (self, I_SPLIT);
      INST (self, more)->alt = more + 1;
      emit_literal (self, op->sep);
      INST (self, more + 1)->next = item;
      INST (self, more)->next = self->program->len;
    }
  else if (op->named)
    {
      emit_literal (self, spec->name);
      if (op->op == ';')
        {
          guint choice = emit (self, I_SPLIT);
          guint done;

          emit_literal (self, "=");
          emit_save (self, spec->slot, SAVE_VALUE_START);
          emit_run (self, op->stop, "", FALSE);
          emit_save (self, spec->slot, SAVE_VALUE_END);
          done = emit (self, I_JMP);
          INST (self, choice)->alt = self->program->len;
          emit_save (self, spec->slot, SAVE_VALUE_START);
          emit_save (self, spec->slot, SAVE_VALUE_END);
          INST (self, done)->next = self->program->len;
        }
      else
        {
          emit_literal (self, "=");
          emit_save (self, spec->slot, SAVE_VALUE_START);
          emit_run (self, op->stop, "", FALSE);
          emit_save (self, spec->slot, SAVE_VALUE_END);
        }
    }
  else
    {
      emit_save (self, spec->slot, SAVE_VALUE_START);
      emit_run (self, op->stop, "", non_empty);
      emit_save (self, spec->slot, SAVE_VALUE_END);
    }
}

enum { NONE, SOME, N_FAMILIES };

/*
 * An expression of K variables: for each variable k, a block per family
 * (NONE: no variable present yet; SOME: one is), which takes the variable
 * present (after the operator's first text or separator) or absent, then
 * goes on to the block of k + 1. All its jumps go forwards.
 */
static void
emit_expression (SnodoUriTemplate *self,
                 Part             *part)
{
  const Operator *op = part->op;
  guint n = part->vars->len;
  g_autofree guint *start = g_new0 (guint, (n + 1) * N_FAMILIES);
  /* Pairs of (instruction, block it jumps to). */
  g_autoptr(GArray) pending = g_array_new (FALSE, FALSE, sizeof (guint) * 2);
  guint end;

  for (guint k = 0; k <= n; k++)
    for (guint family = NONE; family < N_FAMILIES; family++)
      {
        guint jump[2];

        if (k == 0 && family == SOME)
          continue;
        start[k * N_FAMILIES + family] = self->program->len;
        if (k == n)
          {
            if (family == NONE && op->first[0] == '\0')
              emit (self, I_FAIL);
            else
              {
                jump[0] = emit (self, I_JMP);
                jump[1] = G_MAXUINT;
                g_array_append_val (pending, jump);
              }
            continue;
          }

        {
          guint choice = emit (self, I_SPLIT);

          emit_literal (self, family == NONE ? op->first : op->sep);
          emit_item (self, op, &g_array_index (part->vars, VarSpec, k),
                     family == NONE && op->first[0] == '\0');
          jump[0] = emit (self, I_JMP);
          jump[1] = (k + 1) * N_FAMILIES + SOME;
          g_array_append_val (pending, jump);
          jump[0] = emit (self, I_JMP);
          INST (self, choice)->alt = jump[0];
          jump[1] = (k + 1) * N_FAMILIES + family;
          g_array_append_val (pending, jump);
        }
      }
  end = self->program->len;

  for (guint i = 0; i < pending->len; i++)
    {
      guint *jump = &g_array_index (pending, guint, i * 2);

      INST (self, jump[0])->next = jump[1] == G_MAXUINT ? end : start[jump[1]];
    }
}

static void
compile (SnodoUriTemplate *self)
{
  self->program = g_array_new (FALSE, TRUE, sizeof (Inst));
  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);

      if (part->vars == NULL)
        emit_literal (self, part->text);
      else
        emit_expression (self, part);
    }
  emit (self, I_MATCH);

  for (guint i = 0; i < self->program->len; i++)
    {
      Inst *inst = INST (self, i);

      /* Epsilon moves go forwards: the backward pass needs no fixpoint. */
      if (inst->kind == I_SPLIT || inst->kind == I_JMP || inst->kind == I_SAVE || inst->kind == I_BOUNDARY)
        g_assert (inst->next > i && (inst->kind != I_SPLIT || inst->alt > i));
    }
}

/* ---- Matching ----------------------------------------------------------- */

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


typedef struct
{
  guint    slot;
  SaveKind save;
  gsize    pos;
} Event;

static char *
decode (const char *start,
        const char *end)
{
  char *value = g_uri_unescape_segment (start, end, NULL);

  /* The runs hold nothing bad (see uri_mark_runs()): they decode. */
  if (value == NULL || !g_utf8_validate (value, -1, NULL))
    {
      g_critical ("A URI template matched a value that does not decode");
      g_clear_pointer (&value, g_free);
    }
  return value;
}

/* The value of an exploded variable from its items (pairs of offsets). */
static JsonNode *
exploded_value (SnodoUriTemplate *self,
                VarSpec          *spec,
                gboolean          named,
                const char       *uri,
                GArray           *items)
{
  g_autoptr(JsonArray) array = json_array_new ();
  g_autoptr(JsonObject) object = json_object_new ();
  gboolean all_named_alike = TRUE;
  gboolean all_pairs = TRUE;
  JsonNode *node;

  for (guint i = 0; i < items->len; i += 2)
    {
      const char *start = uri + g_array_index (items, gsize, i);
      const char *end = uri + g_array_index (items, gsize, i + 1);
      const char *equals = memchr (start, '=', end - start);
      const char *name_end = equals != NULL ? equals : end;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;
      g_autofree char *whole = NULL;

      if (equals == NULL)
        all_pairs = FALSE;
      if ((gsize) (name_end - start) != strlen (spec->name) ||
          memcmp (start, spec->name, name_end - start) != 0)
        all_named_alike = FALSE;
      key = decode (start, name_end);
      value = equals != NULL ? decode (equals + 1, end) : g_strdup ("");
      whole = decode (start, end);
      if (key == NULL || value == NULL || whole == NULL)
        return NULL;
      json_object_set_string_member (object, key, value);
      json_array_add_string_element (array, named ? value : whole);
    }

  if (named ? all_named_alike : !all_pairs)
    {
      node = json_node_new (JSON_NODE_ARRAY);
      json_node_take_array (node, g_steal_pointer (&array));
    }
  else
    {
      node = json_node_new (JSON_NODE_OBJECT);
      json_node_take_object (node, g_steal_pointer (&object));
    }
  return node;
}

/* Sets @name to @node in @variables, or checks that it agrees with a value
 * already there (see the header). @from_prefix says whether the value
 * there came from prefix uses only. */
static gboolean
merge (JsonObject *variables,
       GHashTable *from_prefix,
       VarSpec    *spec,
       JsonNode   *node)
{
  JsonNode *old = json_object_get_member (variables, spec->name);
  const char *a, *b;

  if (old == NULL)
    goto take;
  if (json_node_equal (old, node))
    {
      if (spec->prefix == 0)
        g_hash_table_remove (from_prefix, spec->name);
      json_node_unref (node);
      return TRUE;
    }
  if (JSON_NODE_TYPE (old) != JSON_NODE_VALUE || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    goto disagree;
  a = json_node_get_string (old);
  b = json_node_get_string (node);
  if (spec->prefix > 0 && g_str_has_prefix (a, b))
    {
      json_node_unref (node);
      return TRUE;
    }
  if (g_hash_table_contains (from_prefix, spec->name) && g_str_has_prefix (b, a))
    goto take;

disagree:
  json_node_unref (node);
  return FALSE;

take:
  if (spec->prefix > 0)
    g_hash_table_add (from_prefix, spec->name);
  else
    g_hash_table_remove (from_prefix, spec->name);
  json_object_set_member (variables, spec->name, node);
  return TRUE;
}

#define ROW(ok, stride, p) ((ok) + (gsize) (p) * (stride))

JsonObject *
snodo_uri_template_match_counted (SnodoUriTemplate *self,
                                  const char       *uri,
                                  guint64          *steps)
{
  g_autofree guint8 *ok = NULL;
  g_autofree guint8 *boundary = NULL;
  g_autofree guint8 *bad = NULL;
  g_autofree gssize *value_start = NULL;
  g_autofree gssize *value_end = NULL;
  g_autoptr(GPtrArray) items = NULL;
  g_autoptr(GArray) events = NULL;
  g_autoptr(JsonObject) variables = NULL;
  g_autoptr(GHashTable) from_prefix = NULL;
  const Inst *program = (const Inst *) (gpointer) self->program->data;
  guint m = self->program->len;
  gsize n = strlen (uri);
  gsize stride = (m + 7) / 8;
  gsize p;
  guint s;

  ok = g_malloc0_n (n + 1, stride);
  boundary = g_malloc0 ((n + 1 + 7) / 8);
  bad = g_malloc0 ((n + 1 + 7) / 8);
  uri_mark_runs (uri, n, boundary, bad);

  /* Backwards: bit s of row p says whether state s at position p can
   * reach the end. Consuming moves read rows already done; epsilon moves
   * read states of higher numbers in the same row, also done. */
  for (p = n + 1; p-- > 0;)
    {
      guint8 *row = ROW (ok, stride, p);

      for (s = m; s-- > 0;)
        {
          const Inst *inst = &program[s];
          gboolean yes = FALSE;

          switch (inst->kind)
            {
            case I_LIT:
              yes = p + inst->len <= n && memcmp (uri + p, inst->text, inst->len) == 0 &&
                    BIT_GET (ROW (ok, stride, p + inst->len), inst->next);
              break;
            case I_CHAR:
              yes = p < n && !BIT_GET (bad, p) && !BIT_GET (inst->stop, (guint8) uri[p]) &&
                    BIT_GET (ROW (ok, stride, p + 1), inst->next);
              break;
            case I_BOUNDARY:
              yes = BIT_GET (boundary, p) && BIT_GET (row, inst->next);
              break;
            case I_SPLIT:
              yes = BIT_GET (row, inst->next) || BIT_GET (row, inst->alt);
              break;
            case I_JMP:
            case I_SAVE:
              yes = BIT_GET (row, inst->next);
              break;
            case I_MATCH:
              yes = p == n;
              break;
            case I_FAIL:
            default:
              break;
            }
          if (yes)
            BIT_SET (row, s);
        }
    }
  *steps += (guint64) (n + 1) * m;

  if (!BIT_GET (ROW (ok, stride, 0), 0))
    return NULL;

  /* Forwards: at each choice, the first branch that can reach the end.
   * Every state visited can, so the walk never turns back. */
  events = g_array_new (FALSE, FALSE, sizeof (Event));
  for (s = 0, p = 0; program[s].kind != I_MATCH;)
    {
      const Inst *inst = &program[s];

      (*steps)++;
      switch (inst->kind)
        {
        case I_LIT:
          p += inst->len;
          s = inst->next;
          break;
        case I_CHAR:
          p++;
          s = inst->next;
          break;
        case I_SPLIT:
          s = BIT_GET (ROW (ok, stride, p), inst->next) ? inst->next : inst->alt;
          break;
        case I_SAVE:
          {
            Event event = { inst->slot, inst->save, p };

            g_array_append_val (events, event);
          }
          G_GNUC_FALLTHROUGH;
        case I_BOUNDARY:
        case I_JMP:
          s = inst->next;
          break;
        case I_MATCH:
        case I_FAIL:
        default:
          g_assert_not_reached ();
        }
    }
  g_assert (p == n);

  value_start = g_new (gssize, self->uses->len);
  value_end = g_new (gssize, self->uses->len);
  items = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < self->uses->len; i++)
    {
      value_start[i] = value_end[i] = -1;
      g_ptr_array_add (items, g_array_new (FALSE, FALSE, sizeof (gsize)));
    }
  for (guint i = 0; i < events->len; i++)
    {
      Event *event = &g_array_index (events, Event, i);

      if (event->save == SAVE_VALUE_START)
        value_start[event->slot] = event->pos;
      else if (event->save == SAVE_VALUE_END)
        value_end[event->slot] = event->pos;
      else
        g_array_append_val (g_ptr_array_index (items, event->slot), event->pos);
    }

  variables = json_object_new ();
  from_prefix = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < self->uses->len; i++)
    {
      VarSpec *spec = g_ptr_array_index (self->uses, i);
      GArray *spans = g_ptr_array_index (items, i);
      JsonNode *node;

      if (spec->explode)
        {
          gboolean named = FALSE;

          if (spans->len == 0)
            continue;
          for (guint j = 0; j < self->parts->len; j++)
            {
              Part *part = &g_array_index (self->parts, Part, j);

              if (part->vars != NULL && spec >= &g_array_index (part->vars, VarSpec, 0) &&
                  spec < &g_array_index (part->vars, VarSpec, part->vars->len))
                named = part->op->named;
            }
          node = exploded_value (self, spec, named, uri, spans);
        }
      else
        {
          g_autofree char *value = NULL;

          if (value_start[i] < 0)
            continue;
          value = decode (uri + value_start[i], uri + value_end[i]);
          if (value == NULL)
            return NULL;
          if (spec->prefix > 0 && g_utf8_strlen (value, -1) > spec->prefix)
            return NULL;
          node = json_node_new (JSON_NODE_VALUE);
          json_node_set_string (node, value);
        }
      if (node == NULL || !merge (variables, from_prefix, spec, node))
        return NULL;
    }

  /* A variable the template also cuts with a prefix cannot expand as a
   * list or map (RFC 6570, 2.4.1): such values are no match. */
  for (guint i = 0; i < self->uses->len; i++)
    {
      VarSpec *spec = g_ptr_array_index (self->uses, i);
      JsonNode *node;

      if (spec->prefix == 0)
        continue;
      node = json_object_get_member (variables, spec->name);
      if (node != NULL && JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
        return NULL;
    }

  return g_steal_pointer (&variables);
}

JsonObject *
snodo_uri_template_match (SnodoUriTemplate *self,
                          const char       *uri)
{
  guint64 steps = 0;

  return snodo_uri_template_match_counted (self, uri, &steps);
}

/* ---- Expansion ---------------------------------------------------------- */

static void
append_encoded (GString    *out,
                const char *text,
                gsize       len,
                gboolean    reserved)
{
  static const char reserved_chars[] = ":/?#[]@!$&'()*+,;=";

  for (gsize i = 0; i < len; i++)
    {
      guint8 c = (guint8) text[i];

      if (g_ascii_isalnum (c) || (c != '\0' && strchr ("-._~", c) != NULL))
        g_string_append_c (out, c);
      else if (reserved && c != '\0' && strchr (reserved_chars, c) != NULL)
        g_string_append_c (out, c);
      else if (reserved && c == '%' && i + 2 < len &&
               g_ascii_isxdigit (text[i + 1]) && g_ascii_isxdigit (text[i + 2]))
        g_string_append_c (out, c);
      else
        g_string_append_printf (out, "%%%02X", c);
    }
}

/* The text of a scalar, or NULL when @node is no string, number or
 * boolean. */
static char *
scalar_text (JsonNode *node)
{
  if (node == NULL || JSON_NODE_TYPE (node) != JSON_NODE_VALUE)
    return NULL;
  switch (json_node_get_value_type (node) == G_TYPE_STRING ? 0 :
          json_node_get_value_type (node) == G_TYPE_INT64 ? 1 :
          json_node_get_value_type (node) == G_TYPE_DOUBLE ? 2 :
          json_node_get_value_type (node) == G_TYPE_BOOLEAN ? 3 : 4)
    {
    case 0:
      return g_strdup (json_node_get_string (node));
    case 1:
      return g_strdup_printf ("%" G_GINT64_FORMAT, json_node_get_int (node));
    case 2:
      {
        char buffer[G_ASCII_DTOSTR_BUF_SIZE];

        return g_strdup (g_ascii_dtostr (buffer, sizeof buffer, json_node_get_double (node)));
      }
    case 3:
      return g_strdup (json_node_get_boolean (node) ? "true" : "false");
    default:
      return NULL;
    }
}

static gboolean
expand_error (GError     **error,
              const char  *name,
              const char  *why)
{
  g_set_error (error, SNODO_ERROR, SNODO_ERROR_INVALID_SCHEMA,
               _("The value of the URI template variable “%s” %s"), name, why);
  return FALSE;
}

/* Appends "name=value" or "value" for one member of a list or map. */
static void
append_member (GString        *out,
               const Operator *op,
               gboolean        as_name,
               const char     *name,
               const char     *value)
{
  if (as_name)
    {
      append_encoded (out, name, strlen (name), op->reserved);
      if (*value == '\0')
        {
          g_string_append (out, op->ifemp);
          return;
        }
      g_string_append_c (out, '=');
    }
  append_encoded (out, value, strlen (value), op->reserved);
}

static gboolean
expand_variable (GString        *out,
                 const Operator *op,
                 VarSpec        *spec,
                 JsonNode       *node,
                 GError        **error)
{
  g_autofree char *text = scalar_text (node);

  if (text != NULL)
    {
      const char *end = text + strlen (text);

      if (op->named)
        {
          g_string_append (out, spec->name);
          if (*text == '\0')
            {
              g_string_append (out, op->ifemp);
              return TRUE;
            }
          g_string_append_c (out, '=');
        }
      if (spec->prefix > 0 && (guint) g_utf8_strlen (text, -1) > spec->prefix)
        end = g_utf8_offset_to_pointer (text, spec->prefix);
      append_encoded (out, text, end - text, op->reserved);
      return TRUE;
    }

  if (spec->prefix > 0)
    return expand_error (error, spec->name, _("is a list or map, which cannot take a prefix"));
  if (!spec->explode && op->named)
    {
      g_string_append (out, spec->name);
      g_string_append_c (out, '=');
    }

  if (JSON_NODE_HOLDS_ARRAY (node))
    {
      JsonArray *array = json_node_get_array (node);

      for (guint i = 0; i < json_array_get_length (array); i++)
        {
          g_autofree char *item = scalar_text (json_array_get_element (array, i));

          if (item == NULL)
            return expand_error (error, spec->name, _("is a list of something other than strings, numbers and booleans"));
          if (i > 0)
            g_string_append (out, spec->explode ? op->sep : ",");
          if (spec->explode)
            append_member (out, op, op->named, spec->name, item);
          else
            append_encoded (out, item, strlen (item), op->reserved);
        }
    }
  else
    {
      JsonObject *object = json_node_get_object (node);
      g_autoptr(GList) members = json_object_get_members (object);
      gboolean first = TRUE;

      for (GList *l = members; l != NULL; l = l->next)
        {
          g_autofree char *item = scalar_text (json_object_get_member (object, l->data));

          if (item == NULL)
            return expand_error (error, spec->name, _("is a map to something other than strings, numbers and booleans"));
          if (!first)
            g_string_append (out, spec->explode ? op->sep : ",");
          first = FALSE;
          if (spec->explode)
            {
              if (op->named)
                append_member (out, op, TRUE, l->data, item);
              else
                {
                  append_encoded (out, l->data, strlen (l->data), op->reserved);
                  g_string_append_c (out, '=');
                  append_encoded (out, item, strlen (item), op->reserved);
                }
            }
          else
            {
              append_encoded (out, l->data, strlen (l->data), op->reserved);
              g_string_append_c (out, ',');
              append_encoded (out, item, strlen (item), op->reserved);
            }
        }
    }
  return TRUE;
}

static gboolean
is_defined (JsonNode *node)
{
  if (node == NULL || JSON_NODE_HOLDS_NULL (node))
    return FALSE;
  if (JSON_NODE_HOLDS_ARRAY (node))
    return json_array_get_length (json_node_get_array (node)) > 0;
  if (JSON_NODE_HOLDS_OBJECT (node))
    return json_object_get_size (json_node_get_object (node)) > 0;
  return TRUE;
}

char *
snodo_uri_template_expand (SnodoUriTemplate  *self,
                           JsonObject        *values,
                           GError           **error)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < self->parts->len; i++)
    {
      Part *part = &g_array_index (self->parts, Part, i);
      gboolean first = TRUE;

      if (part->vars == NULL)
        {
          g_string_append_len (out, part->text, part->len);
          continue;
        }
      for (guint j = 0; j < part->vars->len; j++)
        {
          VarSpec *spec = &g_array_index (part->vars, VarSpec, j);
          JsonNode *node = values != NULL ? json_object_get_member (values, spec->name) : NULL;

          if (!is_defined (node))
            continue;
          g_string_append (out, first ? part->op->first : part->op->sep);
          first = FALSE;
          if (!expand_variable (out, part->op, spec, node, error))
            return NULL;
        }
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
