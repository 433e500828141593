/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <math.h>
#include <string.h>

#include "snodo-base-private.h"
#include "snodo-schema-private.h"
#include "snodo-wire-private.h"

/* Deeper schemas are not checked further (they are accepted). */
#define MAX_DEPTH 64

static double
number_of (JsonNode *node)
{
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    return (double) json_node_get_int (node);
  return json_node_get_double (node);
}

static gboolean
has_type (JsonNode   *instance,
          const char *type)
{
  if (g_str_equal (type, "object"))
    return JSON_NODE_HOLDS_OBJECT (instance);
  if (g_str_equal (type, "array"))
    return JSON_NODE_HOLDS_ARRAY (instance);
  if (g_str_equal (type, "null"))
    return JSON_NODE_HOLDS_NULL (instance);
  if (g_str_equal (type, "string"))
    return snodo_json_node_is_string (instance);
  if (g_str_equal (type, "boolean"))
    return JSON_NODE_HOLDS_VALUE (instance) && json_node_get_value_type (instance) == G_TYPE_BOOLEAN;
  if (g_str_equal (type, "number"))
    return snodo_json_node_is_number (instance);
  if (g_str_equal (type, "integer"))
    return snodo_json_node_is_number (instance) &&
           (json_node_get_value_type (instance) == G_TYPE_INT64 ||
            (isfinite (json_node_get_double (instance)) &&
             json_node_get_double (instance) == floor (json_node_get_double (instance))));
  /* An unknown type name constrains nothing we know of. */
  return TRUE;
}

static gboolean
json_equal (JsonNode *a,
            JsonNode *b)
{
  if (snodo_json_node_is_number (a) && snodo_json_node_is_number (b))
    return number_of (a) == number_of (b);
  if (JSON_NODE_TYPE (a) != JSON_NODE_TYPE (b))
    return FALSE;

  switch (JSON_NODE_TYPE (a))
    {
    case JSON_NODE_NULL:
      return TRUE;
    case JSON_NODE_VALUE:
      if (json_node_get_value_type (a) != json_node_get_value_type (b))
        return FALSE;
      if (snodo_json_node_is_string (a))
        return g_str_equal (json_node_get_string (a), json_node_get_string (b));
      return json_node_get_boolean (a) == json_node_get_boolean (b);
    case JSON_NODE_ARRAY:
      {
        JsonArray *x = json_node_get_array (a);
        JsonArray *y = json_node_get_array (b);

        if (json_array_get_length (x) != json_array_get_length (y))
          return FALSE;
        for (guint i = 0; i < json_array_get_length (x); i++)
          if (!json_equal (json_array_get_element (x, i), json_array_get_element (y, i)))
            return FALSE;
        return TRUE;
      }
    case JSON_NODE_OBJECT:
      {
        JsonObject *x = json_node_get_object (a);
        JsonObject *y = json_node_get_object (b);
        JsonObjectIter iter;
        const char *name;
        JsonNode *member;

        if (json_object_get_size (x) != json_object_get_size (y))
          return FALSE;
        json_object_iter_init_ordered (&iter, x);
        while (json_object_iter_next_ordered (&iter, &name, &member))
          if (!json_object_has_member (y, name) || !json_equal (member, json_object_get_member (y, name)))
            return FALSE;
        return TRUE;
      }
    default:
      return FALSE;
    }
}

typedef struct
{
  /* Where the failure is, built on the way back from it; NULL until
   * then. */
  GString *path;
  char    *message;
} Failure;

static gboolean fail (Failure    *failure,
                      const char *format,
                      ...) G_GNUC_PRINTF (2, 3);

static gboolean
fail (Failure    *failure,
      const char *format,
      ...)
{
  va_list args;

  if (failure->message == NULL)
    {
      va_start (args, format);
      failure->message = g_strdup_vprintf (format, args);
      va_end (args);
    }
  return FALSE;
}

