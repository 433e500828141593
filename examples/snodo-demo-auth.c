/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo-demo's authorization: --bearer-token-file=FILE, a table of bearer
 * tokens, one a line:
 *
 *   TOKEN PRINCIPAL [SCOPE...]
 *
 * separated by spaces or tabs; empty lines and lines starting with # are
 * skipped. A request with one of these tokens is served as PRINCIPAL with
 * those scopes; any other token is refused. With it, the tool whoami says
 * who the caller is. --authorization-server (required: MCP's metadata
 * names at least one), --resource, --required-scopes and --tool-scope say
 * what the protected resource metadata and the challenges tell clients.
 *
 * --token-introspection=URL has the authorization server check the tokens
 * instead (RFC 7662: SnodoHttpAuthorization's introspection), authenticating
 * as --introspection-client-id with the secret in
 * --introspection-client-secret-file; with --bearer-token-file too, the
 * tokens of the file are accepted first and the others introspected. */

#include "config.h"

#include <string.h>

#include <snodo/snodo.h>

#include "snodo-demo-auth.h"

#if SNODO_HAS_HTTP_TRANSPORT

/* A token file of a demo, not a database. */
#define DEMO_TOKEN_FILE_MAX_BYTES (1024 * 1024)

const GOptionEntry demo_auth_entries[] = {
  { "bearer-token-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    "Require a bearer token on HTTP, one of those in FILE (lines of TOKEN PRINCIPAL SCOPE...)", "FILE" },
  { "authorization-server", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
    "The issuer URL of an authorization server whose tokens are accepted (may be repeated)", "URL" },
  { "resource", 0, 0, G_OPTION_ARG_STRING, NULL,
    "The resource identifier of the endpoint (default: its URL as each request names it)", "URL" },
  { "required-scopes", 0, 0, G_OPTION_ARG_STRING, NULL,
    "Scopes every request needs, separated by commas", "LIST" },
  { "tool-scope", 0, 0, G_OPTION_ARG_STRING_ARRAY, NULL,
    "A scope a call of TOOL needs (may be repeated)", "TOOL:SCOPE" },
  { "token-introspection", 0, 0, G_OPTION_ARG_STRING, NULL,
    "Require a bearer token on HTTP, checked at this token introspection endpoint (RFC 7662)", "URL" },
  { "introspection-client-id", 0, 0, G_OPTION_ARG_STRING, NULL,
    "The client id of the server at the introspection endpoint", "ID" },
  { "introspection-client-secret-file", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    "A file holding the client secret for the introspection endpoint", "FILE" },
  { NULL }
};

typedef struct
{
  char  *principal;
  char **scopes;
} DemoToken;

static void
demo_token_free (gpointer data)
{
  DemoToken *token = data;

  g_free (token->principal);
  g_strfreev (token->scopes);
  g_free (token);
}

static void
demo_tokens_free (gpointer  data,
                  GClosure *closure)
{
  g_hash_table_unref (data);
}

static gboolean
validate_token_cb (SnodoHttpAuthorization *authorization,
                   SnodoAuthRequest       *request,
                   GHashTable             *tokens)
{
  DemoToken *token = g_hash_table_lookup (tokens, snodo_auth_request_get_token (request));

  /* Not in the file: the introspection endpoint's, if there is one. */
  if (token == NULL && snodo_http_authorization_get_introspection_endpoint (authorization) != NULL)
    return FALSE;
  if (token == NULL)
    snodo_auth_request_refuse (request, "unknown token");
  else
    snodo_auth_request_accept (request, token->principal, (const char * const *) token->scopes);
  return TRUE;
}

static void
whoami_cb (SnodoInvocation *invocation,
           gpointer         user_data)
{
  const char * const *scopes = snodo_invocation_get_scopes (invocation);
  const char *principal = snodo_invocation_get_principal (invocation);
  g_autoptr(JsonNode) result = json_node_new (JSON_NODE_OBJECT);
  JsonObject *object = json_object_new ();
  JsonArray *array = json_array_new ();

  for (guint i = 0; scopes != NULL && scopes[i] != NULL; i++)
    json_array_add_string_element (array, scopes[i]);
  if (principal != NULL)
    json_object_set_string_member (object, "principal", principal);
  else
    json_object_set_null_member (object, "principal");
  json_object_set_array_member (object, "scopes", array);
  json_node_take_object (result, object);
  snodo_invocation_return_structured (invocation, result);
}

/* Reads @file into a new table of tokens; NULL with @error set (one
 * line, naming the option and the file). The tokens themselves are never
 * printed. */
static GHashTable *
demo_read_tokens (const char  *file,
                  GError     **error)
{
  g_autofree char *display = g_filename_display_name (file);
  g_autofree char *contents = NULL;
  g_autoptr(GHashTable) tokens = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, demo_token_free);
  g_autoptr(GError) read_error = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len = 0;

  if (!g_file_get_contents (file, &contents, &len, &read_error))
    {
      g_set_error (error, read_error->domain, read_error->code, "--bearer-token-file: %s", read_error->message);
      return NULL;
    }
  if (len > DEMO_TOKEN_FILE_MAX_BYTES || memchr (contents, '\0', len) != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "--bearer-token-file: “%s” is not a token file (a NUL byte, or more than %u bytes)",
                   display, (guint) DEMO_TOKEN_FILE_MAX_BYTES);
      return NULL;
    }
  lines = g_strsplit (contents, "\n", -1);
  memset (contents, 0, len);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;
      g_autoptr(GStrvBuilder) scopes = g_strv_builder_new ();
      DemoToken *token;
      const char *value = NULL;
      guint n = 0;

      g_strdelimit (lines[i], "\t\r", ' ');
      g_strstrip (lines[i]);
      if (lines[i][0] == '\0' || lines[i][0] == '#')
        continue;
      words = g_strsplit (lines[i], " ", -1);
      token = g_new0 (DemoToken, 1);
      for (guint j = 0; words[j] != NULL; j++)
        {
          if (words[j][0] == '\0')
            continue;
          if (n == 0)
            value = words[j];
          else if (n == 1)
            token->principal = g_strdup (words[j]);
          else
            g_strv_builder_add (scopes, words[j]);
          n++;
        }
      token->scopes = g_strv_builder_end (scopes);
      if (token->principal == NULL)
        {
          demo_token_free (token);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "--bearer-token-file: “%s”, line %u: a token needs a principal (TOKEN PRINCIPAL SCOPE...)",
                       display, i + 1);
          return NULL;
        }
      if (g_hash_table_contains (tokens, value))
        {
          demo_token_free (token);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       "--bearer-token-file: “%s”, line %u: the token is given twice", display, i + 1);
          return NULL;
        }
      g_hash_table_insert (tokens, g_strdup (value), token);
      for (guint j = 0; words[j] != NULL; j++)
        memset (words[j], 0, strlen (words[j]));
    }
  for (guint i = 0; lines[i] != NULL; i++)
    memset (lines[i], 0, strlen (lines[i]));
  if (g_hash_table_size (tokens) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   "--bearer-token-file: “%s” has no token", display);
      return NULL;
    }
  return g_steal_pointer (&tokens);
}

