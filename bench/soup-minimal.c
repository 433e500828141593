/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* A server of libsoup alone, for bench/soup-leak: it listens as libsoup
 * does by itself (soup_server_listen_local(), or soup_server_listen() with
 * a certificate) and answers every request with N bytes, N from the query
 * (?n=N, default 16). Prints its port, then serves until killed.
 *
 *   soup-minimal [CERT.pem KEY.pem] */

#include <stdlib.h>
#include <string.h>
#include <libsoup/soup.h>

static void
handler (SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query, gpointer data)
{
  const char *n = query != NULL ? g_hash_table_lookup (query, "n") : NULL;
  gsize size = n != NULL ? strtoul (n, NULL, 10) : 16;

  soup_server_message_set_status (msg, 200, NULL);
  soup_server_message_set_response (msg, "text/plain", SOUP_MEMORY_TAKE, g_strnfill (size, 'x'), size);
}

int
main (int argc, char **argv)
{
  SoupServer *server = soup_server_new (NULL, NULL);
  GError *error = NULL;
  GSList *uris;

  soup_server_add_handler (server, NULL, handler, NULL, NULL);
  if (argc == 3)
    {
      GTlsCertificate *certificate = g_tls_certificate_new_from_files (argv[1], argv[2], &error);
      GInetAddress *loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
      GSocketAddress *address = g_inet_socket_address_new (loopback, 0);

      if (certificate == NULL)
        g_error ("%s", error->message);
      g_object_set (server, "tls-certificate", certificate, NULL);
      if (!soup_server_listen (server, address, SOUP_SERVER_LISTEN_HTTPS, &error))
        g_error ("%s", error->message);
    }
  else if (!soup_server_listen_local (server, 0, SOUP_SERVER_LISTEN_IPV4_ONLY, &error))
    g_error ("%s", error->message);
  uris = soup_server_get_uris (server);
  g_print ("%u\n", g_uri_get_port (uris->data));
  g_main_loop_run (g_main_loop_new (NULL, FALSE));
  return 0;
}