static gboolean validate (JsonNode *schema,
                          JsonNode *instance,
                          guint     depth,
                          Failure  *failure);

/* The keywords the checker knows, found in one pass over a schema object
 * (one hash lookup per keyword made most of the cost of a small check). */
typedef struct
{
  JsonNode *type;
  JsonNode *const_value;
  JsonNode *enum_values;
  JsonNode *required;
  JsonNode *properties;
  JsonNode *additional_properties;
  JsonNode *items;
  JsonNode *min_items;
  JsonNode *max_items;
  JsonNode *min_length;
  JsonNode *max_length;
  JsonNode *minimum;
  JsonNode *maximum;
  JsonNode *exclusive_minimum;
  JsonNode *exclusive_maximum;
  JsonNode *multiple_of;
  JsonNode *all_of;
  JsonNode *any_of;
  JsonNode *one_of;
  JsonNode *not_schema;
} Keywords;

static JsonNode **
keyword_slot (Keywords   *k,
              const char *name)
{
  switch (name[0])
    {
    case 'a':
      return g_str_equal (name, "additionalProperties") ? &k->additional_properties :
             g_str_equal (name, "allOf") ? &k->all_of :
             g_str_equal (name, "anyOf") ? &k->any_of : NULL;
    case 'c':
      return g_str_equal (name, "const") ? &k->const_value : NULL;
    case 'e':
      return g_str_equal (name, "enum") ? &k->enum_values :
             g_str_equal (name, "exclusiveMinimum") ? &k->exclusive_minimum :
             g_str_equal (name, "exclusiveMaximum") ? &k->exclusive_maximum : NULL;
    case 'i':
      return g_str_equal (name, "items") ? &k->items : NULL;
    case 'm':
      return g_str_equal (name, "minItems") ? &k->min_items :
             g_str_equal (name, "maxItems") ? &k->max_items :
             g_str_equal (name, "minLength") ? &k->min_length :
             g_str_equal (name, "maxLength") ? &k->max_length :
             g_str_equal (name, "minimum") ? &k->minimum :
             g_str_equal (name, "maximum") ? &k->maximum :
             g_str_equal (name, "multipleOf") ? &k->multiple_of : NULL;
    case 'n':
      return g_str_equal (name, "not") ? &k->not_schema : NULL;
    case 'o':
      return g_str_equal (name, "oneOf") ? &k->one_of : NULL;
    case 'p':
      return g_str_equal (name, "properties") ? &k->properties : NULL;
    case 'r':
      return g_str_equal (name, "required") ? &k->required : NULL;
    case 't':
      return g_str_equal (name, "type") ? &k->type : NULL;
    default:
      return NULL;
    }
}

static void
keywords_init (Keywords   *k,
               JsonObject *schema)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;

  memset (k, 0, sizeof *k);
  json_object_iter_init (&iter, schema);
  while (json_object_iter_next (&iter, &name, &node))
    {
      JsonNode **slot = keyword_slot (k, name);

      if (slot != NULL)
        *slot = node;
    }
}

static gboolean
number_keyword (JsonNode *node,
                double   *value)
{
  if (node == NULL || !snodo_json_node_is_number (node))
    return FALSE;
  *value = number_of (node);
  return TRUE;
}

static gboolean
validate_type (JsonNode *type,
               JsonNode *instance,
               Failure  *failure)
{
  if (snodo_json_node_is_string (type))
    {
      if (!has_type (instance, json_node_get_string (type)))
        return fail (failure, _("expected %s"), json_node_get_string (type));
      return TRUE;
    }
  if (JSON_NODE_HOLDS_ARRAY (type))
    {
      JsonArray *types = json_node_get_array (type);
      GString *names = g_string_new (NULL);

      for (guint i = 0; i < json_array_get_length (types); i++)
        {
          JsonNode *element = json_array_get_element (types, i);

          if (!snodo_json_node_is_string (element) || has_type (instance, json_node_get_string (element)))
            {
              g_string_free (names, TRUE);
              return TRUE;
            }
          g_string_append_printf (names, "%s%s", names->len ? ", " : "", json_node_get_string (element));
        }
      fail (failure, _("expected one of %s"), names->str);
      g_string_free (names, TRUE);
      return FALSE;
    }
  return TRUE;
}

