/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The executor layer, for the layers above: what a server needs of the
 * executor beyond its public API. It knows no MCP and no JSON. */

#pragma once

#include "snodo-work-private.h"
