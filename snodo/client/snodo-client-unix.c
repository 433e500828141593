/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* SnodoClient over HTTP on a Unix socket: the http+unix://PATH/ENDPOINT
 * URLs a SnodoHttpTransport listening on a socket prints (PATH
 * percent-encoded, as snodo-demo --http-unix gives it). The requests go
 * to http://localhost/ENDPOINT (the Host a server on a socket accepts, as
 * curl --unix-socket sends it) through the socket. */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#ifdef G_OS_UNIX
# include <gio/gunixsocketaddress.h>
#endif

#include "snodo-client-private.h"

#include "snodo-base-private.h"

gboolean
snodo_client_http_unix_uri (const char          *uri,
                            GUri               **http_uri,
                            GSocketConnectable **connectable,
                            GError             **error)
{
  g_autofree char *authority = NULL;
  g_autofree char *path = NULL;
  g_autofree char *rest = NULL;
  const char *after;
  const char *end;

  /* GUri decodes the host: the encoded one is taken from the text, up to
   * the endpoint's path, query or fragment. */
  after = uri + strlen ("http+unix://");
  end = after + strcspn (after, "/?#");
  authority = g_strndup (after, end - after);
  if (authority[0] == '\0' || strpbrk (authority, "@:") != NULL ||
      (path = g_uri_unescape_string (authority, NULL)) == NULL || path[0] == '\0')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("An http+unix URI needs the socket's path, percent-encoded, as its host"));
      return FALSE;
    }
#ifdef G_OS_UNIX
  rest = g_strconcat ("http://localhost", end[0] == '/' ? "" : "/", end, NULL);
  *http_uri = g_uri_parse (rest, G_URI_FLAGS_ENCODED, error);
  if (*http_uri == NULL)
    return FALSE;
  *connectable = G_SOCKET_CONNECTABLE (g_unix_socket_address_new (path));
  return TRUE;
#else
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
               _("HTTP over a Unix socket is not supported on this platform"));
  return FALSE;
#endif
}