/* The path of a failure is built only once there is one, as the checks
 * return from it: each member or element puts its name before the path
 * of what failed in it. */
static gboolean
failed_in (Failure    *failure,
           const char *name)
{
  if (failure->path == NULL)
    failure->path = g_string_new (NULL);
  g_string_prepend (failure->path, name);
  g_string_prepend_c (failure->path, '/');
  return FALSE;
}

/* Without printf, which cost more than the checks of a small object. */
static gboolean
failed_in_element (Failure *failure,
                   guint    index)
{
  char digits[16];
  char *p = digits + sizeof digits;

  *--p = '\0';
  do
    {
      *--p = (char) ('0' + index % 10);
      index /= 10;
    }
  while (index > 0);
  return failed_in (failure, p);
}

static gboolean
validate_object (const Keywords *schema,
                 JsonObject     *object,
                 guint           depth,
                 Failure        *failure)
{
  JsonNode *required = schema->required;
  JsonNode *properties = schema->properties;
  JsonNode *additional = schema->additional_properties;
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;

  if (required != NULL && JSON_NODE_HOLDS_ARRAY (required))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (required)); i++)
      {
        JsonNode *element = json_array_get_element (json_node_get_array (required), i);

        if (snodo_json_node_is_string (element) && !json_object_has_member (object, json_node_get_string (element)))
          return fail (failure, _("“%s” is required"), json_node_get_string (element));
      }

  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      JsonNode *property = NULL;

      if (properties != NULL && JSON_NODE_HOLDS_OBJECT (properties))
        property = json_object_get_member (json_node_get_object (properties), name);

      if (property != NULL)
        {
          if (!validate (property, member, depth + 1, failure))
            return failed_in (failure, name);
        }
      else if (additional != NULL)
        {
          if (JSON_NODE_HOLDS_VALUE (additional) && json_node_get_value_type (additional) == G_TYPE_BOOLEAN &&
              !json_node_get_boolean (additional))
            {
              fail (failure, _("is not an allowed property"));
              return failed_in (failure, name);
            }
          if (!validate (additional, member, depth + 1, failure))
            return failed_in (failure, name);
        }
    }
  return TRUE;
}

static gboolean
validate_array (const Keywords *schema,
                JsonArray      *array,
                guint           depth,
                Failure        *failure)
{
  JsonNode *items = schema->items;
  guint length = json_array_get_length (array);
  double limit;

  if (number_keyword (schema->min_items, &limit) && length < limit)
    return fail (failure, _("has fewer than %g items"), limit);
  if (number_keyword (schema->max_items, &limit) && length > limit)
    return fail (failure, _("has more than %g items"), limit);

  if (items != NULL && (JSON_NODE_HOLDS_OBJECT (items) || JSON_NODE_HOLDS_VALUE (items)))
    for (guint i = 0; i < length; i++)
      if (!validate (items, json_array_get_element (array, i), depth + 1, failure))
        return failed_in_element (failure, i);
  return TRUE;
}

static gboolean
validate_number (const Keywords *schema,
                 double          value,
                 Failure        *failure)
{
  double limit;

  if (number_keyword (schema->minimum, &limit) && value < limit)
    return fail (failure, _("is less than the minimum %g"), limit);
  if (number_keyword (schema->maximum, &limit) && value > limit)
    return fail (failure, _("is more than the maximum %g"), limit);
  if (number_keyword (schema->exclusive_minimum, &limit) && value <= limit)
    return fail (failure, _("is not more than %g"), limit);
  if (number_keyword (schema->exclusive_maximum, &limit) && value >= limit)
    return fail (failure, _("is not less than %g"), limit);
  if (number_keyword (schema->multiple_of, &limit) && limit > 0)
    {
      double quotient = value / limit;

      if (fabs (quotient - round (quotient)) > 1e-9)
        return fail (failure, _("is not a multiple of %g"), limit);
    }
  return TRUE;
}

