/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The base layer's private part: the library's translations and small
 * GLib helpers. Every layer may use it. */

#pragma once

#ifndef GETTEXT_PACKAGE
# error "config.h must be included before snodo-base-private.h"
#endif

#include <glib/gi18n-lib.h>

#include "snodo-error.h"
#ifdef G_OS_WIN32
# include "snodo-win32-private.h"
#endif

G_BEGIN_DECLS

const char *snodo_gettext (const char *msgid) G_GNUC_FORMAT (1);
const char *snodo_ngettext (const char *msgid,
                            const char *msgid_plural,
                            gulong      n) G_GNUC_FORMAT (1) G_GNUC_FORMAT (2);

/* @bytes were just freed (or are about to be): past a few MB, the free
 * pages go back to the system a moment later (snodo-memory.c). Any
 * thread. */
void        snodo_memory_give_back (guint64 bytes);

/* For g_clear_pointer(): a source that must never fire again. */
static inline void
snodo_source_destroy_and_unref (GSource *source)
{
  g_source_destroy (source);
  g_source_unref (source);
}

G_END_DECLS

/* The library's own messages, from its own catalog (see snodo-i18n.c). */
#undef _
#define _(String) snodo_gettext (String)
