/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-error.h"

/**
 * snodo_error_quark:
 *
 * The quark of the [error@Snodo.Error] domain.
 *
 * Returns: the error domain quark
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (snodo-error-quark, snodo_error)

/**
 * snodo_rpc_error_quark:
 *
 * The quark of the [error@Snodo.RpcError] domain.
 *
 * Returns: the error domain quark
 *
 * Since: 0.1
 */
G_DEFINE_QUARK (snodo-rpc-error-quark, snodo_rpc_error)
