/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo call on a terminal: the server's elicitation/create answered by
 * the user. The message is shown, the user accepts, declines or cancels;
 * to accept a form, each field of the requested schema is asked for in
 * turn (its title, description, type, choices and default shown), and
 * checked; to accept a URL, the user says they visited it. Prompts go to
 * standard error, so that standard output holds only the result; the end
 * of standard input cancels. */

#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#ifdef G_OS_UNIX
# include <unistd.h>
#endif
#ifdef G_OS_WIN32
# include <io.h>
#endif

#include <snodo/snodo.h>

#include "snodo-cli.h"

gboolean
snodo_cli_stdin_is_terminal (void)
{
#ifdef G_OS_WIN32
  return _isatty (_fileno (stdin)) != 0;
#else
  return isatty (STDIN_FILENO) != 0;
#endif
}

/* A line of standard input without its end, or NULL at its end. */
static char *
read_line (void)
{
  GString *line = g_string_new (NULL);
  char buffer[256];

  fflush (stderr);
  while (fgets (buffer, sizeof buffer, stdin) != NULL)
    {
      g_string_append (line, buffer);
      if (line->len > 0 && line->str[line->len - 1] == '\n')
        break;
    }
  if (line->len == 0)
    {
      g_string_free (line, TRUE);
      return NULL;
    }
  while (line->len > 0 && (line->str[line->len - 1] == '\n' || line->str[line->len - 1] == '\r'))
    g_string_truncate (line, line->len - 1);
  return g_string_free (line, FALSE);
}

typedef enum
{
  ANSWER_ACCEPT,
  ANSWER_DECLINE,
  ANSWER_CANCEL,
} Answer;

static Answer
ask_action (const char *question)
{
  for (;;)
    {
      g_autofree char *line = NULL;

      g_printerr ("%s [a]ccept, [d]ecline or [c]ancel: ", question);
      line = read_line ();
      if (line == NULL)
        {
          g_printerr ("\n");
          return ANSWER_CANCEL;
        }
      g_strstrip (line);
      if (g_ascii_strcasecmp (line, "a") == 0 || g_ascii_strcasecmp (line, "accept") == 0)
        return ANSWER_ACCEPT;
      if (g_ascii_strcasecmp (line, "d") == 0 || g_ascii_strcasecmp (line, "decline") == 0)
        return ANSWER_DECLINE;
      if (g_ascii_strcasecmp (line, "c") == 0 || g_ascii_strcasecmp (line, "cancel") == 0)
        return ANSWER_CANCEL;
    }
}

static const char *
string_member (JsonObject *object,
               const char *name)
{
  JsonNode *node = json_object_get_member (object, name);

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node) || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
is_required (JsonObject *schema,
             const char *name)
{
  JsonNode *required = json_object_get_member (schema, "required");

  if (required == NULL || !JSON_NODE_HOLDS_ARRAY (required))
    return FALSE;
  for (guint i = 0; i < json_array_get_length (json_node_get_array (required)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (required), i);

      if (JSON_NODE_HOLDS_VALUE (element) && json_node_get_value_type (element) == G_TYPE_STRING &&
          g_str_equal (json_node_get_string (element), name))
        return TRUE;
    }
  return FALSE;
}

/* The choices of an enum field: `enum`, or `oneOf`/`anyOf` of `const`
 * with their titles (titled single choice); NULL when not one. */