/* The number of characters from which comparing it with @limit no longer
 * changes: a count capped there decides `count < limit` (at_least) or
 * `count > limit` (!at_least) exactly as the full count would. */
static gsize
length_decided_at (double   limit,
                   gboolean at_least)
{
  double count = at_least ? ceil (limit) : floor (limit) + 1;

  if (!(count > 0))
    return 0;
  if (count >= (double) G_MAXSIZE)
    return G_MAXSIZE;
  return (gsize) count;
}

/* The characters of the @len bytes at @str, counted as the bytes that do
 * not continue a sequence (10xxxxxx): for valid UTF-8 this is
 * g_utf8_strlen(), U+0000 (stored as 0xC0 0x80) counts one, and invalid
 * bytes never make it read past @len. Counting stops once @cap is reached
 * (the result may pass it by a few). Eight bytes at a time: in each byte,
 * bit 7 set and bit 6 clear marks a continuation byte. */
static gsize
count_characters (const char *str,
                  gsize       len,
                  gsize       cap)
{
  const guchar *p = (const guchar *) str;
  const guchar *end = p + len;
  gsize count = 0;

  while (end - p >= 8 && count < cap)
    {
      guint64 word;
      guint64 continuations;

      memcpy (&word, p, sizeof word);
      continuations = (word & ~(word << 1) & G_GUINT64_CONSTANT (0x8080808080808080)) >> 7;
      /* One bit at the bottom of each byte: the product sums them into
       * the top byte. */
      count += 8 - (gsize) ((continuations * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56);
      p += 8;
    }
  for (; p < end && count < cap; p++)
    count += (*p & 0xc0) != 0x80;
  return count;
}

/* minLength and maxLength, in characters. Strings are only measured when
 * one of them is there, and only as far as the bounds need: the byte
 * length alone settles a maxLength it does not exceed and a minLength it
 * does not reach. */
static gboolean
validate_length (const Keywords *schema,
                 const char     *str,
                 Failure        *failure)
{
  double min = 0, max = 0;
  gboolean has_min = number_keyword (schema->min_length, &min);
  gboolean has_max = number_keyword (schema->max_length, &max);
  gsize len;
  gsize count;
  gsize cap;

  if (!has_min && !has_max)
    return TRUE;

  len = strlen (str);
  /* At most one character per byte. */
  if (has_min && len < min)
    return fail (failure, _("is shorter than %g characters"), min);
  if (!has_min && len <= max)
    return TRUE;

  cap = MAX (has_min ? length_decided_at (min, TRUE) : 0, has_max ? length_decided_at (max, FALSE) : 0);
  count = count_characters (str, len, cap);
  if (has_min && count < min)
    return fail (failure, _("is shorter than %g characters"), min);
  if (has_max && count > max)
    return fail (failure, _("is longer than %g characters"), max);
  return TRUE;
}

static gboolean
validate_combinations (const Keywords *schema,
                       JsonNode       *instance,
                       guint           depth,
                       Failure        *failure)
{
  JsonNode *all = schema->all_of;
  JsonNode *any = schema->any_of;
  JsonNode *one = schema->one_of;
  JsonNode *not = schema->not_schema;

  if (all != NULL && JSON_NODE_HOLDS_ARRAY (all))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (all)); i++)
      if (!validate (json_array_get_element (json_node_get_array (all), i), instance, depth + 1, failure))
        return FALSE;

  /* The branches of anyOf, oneOf and not are tried on the side: their
   * failures are not the answer's. */
  if (any != NULL && JSON_NODE_HOLDS_ARRAY (any))
    {
      gboolean matched = FALSE;

      for (guint i = 0; !matched && i < json_array_get_length (json_node_get_array (any)); i++)
        matched = snodo_schema_validate (json_array_get_element (json_node_get_array (any), i), instance, NULL);
      if (!matched && json_array_get_length (json_node_get_array (any)) > 0)
        return fail (failure, _("matches none of the alternatives (anyOf)"));
    }
  if (one != NULL && JSON_NODE_HOLDS_ARRAY (one))
    {
      guint matched = 0;

      for (guint i = 0; i < json_array_get_length (json_node_get_array (one)); i++)
        matched += snodo_schema_validate (json_array_get_element (json_node_get_array (one), i), instance, NULL);
      if (matched != 1 && json_array_get_length (json_node_get_array (one)) > 0)
        return fail (failure, _("matches %u of the alternatives, not exactly one (oneOf)"), matched);
    }
  if (not != NULL && snodo_schema_validate (not, instance, NULL))
    return fail (failure, _("matches a schema it must not match (not)"));
  return TRUE;
}

