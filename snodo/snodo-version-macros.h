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

#define SNODO_AVAILABLE_IN_ALL _SNODO_EXTERN
#define SNODO_DEPRECATED _SNODO_EXTERN G_DEPRECATED
#define SNODO_DEPRECATED_FOR(f) _SNODO_EXTERN G_DEPRECATED_FOR(f)
