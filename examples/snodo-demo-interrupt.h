/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <snodo/snodo.h>

/* --http: adds the tool interrupt, whose answer's stream the server
 * closes half-way (SEP-1699). */
void demo_add_interrupt (SnodoServer *server);