static gboolean
validate (JsonNode *schema_node,
          JsonNode *instance,
          guint     depth,
          Failure  *failure)
{
  Keywords keywords;
  const Keywords *schema = &keywords;

  if (JSON_NODE_HOLDS_VALUE (schema_node) && json_node_get_value_type (schema_node) == G_TYPE_BOOLEAN)
    return json_node_get_boolean (schema_node) || fail (failure, _("is not allowed"));
  if (!JSON_NODE_HOLDS_OBJECT (schema_node) || depth > MAX_DEPTH)
    return TRUE;
  keywords_init (&keywords, json_node_get_object (schema_node));

  if (schema->type != NULL && !validate_type (schema->type, instance, failure))
    return FALSE;

  if (schema->const_value != NULL && !json_equal (schema->const_value, instance))
    return fail (failure, _("is not the value allowed"));

  if (schema->enum_values != NULL && JSON_NODE_HOLDS_ARRAY (schema->enum_values))
    {
      JsonArray *values = json_node_get_array (schema->enum_values);
      gboolean found = FALSE;

      for (guint i = 0; !found && i < json_array_get_length (values); i++)
        found = json_equal (json_array_get_element (values, i), instance);
      if (!found)
        return fail (failure, _("is not one of the values allowed"));
    }

  if (JSON_NODE_HOLDS_OBJECT (instance) &&
      !validate_object (schema, json_node_get_object (instance), depth, failure))
    return FALSE;
  if (JSON_NODE_HOLDS_ARRAY (instance) &&
      !validate_array (schema, json_node_get_array (instance), depth, failure))
    return FALSE;
  if (snodo_json_node_is_number (instance) && !validate_number (schema, number_of (instance), failure))
    return FALSE;
  if (snodo_json_node_is_string (instance) && !validate_length (schema, json_node_get_string (instance), failure))
    return FALSE;

  return validate_combinations (schema, instance, depth, failure);
}

/*
 * The fast path. Most tool schemas are an object of typed properties with
 * a required list: checking one walked the schema's hash tables on every
 * call. A sealed schema (tools seal theirs) cannot change, so it is read
 * once into a Compiled: the type of the instance as a set of bits, and
 * the names of properties and required members with the type each member
 * must have. The fast path only ever says "valid": whatever it does not
 * accept (or a schema it does not model) goes to validate(), which then
 * says why, exactly as it always did.
 */

enum
{
  TYPE_OBJECT  = 1 << 0,
  TYPE_ARRAY   = 1 << 1,
  TYPE_NULL    = 1 << 2,
  TYPE_STRING  = 1 << 3,
  TYPE_BOOLEAN = 1 << 4,
  TYPE_NUMBER  = 1 << 5,
  TYPE_INTEGER = 1 << 6,
  /* No constraint on the type. */
  TYPE_ANY     = 1 << 7,
};

