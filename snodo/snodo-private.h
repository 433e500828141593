/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#ifndef GETTEXT_PACKAGE
# error "config.h must be included before snodo-private.h"
#endif

#include "snodo-base-private.h"

#include "snodo.h"

#include "snodo-catalog-private.h"
#include "snodo-connection-private.h"
#include "snodo-dialect-private.h"
#include "snodo-executor-private.h"
#include "snodo-frame-private.h"
#include "snodo-protocol-private.h"
#include "snodo-wire-private.h"
#include "snodo-invocation-private.h"
#include "snodo-json-private.h"
#include "snodo-line-framer-private.h"
#include "snodo-request-state-private.h"
#include "snodo-schema-private.h"
#include "snodo-server-methods.h"
#include "snodo-server-private.h"
#include "snodo-writer-private.h"
