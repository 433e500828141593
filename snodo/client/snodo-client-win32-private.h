/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Windows only: puts the server @subprocess in a Job Object that the
 * system closes when this process ends, however it ends (TerminateProcess
 * included), and that kills the processes in it when closed. The Windows
 * counterpart of PR_SET_PDEATHSIG. FALSE (and a warning) if it could not. */
gboolean snodo_client_win32_tie_to_job (GSubprocess *subprocess);

G_END_DECLS