/* What a (sub)schema asks of a value: a type in @types, and when
 * @complex is set, that validate() accepts it against @complex. */
typedef struct
{
  guint     types;
  JsonNode *complex;
} Check;

/* The number of member names a Compiled holds (bits of a guint64). */
#define FAST_NAMES_MAX 64

typedef struct
{
  /* Borrowed from the schema, which the Compiled holds. */
  const char *name;
  gboolean    is_property;
  Check       check;
} FastName;

typedef struct
{
  /* A reference: the schema cannot go, nor another take its address,
   * while it is in the cache. */
  JsonNode *schema;
  /* FALSE: the schema is not modelled; validate() checks everything. */
  gboolean  fast;
  guint     types;
  guint     n_names;
  guint64   required;
  gboolean  has_additional;
  Check     additional;
  FastName  names[FAST_NAMES_MAX];
} Compiled;

static guint
type_bit (const char *name)
{
  if (g_str_equal (name, "object"))
    return TYPE_OBJECT;
  if (g_str_equal (name, "array"))
    return TYPE_ARRAY;
  if (g_str_equal (name, "null"))
    return TYPE_NULL;
  if (g_str_equal (name, "string"))
    return TYPE_STRING;
  if (g_str_equal (name, "boolean"))
    return TYPE_BOOLEAN;
  if (g_str_equal (name, "number"))
    return TYPE_NUMBER;
  if (g_str_equal (name, "integer"))
    return TYPE_INTEGER;
  return TYPE_ANY;
}

/* The types validate_type() accepts for @type. */
static guint
compile_type (JsonNode *type)
{
  guint types = 0;

  if (type == NULL)
    return TYPE_ANY;
  if (snodo_json_node_is_string (type))
    return type_bit (json_node_get_string (type));
  if (!JSON_NODE_HOLDS_ARRAY (type))
    return TYPE_ANY;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (type)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (type), i);

      types |= snodo_json_node_is_string (element) ? type_bit (json_node_get_string (element)) : TYPE_ANY;
    }
  /* An empty list accepts nothing. */
  return types;
}

/* The types of @instance, as has_type() sees them. */
static guint
instance_types (JsonNode *instance)
{
  GType type;

  switch (JSON_NODE_TYPE (instance))
    {
    case JSON_NODE_OBJECT:
      return TYPE_OBJECT;
    case JSON_NODE_ARRAY:
      return TYPE_ARRAY;
    case JSON_NODE_NULL:
      return TYPE_NULL;
    case JSON_NODE_VALUE:
      type = json_node_get_value_type (instance);
      if (type == G_TYPE_STRING)
        return TYPE_STRING;
      if (type == G_TYPE_BOOLEAN)
        return TYPE_BOOLEAN;
      if (type == G_TYPE_INT64)
        return TYPE_NUMBER | TYPE_INTEGER;
      if (type == G_TYPE_DOUBLE)
        {
          double d = json_node_get_double (instance);

          return TYPE_NUMBER | (isfinite (d) && d == floor (d) ? TYPE_INTEGER : 0);
        }
      return 0;
    default:
      return 0;
    }
}

/* Whether the keywords are at most type, properties, required and
 * additionalProperties. */
static gboolean
keywords_only_object (const Keywords *k)
{
  return k->const_value == NULL && k->enum_values == NULL && k->items == NULL &&
         k->min_items == NULL && k->max_items == NULL && k->min_length == NULL &&
         k->max_length == NULL && k->minimum == NULL && k->maximum == NULL &&
         k->exclusive_minimum == NULL && k->exclusive_maximum == NULL &&
         k->multiple_of == NULL && k->all_of == NULL && k->any_of == NULL &&
         k->one_of == NULL && k->not_schema == NULL;
}

