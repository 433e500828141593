/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <glib.h>

#ifndef _SNODO_EXTERN
# if defined(_WIN32) && !defined(SNODO_STATIC_COMPILATION)
#  ifdef SNODO_COMPILATION
#   define _SNODO_EXTERN __declspec(dllexport) extern
#  else
#   define _SNODO_EXTERN __declspec(dllimport) extern
#  endif
# else
#  define _SNODO_EXTERN __attribute__((visibility("default"))) extern
# endif
#endif

/**
 * SNODO_AVAILABLE_IN_ALL:
 *
 * Marks a symbol as exported by every version of the library.
 *
 * Since: 0.1
 */
#define SNODO_AVAILABLE_IN_ALL _SNODO_EXTERN

/**
 * SNODO_DEPRECATED:
 *
 * Marks a symbol as deprecated.
 *
 * Since: 0.1
 */
#define SNODO_DEPRECATED _SNODO_EXTERN G_DEPRECATED

/**
 * SNODO_DEPRECATED_FOR:
 * @f: the symbol to use instead
 *
 * Marks a symbol as deprecated in favour of @f.
 *
 * Since: 0.1
 */
#define SNODO_DEPRECATED_FOR(f) _SNODO_EXTERN G_DEPRECATED_FOR(f)
