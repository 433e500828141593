/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-version.h"
#include "snodo-version-macros.h"

/**
 * snodo_get_major_version:
 *
 * The major version of the Snodo library the program runs with.
 *
 * This is the version of the library loaded at run time, which may differ
 * from the headers the program was compiled against
 * ([const@Snodo.MAJOR_VERSION]). Bindings, which have no headers, use it.
 *
 * Returns: the major version, e.g. 0 for 0.1.2
 *
 * Since: 0.1
 */
guint
snodo_get_major_version (void)
{
  return SNODO_MAJOR_VERSION;
}

/**
 * snodo_get_minor_version:
 *
 * The minor version of the Snodo library the program runs with.
 *
 * Returns: the minor version, e.g. 1 for 0.1.2
 *
 * Since: 0.1
 */
guint
snodo_get_minor_version (void)
{
  return SNODO_MINOR_VERSION;
}

/**
 * snodo_get_micro_version:
 *
 * The micro version of the Snodo library the program runs with.
 *
 * Returns: the micro version, e.g. 2 for 0.1.2
 *
 * Since: 0.1
 */
guint
snodo_get_micro_version (void)
{
  return SNODO_MICRO_VERSION;
}

/**
 * snodo_check_version:
 * @major: the required major version
 * @minor: the required minor version
 * @micro: the required micro version
 *
 * Checks that the Snodo library the program runs with is compatible with
 * the given version, as gtk_check_version() does for GTK.
 *
 * It is compatible when it has the same major version and a minor.micro
 * version at least the one given: within one major version, Snodo only
 * adds API. Compare [func@Snodo.CHECK_VERSION], which checks the headers
 * at compile time instead.
 *
 * Returns: (nullable): %NULL if the library is compatible, else a
 *   message saying why not; it belongs to the library and must not be
 *   freed or changed
 *
 * Since: 0.1
 */
const char *
snodo_check_version (guint major,
                     guint minor,
                     guint micro)
{
  if (major > SNODO_MAJOR_VERSION)
    return "Snodo version too old (major mismatch)";
  if (major != SNODO_MAJOR_VERSION)
    return "Snodo version too new (major mismatch)";
  if (minor > SNODO_MINOR_VERSION ||
      (minor == SNODO_MINOR_VERSION && micro > SNODO_MICRO_VERSION))
    return "Snodo version too old (minor or micro mismatch)";
  return NULL;
}