/* What validate() asks of a value against @schema. */
static Check
compile_check (JsonNode *schema)
{
  Check check = { TYPE_ANY, NULL };
  Keywords k;

  if (JSON_NODE_HOLDS_VALUE (schema) && json_node_get_value_type (schema) == G_TYPE_BOOLEAN)
    {
      check.types = json_node_get_boolean (schema) ? TYPE_ANY : 0;
      return check;
    }
  if (!JSON_NODE_HOLDS_OBJECT (schema))
    return check;

  keywords_init (&k, json_node_get_object (schema));
  if (keywords_only_object (&k) && k.properties == NULL && k.required == NULL &&
      k.additional_properties == NULL)
    check.types = compile_type (k.type);
  else
    check.complex = schema;
  return check;
}

static int
compiled_find (const Compiled *c,
               const char     *name)
{
  for (guint i = 0; i < c->n_names; i++)
    if (c->names[i].name[0] == name[0] && strcmp (c->names[i].name, name) == 0)
      return (int) i;
  return -1;
}

static void
compiled_free (gpointer data)
{
  Compiled *c = data;

  json_node_unref (c->schema);
}

static Compiled *
compile (JsonNode *schema)
{
  Compiled *c = g_atomic_rc_box_new0 (Compiled);
  JsonNode *properties;
  JsonNode *required;
  Keywords k;

  c->schema = json_node_ref (schema);
  if (!JSON_NODE_HOLDS_OBJECT (schema))
    return c;

  keywords_init (&k, json_node_get_object (schema));
  if (!keywords_only_object (&k))
    return c;
  c->types = compile_type (k.type);

  properties = k.properties;
  if (properties != NULL && JSON_NODE_HOLDS_OBJECT (properties))
    {
      JsonObjectIter iter;
      const char *name;
      JsonNode *member;

      json_object_iter_init (&iter, json_node_get_object (properties));
      while (json_object_iter_next (&iter, &name, &member))
        {
          if (c->n_names == FAST_NAMES_MAX)
            return c;
          c->names[c->n_names].name = name;
          c->names[c->n_names].is_property = TRUE;
          c->names[c->n_names].check = compile_check (member);
          c->n_names++;
        }
    }

  required = k.required;
  if (required != NULL && JSON_NODE_HOLDS_ARRAY (required))
    for (guint i = 0; i < json_array_get_length (json_node_get_array (required)); i++)
      {
        JsonNode *element = json_array_get_element (json_node_get_array (required), i);
        int index;

        if (!snodo_json_node_is_string (element))
          continue;
        index = compiled_find (c, json_node_get_string (element));
        if (index < 0)
          {
            if (c->n_names == FAST_NAMES_MAX)
              return c;
            index = (int) c->n_names++;
            c->names[index].name = json_node_get_string (element);
          }
        c->required |= G_GUINT64_CONSTANT (1) << index;
      }

  if (k.additional_properties != NULL)
    {
      c->has_additional = TRUE;
      c->additional = compile_check (k.additional_properties);
    }

  c->fast = TRUE;
  return c;
}

/* Schemas read lately, by address: each slot holds the last one whose
 * address falls there. Bounded: at most CACHE_SLOTS schemas are kept
 * alive after their owners let go of them. */
#define CACHE_SLOTS 16

static GMutex cache_lock;
static Compiled *cache[CACHE_SLOTS];

static Compiled *
compiled_get (JsonNode *schema)
{
  guint slot = (guint) ((((guintptr) schema) >> 4) * 2654435761u >> 8) % CACHE_SLOTS;
  Compiled *c;
  Compiled *old;

  g_mutex_lock (&cache_lock);
  c = cache[slot];
  if (c != NULL && c->schema == schema)
    {
      c = g_atomic_rc_box_acquire (c);
      g_mutex_unlock (&cache_lock);
      return c;
    }
  g_mutex_unlock (&cache_lock);

  c = compile (schema);
  g_mutex_lock (&cache_lock);
  old = cache[slot];
  cache[slot] = g_atomic_rc_box_acquire (c);
  g_mutex_unlock (&cache_lock);
  if (old != NULL)
    g_atomic_rc_box_release_full (old, compiled_free);
  return c;
}