static JsonArray *
field_choices (JsonObject *field,
               JsonArray **titles)
{
  JsonNode *node = json_object_get_member (field, "enum");
  JsonArray *choices;

  *titles = NULL;
  if (node != NULL && JSON_NODE_HOLDS_ARRAY (node))
    return json_array_ref (json_node_get_array (node));
  node = json_object_get_member (field, "oneOf");
  if (node == NULL)
    node = json_object_get_member (field, "anyOf");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return NULL;
  choices = json_array_new ();
  *titles = json_array_new ();
  for (guint i = 0; i < json_array_get_length (json_node_get_array (node)); i++)
    {
      JsonNode *element = json_array_get_element (json_node_get_array (node), i);
      JsonNode *value;

      if (!JSON_NODE_HOLDS_OBJECT (element))
        continue;
      value = json_object_get_member (json_node_get_object (element), "const");
      if (value == NULL)
        continue;
      json_array_add_element (choices, json_node_copy (value));
      json_array_add_string_element (*titles, string_member (json_node_get_object (element), "title") != NULL
                                              ? string_member (json_node_get_object (element), "title")
                                              : "");
    }
  return choices;
}

/* @text as a value of @type; NULL when it is not one. */
static JsonNode *
parse_value (const char *type,
             const char *text)
{
  if (g_strcmp0 (type, "boolean") == 0)
    {
      if (g_ascii_strcasecmp (text, "y") == 0 || g_ascii_strcasecmp (text, "yes") == 0 ||
          g_ascii_strcasecmp (text, "true") == 0)
        return json_node_init_boolean (json_node_alloc (), TRUE);
      if (g_ascii_strcasecmp (text, "n") == 0 || g_ascii_strcasecmp (text, "no") == 0 ||
          g_ascii_strcasecmp (text, "false") == 0)
        return json_node_init_boolean (json_node_alloc (), FALSE);
      return NULL;
    }
  if (g_strcmp0 (type, "integer") == 0)
    {
      gint64 value;

      if (!g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, &value, NULL))
        return NULL;
      return json_node_init_int (json_node_alloc (), value);
    }
  if (g_strcmp0 (type, "number") == 0)
    {
      char *end = NULL;
      double value;

      errno = 0;
      value = g_ascii_strtod (text, &end);
      if (text[0] == '\0' || end == NULL || *end != '\0' || errno != 0)
        return NULL;
      return json_node_init_double (json_node_alloc (), value);
    }
  return json_node_init_string (json_node_alloc (), text);
}

/* Asks for one field; FALSE when standard input ended. */
static gboolean
ask_field (JsonObject *content,
           const char *name,
           JsonObject *field,
           gboolean    required)
{
  const char *type = string_member (field, "type");
  const char *title = string_member (field, "title");
  const char *description = string_member (field, "description");
  JsonNode *fallback = json_object_get_member (field, "default");
  g_autoptr(JsonArray) titles = NULL;
  g_autoptr(JsonArray) choices = field_choices (field, &titles);
  g_autofree char *fallback_text = fallback != NULL ? json_to_string (fallback, FALSE) : NULL;

  g_printerr ("%s%s%s%s\n", title != NULL ? title : name, description != NULL ? ": " : "",
              description != NULL ? description : "", required ? " (required)" : "");
  if (choices != NULL)
    for (guint i = 0; i < json_array_get_length (choices); i++)
      {
        g_autofree char *value = json_to_string (json_array_get_element (choices, i), FALSE);
        const char *choice_title = titles != NULL ? json_array_get_string_element (titles, i) : "";

        g_printerr ("  %u) %s%s%s\n", i + 1, value, choice_title[0] != '\0' ? "  " : "", choice_title);
      }
  for (;;)
    {
      g_autofree char *line = NULL;
      g_autoptr(JsonNode) value = NULL;

      g_printerr ("  %s%s%s%s%s: ", name,
                  choices != NULL ? " (number or value)" :
                  g_strcmp0 (type, "boolean") == 0 ? " [y/n]" :
                  g_strcmp0 (type, "integer") == 0 ? " (integer)" :
                  g_strcmp0 (type, "number") == 0 ? " (number)" : "",
                  fallback_text != NULL ? " [" : "", fallback_text != NULL ? fallback_text : "",
                  fallback_text != NULL ? "]" : "");
      line = read_line ();
      if (line == NULL)
        {
          g_printerr ("\n");
          return FALSE;
        }
      if (line[0] == '\0')
        {
          if (fallback != NULL)
            {
              json_object_set_member (content, name, json_node_copy (fallback));
              return TRUE;
            }
          if (!required)
            return TRUE;
          g_printerr ("  A value is required.\n");
          continue;
        }
      if (choices != NULL)
        {
          guint64 number;

          if (g_ascii_string_to_unsigned (line, 10, 1, json_array_get_length (choices), &number, NULL))
            value = json_node_copy (json_array_get_element (choices, (guint) number - 1));
          else
            for (guint i = 0; i < json_array_get_length (choices) && value == NULL; i++)
              {
                JsonNode *choice = json_array_get_element (choices, i);

                if (JSON_NODE_HOLDS_VALUE (choice) && json_node_get_value_type (choice) == G_TYPE_STRING &&
                    g_str_equal (json_node_get_string (choice), line))
                  value = json_node_copy (choice);
              }
          if (value == NULL)
            {
              g_printerr ("  Not one of the choices.\n");
              continue;
            }
        }
      else
        {
          value = parse_value (type, line);
          if (value == NULL)
            {
              g_printerr ("  Not a valid %s.\n", type != NULL ? type : "value");
              continue;
            }
        }
      json_object_set_member (content, name, g_steal_pointer (&value));
      return TRUE;
    }
}

