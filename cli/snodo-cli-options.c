/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The snodo command's options for its client of a server: --header,
 * --bearer-token-file, --cacert (with an HTTP server) and
 * --request-timeout, checked before a client is made and applied to it. */

#include "config.h"

#include <string.h>

#include "snodo-cli.h"

static gboolean
cli_read_token (const char  *file,
                char       **token,
                GError     **error)
{
  g_autofree char *contents = NULL;

  if (!g_file_get_contents (file, &contents, NULL, error))
    return FALSE;
  g_strstrip (contents);
  if (*contents == '\0' || strpbrk (contents, "\r\n") != NULL)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "%s holds no token on one line", file);
      return FALSE;
    }
  *token = g_steal_pointer (&contents);
  return TRUE;
}

gboolean
snodo_cli_check_client_options (GVariantDict  *options,
                                gboolean       http,
                                GError       **error)
{
  g_autofree const char **headers = NULL;
  const char *token_file = NULL;
  const char *ca_file = NULL;
  const char *timeout_string = NULL;
  g_autofree char *token = NULL;
  g_autoptr(GTlsDatabase) ca_database = NULL;

  if (g_variant_dict_lookup (options, "header", "^a&s", &headers))
    for (guint h = 0; headers[h] != NULL; h++)
      {
        const char *colon = strchr (headers[h], ':');

        if (colon == NULL || colon == headers[h])
          {
            g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                                 "--header needs NAME: VALUE (see snodo --help)");
            return FALSE;
          }
      }
  if (g_variant_dict_lookup (options, "bearer-token-file", "^&ay", &token_file) &&
      !cli_read_token (token_file, &token, error))
    return FALSE;
  if (g_variant_dict_lookup (options, "cacert", "^&ay", &ca_file))
    {
      ca_database = g_tls_file_database_new (ca_file, error);
      if (ca_database == NULL)
        {
          g_prefix_error (error, "--cacert: ");
          return FALSE;
        }
    }
  if (!http && (headers != NULL || token_file != NULL || ca_file != NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--header, --bearer-token-file and --cacert go with --http or a proxy's URL (see snodo --help)");
      return FALSE;
    }
  if (g_variant_dict_lookup (options, "request-timeout", "&s", &timeout_string) &&
      !g_ascii_string_to_unsigned (timeout_string, 10, 0, G_MAXUINT, NULL, NULL))
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           "--request-timeout needs a number of milliseconds (see snodo --help)");
      return FALSE;
    }
  return TRUE;
}

gboolean
snodo_cli_apply_client_options (SnodoClient   *client,
                                GVariantDict  *options,
                                GError       **error)
{
  g_autofree const char **headers = NULL;
  const char *token_file = NULL;
  const char *ca_file = NULL;
  const char *timeout_string = NULL;

  if (g_variant_dict_lookup (options, "header", "^a&s", &headers))
    for (guint h = 0; headers[h] != NULL; h++)
      {
        const char *colon = strchr (headers[h], ':');
        g_autofree char *name = NULL;
        g_autofree char *value = NULL;

        if (colon == NULL)
          continue;
        name = g_strstrip (g_strndup (headers[h], colon - headers[h]));
        value = g_strstrip (g_strdup (colon + 1));
        snodo_client_set_http_header (client, name, value);
      }
  if (g_variant_dict_lookup (options, "cacert", "^&ay", &ca_file))
    {
      g_autoptr(GTlsDatabase) ca_database = g_tls_file_database_new (ca_file, error);

      if (ca_database == NULL)
        return FALSE;
      snodo_client_set_tls_database (client, ca_database);
    }
  if (g_variant_dict_lookup (options, "bearer-token-file", "^&ay", &token_file))
    {
      g_autofree char *token = NULL;
      g_autofree char *value = NULL;

      if (!cli_read_token (token_file, &token, error))
        return FALSE;
      value = g_strconcat ("Bearer ", token, NULL);
      snodo_client_set_http_header (client, "Authorization", value);
    }
  if (g_variant_dict_lookup (options, "request-timeout", "&s", &timeout_string))
    {
      guint64 value;

      if (g_ascii_string_to_unsigned (timeout_string, 10, 0, G_MAXUINT, &value, NULL))
        snodo_client_set_request_timeout (client, (guint) value);
    }
  return TRUE;
}
