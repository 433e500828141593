/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The snodo command's options for its client of a server: --header,
 * --bearer-token-file, --cacert (with an HTTP server) and
 * --request-timeout, checked before a client is made and applied to it;
 * and the sign-in to an HTTP server (--client-id and the rest). */

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

/* The sign-in URL: on standard error, and in the browser when there is
 * one (a display, or no X11/Wayland to ask about). Handled either way:
 * the user may open it by hand. */
static gboolean
cli_authorize_cb (SnodoClientOAuth *oauth,
                  const char       *url,
                  SnodoClient      *client)
{
  g_autoptr(GError) error = NULL;
  gboolean display = TRUE;

#if defined(G_OS_UNIX) && !defined(__APPLE__)
  display = g_getenv ("DISPLAY") != NULL || g_getenv ("WAYLAND_DISPLAY") != NULL;
#endif
  g_printerr ("snodo: sign in to %s at %s\n", snodo_client_get_uri (client), url);
  if (display && snodo_client_oauth_get_open_browser (oauth) &&
      !g_app_info_launch_default_for_uri (url, NULL, &error))
    g_printerr ("snodo: could not open a browser: %s\n", error->message);
  return TRUE;
}

gboolean
snodo_cli_has_own_authorization (GVariantDict *options)
{
  g_autofree const char **headers = NULL;
  const char *token_file = NULL;

  if (g_variant_dict_lookup (options, "bearer-token-file", "^&ay", &token_file))
    return TRUE;
  if (g_variant_dict_lookup (options, "header", "^a&s", &headers))
    for (guint h = 0; headers[h] != NULL; h++)
      if (g_ascii_strncasecmp (headers[h], "Authorization:", strlen ("Authorization:")) == 0)
        return TRUE;
  return FALSE;
}

gboolean
snodo_cli_set_up_oauth (SnodoClient   *client,
                        GVariantDict  *options,
                        GError       **error)
{
  g_autoptr(SnodoClientOAuth) oauth = snodo_client_oauth_new ();
  g_autoptr(SnodoCredentialStore) store = NULL;
  const char *client_id = NULL;
  const char *secret_file = NULL;
  const char *directory = NULL;
  g_autofree char *secret = NULL;
  gboolean flag = FALSE;

  if (g_variant_dict_lookup (options, "client-secret-file", "^&ay", &secret_file))
    {
      if (!g_file_get_contents (secret_file, &secret, NULL, error))
        return FALSE;
      g_strstrip (secret);
    }
  if (g_variant_dict_lookup (options, "client-id", "&s", &client_id))
    snodo_client_oauth_set_client (oauth, client_id, secret);
  if (g_variant_dict_lookup (options, "client-credentials", "b", &flag) && flag)
    {
      if (client_id == NULL || secret == NULL)
        {
          g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                               "--client-credentials needs --client-id and --client-secret-file");
          return FALSE;
        }
      snodo_client_oauth_set_client_credentials (oauth, TRUE);
    }
  if (g_variant_dict_lookup (options, "no-browser", "b", &flag) && flag)
    snodo_client_oauth_set_open_browser (oauth, FALSE);
  if (g_variant_dict_lookup (options, "credentials-dir", "^&ay", &directory))
    store = snodo_credential_store_new_file (directory);
  else
    store = snodo_credential_store_new_default ();
  snodo_client_oauth_set_store (oauth, store);
  /* The client holds the sign-in, which does not outlive it. */
  g_signal_connect (oauth, "authorize", G_CALLBACK (cli_authorize_cb), client);
  snodo_client_set_oauth (client, oauth);
  return TRUE;
}
