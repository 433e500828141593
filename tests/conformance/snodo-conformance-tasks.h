/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

/* Serves tasks, and adds the tools of the tasks-* scenarios. */
void fixture_add_task_tools (SnodoServer *server);
