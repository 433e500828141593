/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

void demo_console_stop_on_ctrl (GSourceFunc func,
                                gpointer    data);

G_END_DECLS
