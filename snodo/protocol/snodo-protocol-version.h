/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#if !defined(SNODO_INSIDE) && !defined(SNODO_COMPILATION)
# error "Only <snodo/snodo.h> can be included directly."
#endif

#include <glib.h>

#include "snodo-version-macros.h"

G_BEGIN_DECLS

/**
 * SnodoProtocolVersion:
 * @SNODO_PROTOCOL_VERSION_UNKNOWN: not a version this library knows
 * @SNODO_PROTOCOL_VERSION_2025_06_18: MCP 2025-06-18 (initialize era)
 * @SNODO_PROTOCOL_VERSION_2025_11_25: MCP 2025-11-25 (initialize era)
 * @SNODO_PROTOCOL_VERSION_2026_07_28: MCP 2026-07-28 (stateless)
 *
 * The MCP protocol revisions Snodo serves. The values are ordered by date.
 *
 * Since: 0.1
 */
typedef enum
{
  SNODO_PROTOCOL_VERSION_UNKNOWN = 0,
  SNODO_PROTOCOL_VERSION_2025_06_18,
  SNODO_PROTOCOL_VERSION_2025_11_25,
  SNODO_PROTOCOL_VERSION_2026_07_28,
} SnodoProtocolVersion;

SNODO_AVAILABLE_IN_ALL
const char           *snodo_protocol_version_to_string   (SnodoProtocolVersion  version);
SNODO_AVAILABLE_IN_ALL
SnodoProtocolVersion  snodo_protocol_version_from_string (const char           *string);
SNODO_AVAILABLE_IN_ALL
gboolean              snodo_protocol_version_is_stateless (SnodoProtocolVersion version);

G_END_DECLS
