/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include <locale.h>

#include "snodo-base-private.h"

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
static void
snodo_i18n_bind (void)
{
  static gsize bound = 0;

  if (g_once_init_enter (&bound))
    {
      const char *dir = g_getenv ("SNODO_LOCALEDIR");

      bindtextdomain (GETTEXT_PACKAGE, dir != NULL && *dir != '\0' ? dir : LOCALEDIR);
      bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
      g_once_init_leave (&bound, 1);
    }
}

const char *
snodo_gettext (const char *msgid)
{
  snodo_i18n_bind ();
  return g_dgettext (GETTEXT_PACKAGE, msgid);
}

/*
 * snodo_ngettext:
 * @msgid: a message for one
 * @msgid_plural: the same for @n
 * @n: the number
 *
 * Like snodo_gettext(), for a message that depends on a number.
 *
 * Returns: the translation for @n
 */
const char *
snodo_ngettext (const char *msgid,
                const char *msgid_plural,
                gulong      n)
{
  snodo_i18n_bind ();
  return g_dngettext (GETTEXT_PACKAGE, msgid, msgid_plural, n);
}
