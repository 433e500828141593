/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The path of a Unix socket the HTTP listener makes itself: before it
 * binds, the path must be free, or hold the socket of a server that is
 * gone (a crash leaves its file behind), which is removed; a socket a
 * server still listens on, or a file that is not a socket, is refused and
 * left alone. Once bound, and before it listens, the socket gets the mode
 * and group asked for, so that a reverse proxy running as another user can
 * connect to it. */

#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>

#ifdef G_OS_UNIX
# include <grp.h>
# include <unistd.h>
# include <sys/stat.h>
# include <sys/types.h>
# include <gio/gunixsocketaddress.h>
#endif

#include "snodo-base-private.h"
#include "snodo-http-listener-private.h"

#ifdef G_OS_UNIX
/* Sets @error from @saved (an errno) for @path: "WHAT “PATH”: REASON". */
static void
set_error_from_errno (GError     **error,
                      int          saved,
                      const char  *what,
                      const char  *path)
{
  g_autofree char *display = g_filename_display_name (path);

  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s “%s”: %s", what, display, g_strerror (saved));
}

/* Whether a server listens on the Unix socket at @path: TRUE when a
 * connection is accepted or pending (a full backlog), FALSE when it is
 * refused (nobody listens); an error when it cannot be told. */
static gboolean
socket_is_alive (const char  *path,
                 gboolean    *out_alive,
                 GError     **error)
{
  g_autoptr(GSocket) probe = NULL;
  g_autoptr(GSocketAddress) address = g_unix_socket_address_new (path);
  g_autoptr(GError) local_error = NULL;

  probe = g_socket_new (G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
  if (probe == NULL)
    return FALSE;
  /* Never wait on a server whose backlog is full: that one is alive. */
  g_socket_set_blocking (probe, FALSE);
  if (g_socket_connect (probe, address, NULL, &local_error))
    {
      *out_alive = TRUE;
      return TRUE;
    }
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PENDING) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      *out_alive = TRUE;
      return TRUE;
    }
  /* Gone meanwhile counts as nobody listening. */
  if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CONNECTION_REFUSED) ||
      g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    {
      *out_alive = FALSE;
      return TRUE;
    }
  {
    g_autofree char *display = g_filename_display_name (path);

    g_set_error (error, G_IO_ERROR, local_error->code,
                 _("Could not tell whether a server listens on the Unix socket “%s”: %s"), display,
                 local_error->message);
  }
  return FALSE;
}
#endif

/* Before binding a Unix socket at @path: TRUE if the path is free, or
 * held the socket of a server that is gone, now removed. FALSE with
 * G_IO_ERROR_ADDRESS_IN_USE if a server listens there, G_IO_ERROR_EXISTS
 * if something that is not a socket is there (neither is touched), or
 * another error if the path cannot be examined or removed. */
gboolean
snodo_http_unix_path_prepare (const char  *path,
                              GError     **error)
{
#ifdef G_OS_UNIX
  struct stat before, now;
  gboolean alive = FALSE;

  if (lstat (path, &before) != 0)
    {
      int saved = errno;

      if (saved == ENOENT)
        return TRUE;
      set_error_from_errno (error, saved, _("Could not examine"), path);
      return FALSE;
    }
  if (!S_ISSOCK (before.st_mode))
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("“%s” exists and is not a socket: it is left alone; remove it, or choose another path"),
                   display);
      return FALSE;
    }
  if (!socket_is_alive (path, &alive, error))
    return FALSE;
  if (alive)
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                   _("A server already listens on the Unix socket “%s”"), display);
      return FALSE;
    }
  /* Nobody listens: the file a server that ended without removing it left
   * behind. Removed only if it is still the socket just probed. */
  if (lstat (path, &now) != 0 || now.st_dev != before.st_dev || now.st_ino != before.st_ino)
    return TRUE;
  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      set_error_from_errno (error, errno, _("Could not remove the stale Unix socket"), path);
      return FALSE;
    }
  g_debug ("Removed the stale Unix socket %s, on which nobody listened", path);
  return TRUE;
#else
  return TRUE;
#endif
}

/* The group named @group (a name, or a number), in *out_gid. */
#ifdef G_OS_UNIX
static gboolean
lookup_group (const char  *group,
              gid_t       *out_gid,
              GError     **error)
{
  struct group entry, *found = NULL;
  g_autofree char *buffer = NULL;
  long size = sysconf (_SC_GETGR_R_SIZE_MAX);
  guint64 number;
  int result;

  if (size <= 0)
    size = 16384;
  for (;;)
    {
      g_free (buffer);
      buffer = g_malloc (size);
      result = getgrnam_r (group, &entry, buffer, size, &found);
      if (result != ERANGE || size >= 1024 * 1024)
        break;
      size *= 2;
    }
  if (found != NULL)
    {
      *out_gid = found->gr_gid;
      return TRUE;
    }
  if (g_ascii_string_to_unsigned (group, 10, 0, G_MAXINT32, &number, NULL))
    {
      *out_gid = (gid_t) number;
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("There is no group “%s”"), group);
  return FALSE;
}
#endif

/* After binding the Unix socket at @path, before listening: gives it
 * @group (a name or a number) unless NULL, then @mode unless 0. */
gboolean
snodo_http_unix_path_set_access (const char  *path,
                                 guint        mode,
                                 const char  *group,
                                 GError     **error)
{
#ifdef G_OS_UNIX
  struct stat info;

  if (mode == 0 && group == NULL)
    return TRUE;
  /* The path was bound a moment ago; never follow whatever replaced it. */
  if (lstat (path, &info) != 0)
    {
      set_error_from_errno (error, errno, _("Could not examine"), path);
      return FALSE;
    }
  if (!S_ISSOCK (info.st_mode))
    {
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("“%s” is no longer a socket"), display);
      return FALSE;
    }
  if (group != NULL)
    {
      gid_t gid;

      if (!lookup_group (group, &gid, error))
        return FALSE;
      if (lchown (path, (uid_t) -1, gid) != 0)
        {
          int saved = errno;
          g_autofree char *display = g_filename_display_name (path);

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Could not give the Unix socket “%s” the group “%s”: %s"), display, group,
                       g_strerror (saved));
          return FALSE;
        }
    }
  if (mode != 0 && g_chmod (path, mode) != 0)
    {
      int saved = errno;
      g_autofree char *display = g_filename_display_name (path);

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not give the Unix socket “%s” the mode %04o: %s"), display, mode, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
#else
  if (mode == 0 && group == NULL)
    return TRUE;
  g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("The mode and group of a Unix socket cannot be set on this system"));
  return FALSE;
#endif
}
