/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib/gi18n-lib.h>

G_BEGIN_DECLS

const char *snodo_gettext (const char *msgid) G_GNUC_FORMAT (1);
const char *snodo_ngettext (const char *msgid,
                            const char *msgid_plural,
                            gulong      n) G_GNUC_FORMAT (1) G_GNUC_FORMAT (2);

G_END_DECLS

/* The library's own messages, from its own catalog (see snodo-i18n.c). */
#undef _
#define _(String) snodo_gettext (String)
