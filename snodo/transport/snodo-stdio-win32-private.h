/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Windows only: streams on the process's standard input and output
 * handles that behave as on Unix whatever the handles are (pipe, console
 * or disk file). */
GInputStream  *snodo_win32_stdin_stream_new  (void);
GOutputStream *snodo_win32_stdout_stream_new (void);

G_END_DECLS
