/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <locale.h>

#include "snodo-i18n-private.h"

/*
 * snodo_gettext:
 * @msgid: a message marked with _()
 *
 * The translation of @msgid from the snodo-1 catalog.
 *
 * A library cannot count on its application to bind its text domain (a
 * Python or JavaScript program never does), so the first message binds it,
 * as GLib does for its own: to LOCALEDIR, where `meson install` puts the
 * catalogs, or to $SNODO_LOCALEDIR when that is set. `meson devenv` sets
 * it to the build tree's po/ folder, which holds the catalogs as
 * LANG/LC_MESSAGES/snodo-1.mo, so an uninstalled build is translated too.
 *
 * Returns: the translation, or @msgid itself
 */
const char *
snodo_gettext (const char *msgid)
{
  static gsize bound = 0;

  if (g_once_init_enter (&bound))
    {
      const char *dir = g_getenv ("SNODO_LOCALEDIR");

      bindtextdomain (GETTEXT_PACKAGE, dir != NULL && *dir != '\0' ? dir : LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&bound, 1);
    }

  return g_dgettext (GETTEXT_PACKAGE, msgid);
}
