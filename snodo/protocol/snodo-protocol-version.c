/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-protocol-version.h"

static const char * const version_strings[] = {
  [SNODO_PROTOCOL_VERSION_UNKNOWN] = NULL,
  [SNODO_PROTOCOL_VERSION_2025_06_18] = "2025-06-18",
  [SNODO_PROTOCOL_VERSION_2025_11_25] = "2025-11-25",
  [SNODO_PROTOCOL_VERSION_2026_07_28] = "2026-07-28",
};

/**
 * snodo_protocol_version_to_string:
 * @version: a protocol version
 *
 * The wire form of @version, such as `"2025-11-25"`.
 *
 * Returns: (nullable): the version string, or %NULL for
 *   %SNODO_PROTOCOL_VERSION_UNKNOWN
 *
 * Since: 0.1
 */
const char *
snodo_protocol_version_to_string (SnodoProtocolVersion version)
{
  if ((guint) version >= G_N_ELEMENTS (version_strings))
    return NULL;
  return version_strings[version];
}

/**
 * snodo_protocol_version_from_string:
 * @string: (nullable): a version string as written on the wire
 *
 * Looks up a protocol version by its wire form. The comparison is exact, as
 * version strings are case-sensitive.
 *
 * Returns: the version, or %SNODO_PROTOCOL_VERSION_UNKNOWN
 *
 * Since: 0.1
 */
SnodoProtocolVersion
snodo_protocol_version_from_string (const char *string)
{
  if (string == NULL)
    return SNODO_PROTOCOL_VERSION_UNKNOWN;
  for (guint i = 1; i < G_N_ELEMENTS (version_strings); i++)
    if (g_str_equal (string, version_strings[i]))
      return (SnodoProtocolVersion) i;
  return SNODO_PROTOCOL_VERSION_UNKNOWN;
}

/**
 * snodo_protocol_version_is_stateless:
 * @version: a protocol version
 *
 * Whether @version belongs to the stateless era (2026-07-28 and later), whose
 * requests describe themselves and which has no `initialize` handshake.
 *
 * Returns: %TRUE for a stateless version
 *
 * Since: 0.1
 */
gboolean
snodo_protocol_version_is_stateless (SnodoProtocolVersion version)
{
  return version >= SNODO_PROTOCOL_VERSION_2026_07_28;
}
