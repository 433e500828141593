/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * snodo-demo over HTTP reloads on SIGHUP, as daemons do: it reads the
 * bearer tokens of --bearer-token-file and the certificate of
 * --tls-certificate and --tls-key again and serves with them from then
 * on, without a restart: sessions and connections are kept (a
 * connection already open keeps the certificate it began with; a token
 * taken out of the file is refused from its next request). One line on
 * standard error says what was reloaded; when a file does not read, it
 * says why, and the server keeps both the tokens and the certificate it
 * had.
 */

#include "config.h"

#include <signal.h>

#include "snodo-demo-reload.h"

#ifdef G_OS_UNIX
# include <glib-unix.h>
#endif

#if SNODO_HAS_HTTP_TRANSPORT

struct _DemoReload
{
  /* A reference. */
  SnodoHttpTransport *transport;
  /* Owned, or NULL. */
  DemoAuth           *auth;
  char               *certificate_file;
  char               *key_file;
  guint               sighup_id;
};

#ifdef G_OS_UNIX
static gboolean
demo_reload_cb (gpointer data)
{
  DemoReload *reload = data;
  g_autoptr(GHashTable) tokens = NULL;
  g_autoptr(GTlsCertificate) certificate = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) what = g_string_new (NULL);

  /* Everything is read before anything is replaced. */
  if (reload->auth != NULL)
    {
      tokens = demo_auth_read (reload->auth, &error);
      if (tokens == NULL)
        {
          g_printerr ("snodo-demo: SIGHUP: not reloaded, still serving as before: %s\n", error->message);
          return G_SOURCE_CONTINUE;
        }
    }
  if (reload->certificate_file != NULL)
    {
      certificate = g_tls_certificate_new_from_files (reload->certificate_file, reload->key_file, &error);
      if (certificate == NULL)
        {
          g_printerr ("snodo-demo: SIGHUP: not reloaded, still serving as before: --tls-certificate: %s\n",
                      error->message);
          return G_SOURCE_CONTINUE;
        }
    }

  if (tokens != NULL)
    {
      g_autofree char *display = g_filename_display_name (demo_auth_get_file (reload->auth));
      guint n = g_hash_table_size (tokens);

      demo_auth_replace (reload->auth, tokens);
      g_string_append_printf (what, "%u bearer token%s from %s", n, n == 1 ? "" : "s", display);
    }
  if (certificate != NULL)
    {
      g_autofree char *display = g_filename_display_name (reload->certificate_file);

      snodo_http_transport_set_tls_certificate (reload->transport, certificate);
      g_string_append_printf (what, "%sthe TLS certificate from %s", what->len > 0 ? " and " : "", display);
    }
  if (what->len == 0)
    g_printerr ("snodo-demo: SIGHUP: nothing to reload (no --bearer-token-file or --tls-certificate)\n");
  else
    g_printerr ("snodo-demo: SIGHUP: reloaded %s\n", what->str);
  return G_SOURCE_CONTINUE;
}
#endif

DemoReload *
demo_reload_new (SnodoHttpTransport *transport,
                 DemoAuth           *auth,
                 const char         *certificate_file,
                 const char         *key_file)
{
  DemoReload *reload = g_new0 (DemoReload, 1);

  reload->transport = g_object_ref (transport);
  reload->auth = auth;
  reload->certificate_file = g_strdup (certificate_file);
  reload->key_file = g_strdup (key_file);
#ifdef G_OS_UNIX
  reload->sighup_id = g_unix_signal_add (SIGHUP, demo_reload_cb, reload);
#endif
  return reload;
}

void
demo_reload_free (DemoReload *reload)
{
  g_clear_handle_id (&reload->sighup_id, g_source_remove);
  g_clear_pointer (&reload->auth, demo_auth_free);
  g_clear_object (&reload->transport);
  g_free (reload->certificate_file);
  g_free (reload->key_file);
  g_free (reload);
}

#endif
