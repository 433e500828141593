/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#ifndef GETTEXT_PACKAGE
# error "config.h must be included before snodo-private.h"
#endif

#include "snodo-i18n-private.h"

#include "snodo.h"

#include "snodo-catalog-private.h"
#include "snodo-connection-private.h"
#include "snodo-dialect-private.h"
#include "snodo-frame-private.h"
#include "snodo-invocation-private.h"
#include "snodo-json-private.h"
#include "snodo-line-framer-private.h"
#include "snodo-request-state-private.h"
#include "snodo-schema-private.h"
#include "snodo-server-private.h"
#include "snodo-writer-private.h"

/* For g_clear_pointer(): a source that must never fire again. */
static inline void
snodo_source_destroy_and_unref (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}
