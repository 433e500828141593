/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Windows only: the path (UTF-8) of the loaded program or DLL whose image
 * holds @address, or NULL if none does (code made at run time, as libffi's
 * closures are). What dladdr() tells on Unix. */
char *snodo_win32_module_of_address (gconstpointer address);

G_END_DECLS
