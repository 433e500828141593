/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * count-malloc: counts a process's heap allocations, for the benchmarks.
 *
 *   cc -O2 -shared -fPIC -o count-malloc.so bench/count-malloc.c
 *   COUNT_MALLOC_FILE=/tmp/counts env LD_PRELOAD=$PWD/count-malloc.so PROGRAM...
 *
 * Counts calls of malloc, calloc, realloc and the aligned allocators (and
 * the bytes asked for) in every thread, and at exit appends one line to
 * $COUNT_MALLOC_FILE (or writes it to standard error):
 *
 *   count-malloc pid=PID malloc=N calloc=N realloc=N memalign=N free=N bytes=N
 *
 * GLib's g_malloc() and friends go through these too. The counts include
 * start-up and shut-down: bench/run takes the difference of two runs with
 * different numbers of requests to get a count per request. Only glibc:
 * it forwards to glibc's __libc_* entry points, so that it needs no
 * dlsym() (which itself allocates).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);
extern void *__libc_memalign (size_t align, size_t size);
extern void  __libc_free (void *p);

static unsigned long n_malloc, n_calloc, n_realloc, n_memalign, n_free, n_bytes;

#define COUNT(var, k) __atomic_fetch_add (&(var), (k), __ATOMIC_RELAXED)

void *
malloc (size_t size)
{
  COUNT (n_malloc, 1);
  COUNT (n_bytes, size);
  return __libc_malloc (size);
}

void *
calloc (size_t n, size_t size)
{
  COUNT (n_calloc, 1);
  COUNT (n_bytes, n * size);
  return __libc_calloc (n, size);
}

void *
realloc (void *p, size_t size)
{
  COUNT (n_realloc, 1);
  COUNT (n_bytes, size);
  return __libc_realloc (p, size);
}

void
free (void *p)
{
  if (p)
    COUNT (n_free, 1);
  __libc_free (p);
}

void *
memalign (size_t align, size_t size)
{
  COUNT (n_memalign, 1);
  COUNT (n_bytes, size);
  return __libc_memalign (align, size);
}

void *
aligned_alloc (size_t align, size_t size)
{
  return memalign (align, size);
}

int
posix_memalign (void **out, size_t align, size_t size)
{
  void *p = memalign (align, size);

  if (!p && size)
    return ENOMEM;
  *out = p;
  return 0;
}

__attribute__ ((destructor)) static void
count_malloc_dump (void)
{
  char line[256];
  const char *path = getenv ("COUNT_MALLOC_FILE");
  int fd = 2;
  int n = snprintf (line, sizeof line,
                    "count-malloc pid=%d malloc=%lu calloc=%lu realloc=%lu memalign=%lu free=%lu bytes=%lu\n",
                    (int) getpid (), n_malloc, n_calloc, n_realloc, n_memalign, n_free, n_bytes);

  if (path && *path)
    fd = open (path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0 && n > 0 && write (fd, line, (size_t) n) < 0)
    n = 0;
  if (fd > 2)
    close (fd);
}