static gboolean
check_passes (const Check *check,
              JsonNode    *value)
{
  Failure failure = { NULL, NULL };
  gboolean valid;

  if (!(check->types & TYPE_ANY) && !(check->types & instance_types (value)))
    return FALSE;
  if (check->complex == NULL)
    return TRUE;
  /* As validate_object() checks a member: one level down. */
  valid = validate (check->complex, value, 1, &failure);
  if (failure.path != NULL)
    g_string_free (failure.path, TRUE);
  g_free (failure.message);
  return valid;
}

/* The members of an object @instance, by the compiled schema. */
static gboolean
fast_valid_members (const Compiled *c,
                    JsonObject     *instance)
{
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  guint64 seen = 0;
  guint n;

  /* In any order: only a failure's message depends on it. */
  n = json_object_get_size (instance);
  json_object_iter_init (&iter, instance);
  /* As many as there are: the last call to find there is none walks the
   * rest of the table. */
  for (guint i = 0; i < n && json_object_iter_next (&iter, &name, &member); i++)
    {
      int index = compiled_find (c, name);

      if (index >= 0)
        seen |= G_GUINT64_CONSTANT (1) << index;
      if (index >= 0 && c->names[index].is_property)
        {
          if (!check_passes (&c->names[index].check, member))
            return FALSE;
        }
      else if (c->has_additional && !check_passes (&c->additional, member))
        return FALSE;
    }
  return (seen & c->required) == c->required;
}

/* TRUE when @instance is valid against the compiled schema; FALSE when
 * it is not, or when the fast path cannot tell. */
static gboolean
fast_valid (const Compiled *c,
            JsonNode       *instance)
{
  if (!c->fast)
    return FALSE;
  if (!(c->types & TYPE_ANY) && !(c->types & instance_types (instance)))
    return FALSE;
  if (!JSON_NODE_HOLDS_OBJECT (instance))
    return TRUE;
  return fast_valid_members (c, json_node_get_object (instance));
}

gboolean
snodo_schema_validate (JsonNode  *schema,
                       JsonNode  *instance,
                       GError   **error)
{
  Failure failure = { NULL, NULL };
  gboolean valid;

  /* Sealed schemas cannot change: read once, they are checked fast. */
  if (json_node_is_immutable (schema))
    {
      Compiled *c = compiled_get (schema);

      valid = fast_valid (c, instance);
      g_atomic_rc_box_release_full (c, compiled_free);
      if (valid)
        return TRUE;
    }

  valid = validate (schema, instance, 0, &failure);
  if (!valid)
    g_set_error (error, SNODO_RPC_ERROR, SNODO_RPC_ERROR_INVALID_PARAMS, "%s%s%s",
                 failure.path != NULL ? failure.path->str : "", failure.path != NULL ? ": " : "",
                 failure.message ? failure.message : _("is not valid"));
  if (failure.path != NULL)
    g_string_free (failure.path, TRUE);
  g_free (failure.message);
  return valid;
}

/* snodo_schema_validate() of the object @instance, which a valid one
 * (the usual tool arguments) never has to be put in a node for. */
gboolean
snodo_schema_validate_object (JsonNode    *schema,
                              JsonObject  *instance,
                              GError     **error)
{
  g_autoptr(JsonNode) node = NULL;

  if (json_node_is_immutable (schema))
    {
      Compiled *c = compiled_get (schema);
      gboolean valid = c->fast && ((c->types & TYPE_ANY) || (c->types & TYPE_OBJECT)) &&
                       fast_valid_members (c, instance);

      g_atomic_rc_box_release_full (c, compiled_free);
      if (valid)
        return TRUE;
    }

  node = json_node_init_object (json_node_alloc (), instance);
  return snodo_schema_validate (schema, node, error);
}
