/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The protocol layer, for the layers above: the dialect tables and
 * shaping of each protocol version, request state, schema checking, URI
 * templates and the front matter of a skill's SKILL.md. It knows no server
 * and no transport. */

#pragma once

#include "snodo-dialect-private.h"
#include "snodo-request-state-private.h"
#include "snodo-schema-private.h"
#include "snodo-skill-frontmatter-private.h"
#include "snodo-uri-template-private.h"
#include "snodo-variant-schema-private.h"
