/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * line-echo: writes every line of standard input back to standard output.
 *
 * The framing-only baseline of the benchmarks: a "server" that does what
 * any stdio MCP server must (read in chunks, split at newlines, write whole
 * lines) and nothing else: no JSON, no dispatch, no threads. Whatever a
 * real server answers slower than this is its own cost. Lines that arrive
 * together are written together, as a server that batches its writes would.
 * `mcp-load --era raw` drives it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main (void)
{
  size_t cap = 1 << 20, len = 0;
  char *buf = malloc (cap);

  if (!buf)
    return 1;
  for (;;)
    {
      ssize_t n;
      char *last;

      if (len == cap)
        {
          cap *= 2;
          if (!(buf = realloc (buf, cap)))
            return 1;
        }
      n = read (0, buf + len, cap - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return n < 0;
      len += (size_t) n;
      /* Everything up to the last newline goes out in one write. */
      last = memrchr (buf, '\n', len);
      if (last)
        {
          size_t whole = (size_t) (last - buf) + 1, off = 0;

          while (off < whole)
            {
              ssize_t w = write (1, buf + off, whole - off);
              if (w < 0 && errno == EINTR)
                continue;
              if (w < 0)
                return 1;
              off += (size_t) w;
            }
          memmove (buf, buf + whole, len - whole);
          len -= whole;
        }
    }
}