static gboolean
elicit_cb (SnodoClient        *client,
           SnodoServerRequest *request,
           gpointer            user_data)
{
  JsonObject *params = snodo_server_request_get_params (request);
  const char *mode = params != NULL ? string_member (params, "mode") : NULL;
  const char *message = params != NULL ? string_member (params, "message") : NULL;
  g_autoptr(JsonObject) result = json_object_new ();
  g_autoptr(JsonObject) content = json_object_new ();
  Answer answer;

  g_printerr ("\nThe server asks: %s\n", message != NULL ? message : "(no message)");
  if (g_strcmp0 (mode, "url") == 0)
    {
      const char *url = string_member (params, "url");

      g_printerr ("Open %s\n", url != NULL ? url : "(no URL)");
      answer = ask_action ("Once visited:");
    }
  else
    {
      JsonNode *schema_node = json_object_get_member (params, "requestedSchema");
      JsonObject *schema = schema_node != NULL && JSON_NODE_HOLDS_OBJECT (schema_node)
                           ? json_node_get_object (schema_node) : NULL;
      JsonNode *properties = schema != NULL ? json_object_get_member (schema, "properties") : NULL;

      answer = ask_action ("Answer?");
      if (answer == ANSWER_ACCEPT && properties != NULL && JSON_NODE_HOLDS_OBJECT (properties))
        {
          g_autoptr(GList) names = json_object_get_members (json_node_get_object (properties));

          for (GList *l = names; l != NULL; l = l->next)
            {
              JsonNode *field = json_object_get_member (json_node_get_object (properties), l->data);

              if (!JSON_NODE_HOLDS_OBJECT (field))
                continue;
              if (!ask_field (content, l->data, json_node_get_object (field), is_required (schema, l->data)))
                {
                  answer = ANSWER_CANCEL;
                  break;
                }
            }
        }
      if (answer == ANSWER_ACCEPT)
        json_object_set_object_member (result, "content", g_steal_pointer (&content));
    }
  json_object_set_string_member (result, "action",
                                 answer == ANSWER_ACCEPT ? "accept" : answer == ANSWER_DECLINE ? "decline" : "cancel");
  snodo_server_request_return_result (request, result);
  return TRUE;
}

void
snodo_cli_elicit_install (SnodoClient *client)
{
  g_autoptr(JsonObject) capabilities = json_object_new ();
  JsonObject *elicitation = json_object_new ();

  json_object_set_object_member (elicitation, "form", json_object_new ());
  json_object_set_object_member (elicitation, "url", json_object_new ());
  json_object_set_object_member (capabilities, "elicitation", elicitation);
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "server-request::elicitation/create", G_CALLBACK (elicit_cb), NULL);
}