/* The token file and the table that validate-token reads, which a reload
 * refills in place. */
struct _DemoAuth
{
  char       *file;
  GHashTable *tokens;
};

void
demo_auth_free (DemoAuth *auth)
{
  g_free (auth->file);
  g_hash_table_unref (auth->tokens);
  g_free (auth);
}

GHashTable *
demo_auth_read (DemoAuth  *auth,
                GError   **error)
{
  return demo_read_tokens (auth->file, error);
}

void
demo_auth_replace (DemoAuth   *auth,
                   GHashTable *tokens)
{
  GHashTableIter iter;
  gpointer key, value;

  g_hash_table_remove_all (auth->tokens);
  g_hash_table_iter_init (&iter, tokens);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      g_hash_table_iter_steal (&iter);
      g_hash_table_insert (auth->tokens, key, value);
    }
}

const char *
demo_auth_get_file (DemoAuth *auth)
{
  return auth->file;
}

gboolean
demo_auth_wanted (GVariantDict *options)
{
  for (guint i = 0; demo_auth_entries[i].long_name != NULL; i++)
    if (g_variant_dict_contains (options, demo_auth_entries[i].long_name))
      return TRUE;
  return FALSE;
}

/* --token-introspection=@endpoint with its client id and secret; FALSE,
 * having said why, when they are wrong. The secret is never printed. */
static gboolean
demo_auth_introspection (GVariantDict           *options,
                         SnodoHttpAuthorization *authorization,
                         const char             *endpoint)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *secret = NULL;
  const char *client_id = NULL;
  const char *secret_file = NULL;
  gsize len = 0;
  gboolean ok;

  if (!g_variant_dict_lookup (options, "introspection-client-id", "&s", &client_id) || client_id[0] == '\0' ||
      !g_variant_dict_lookup (options, "introspection-client-secret-file", "^&ay", &secret_file))
    {
      g_printerr ("snodo-demo: --token-introspection needs --introspection-client-id and "
                  "--introspection-client-secret-file\n");
      return FALSE;
    }
  if (!g_file_get_contents (secret_file, &secret, &len, &error))
    {
      g_printerr ("snodo-demo: --introspection-client-secret-file: %s\n", error->message);
      return FALSE;
    }
  /* The first line, without its end. */
  if (memchr (secret, '\0', len) == NULL)
    secret[strcspn (secret, "\r\n")] = '\0';
  else
    secret[0] = '\0';
  if (secret[0] == '\0')
    {
      g_autofree char *display = g_filename_display_name (secret_file);

      memset (secret, 0, len);
      g_printerr ("snodo-demo: --introspection-client-secret-file: “%s” holds no secret\n", display);
      return FALSE;
    }
  ok = snodo_http_authorization_set_introspection (authorization, endpoint, client_id, secret, &error);
  memset (secret, 0, len);
  if (!ok)
    {
      g_printerr ("snodo-demo: --token-introspection: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
demo_auth_setup (GVariantDict             *options,
                 SnodoServer              *server,
                 SnodoHttpAuthorization  **out_authorization,
                 DemoAuth                **out_auth)
{
  g_autoptr(SnodoHttpAuthorization) authorization = NULL;
  g_autoptr(GHashTable) tokens = NULL;
  g_autoptr(GStrvBuilder) supported = g_strv_builder_new ();
  g_autoptr(SnodoTool) whoami = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) required = NULL;
  g_auto(GStrv) all = NULL;
  g_autofree const char **servers = NULL;
  g_autofree const char **tool_scopes = NULL;
  const char *file = NULL;
  const char *introspection = NULL;
  const char *resource = NULL;
  const char *text = NULL;

  g_variant_dict_lookup (options, "bearer-token-file", "^&ay", &file);
  g_variant_dict_lookup (options, "token-introspection", "&s", &introspection);
  if (file == NULL && introspection == NULL)
    {
      if (!demo_auth_wanted (options))
        return TRUE;
      g_printerr ("snodo-demo: --authorization-server, --resource, --required-scopes, --tool-scope and "
                  "--introspection-client-* need --bearer-token-file or --token-introspection\n");
      return FALSE;
    }

  authorization = snodo_http_authorization_new ();
  if (file != NULL && (tokens = demo_read_tokens (file, &error)) == NULL)
    {
      g_printerr ("snodo-demo: %s\n", error->message);
      return FALSE;
    }
  if (introspection != NULL && !demo_auth_introspection (options, authorization, introspection))
    return FALSE;

  if (g_variant_dict_lookup (options, "resource", "&s", &resource))
    {
      g_autoptr(GUri) uri = g_uri_parse (resource, G_URI_FLAGS_NONE, NULL);

      if (uri == NULL || g_uri_get_host (uri) == NULL || g_uri_get_fragment (uri) != NULL ||
          (!g_str_equal (g_uri_get_scheme (uri), "http") && !g_str_equal (g_uri_get_scheme (uri), "https")))
        {
          g_printerr ("snodo-demo: --resource needs an http or https URL without a "
                                               "fragment, not “%s”\n", resource);
          return FALSE;
        }
      snodo_http_authorization_set_resource (authorization, resource);
    }
  /* MCP: the metadata names at least one authorization server. */
  if (!g_variant_dict_lookup (options, "authorization-server", "^a&s", &servers) || servers[0] == NULL ||
      servers[0][0] == '\0')
    {
      g_printerr ("snodo-demo: %s needs --authorization-server: "
                  "the metadata must name where clients get tokens\n",
                  file != NULL ? "--bearer-token-file" : "--token-introspection");
      return FALSE;
    }
  snodo_http_authorization_set_authorization_servers (authorization, servers);
  if (g_variant_dict_lookup (options, "required-scopes", "&s", &text))
    {
      g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
      g_auto(GStrv) items = g_strsplit (text, ",", -1);

      for (guint i = 0; items[i] != NULL; i++)
        {
          g_strstrip (items[i]);
          if (items[i][0] != '\0')
            {
              g_strv_builder_add (builder, items[i]);
              g_strv_builder_add (supported, items[i]);
            }
        }
      required = g_strv_builder_end (builder);
      snodo_http_authorization_set_required_scopes (authorization, (const char * const *) required);
    }
  if (g_variant_dict_lookup (options, "tool-scope", "^a&s", &tool_scopes))
    for (guint i = 0; tool_scopes[i] != NULL; i++)
      {
        const char *colon = strchr (tool_scopes[i], ':');
        g_autofree char *tool = NULL;
        g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
        g_auto(GStrv) scopes = NULL;
        const char * const *had;

        if (colon == NULL || colon == tool_scopes[i] || colon[1] == '\0')
          {
            g_printerr ("snodo-demo: --tool-scope needs TOOL:SCOPE, not “%s”\n",
                                                 tool_scopes[i]);
            return FALSE;
          }
        tool = g_strndup (tool_scopes[i], colon - tool_scopes[i]);
        had = snodo_http_authorization_get_tool_scopes (authorization, tool);
        if (had != NULL)
          g_strv_builder_addv (builder, (const char **) had);
        g_strv_builder_add (builder, colon + 1);
        g_strv_builder_add (supported, colon + 1);
        scopes = g_strv_builder_end (builder);
        snodo_http_authorization_require_tool_scopes (authorization, tool, (const char * const *) scopes);
      }
  all = g_strv_builder_end (supported);
  if (all[0] != NULL)
    snodo_http_authorization_set_scopes_supported (authorization, (const char * const *) all);
  snodo_http_authorization_set_resource_name (authorization, "Snodo demo");

  if (tokens != NULL)
    {
      *out_auth = g_new0 (DemoAuth, 1);
      (*out_auth)->file = g_strdup (file);
      (*out_auth)->tokens = g_hash_table_ref (tokens);
      g_signal_connect_data (authorization, "validate-token", G_CALLBACK (validate_token_cb),
                             g_steal_pointer (&tokens), demo_tokens_free, 0);
    }
  *out_authorization = g_steal_pointer (&authorization);

  whoami = snodo_tool_new ("whoami", "Says who the caller is: the principal and scopes of its bearer token");
  if (!snodo_tool_set_input_schema_from_string (whoami, "{\"type\":\"object\",\"properties\":{}}", &error) ||
      !snodo_tool_set_output_schema_from_string (whoami,
                                                 "{\"type\":\"object\",\"properties\":{\"principal\":"
                                                 "{\"type\":[\"string\",\"null\"]},\"scopes\":{\"type\":\"array\","
                                                 "\"items\":{\"type\":\"string\"}}},\"required\":[\"principal\","
                                                 "\"scopes\"]}", &error) ||
      !snodo_server_add_tool (server, whoami, whoami_cb, NULL, NULL, &error))
    g_error ("whoami: %s", error->message);
  return TRUE;
}

#endif
