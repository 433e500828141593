/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * mcp-bench.h: what the two load generators share: a byte buffer, the
 * requests they send (in either protocol era) and the check of every answer.
 */

#ifndef MCP_BENCH_H
#define MCP_BENCH_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include "mcp-json.h"

#define MB_CLIENT_NAME "snodo-bench"
#define MB_LEGACY_VERSION "2025-11-25"
#define MB_MODERN_VERSION "2026-07-28"

typedef enum
{
  MB_ERA_2025,   /* initialize + notifications/initialized first */
  MB_ERA_2026,   /* stateless: _meta on every request */
  MB_ERA_RAW,    /* no MCP at all: every answer is the request line itself */
} MbEra;

typedef struct
{
  char   *data;
  size_t  len;
  size_t  cap;
} MbBuf;

static void
mb_die (const char *fmt, ...)
{
  va_list ap;

  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (1);
}

static void
mb_reserve (MbBuf *b, size_t more)
{
  if (b->len + more + 1 <= b->cap)
    return;
  while (b->len + more + 1 > b->cap)
    b->cap = b->cap ? b->cap * 2 : 4096;
  b->data = realloc (b->data, b->cap);
  if (!b->data)
    mb_die ("out of memory");
}

static void
mb_add (MbBuf *b, const char *s, size_t n)
{
  mb_reserve (b, n);
  memcpy (b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

static void
mb_adds (MbBuf *b, const char *s)
{
  mb_add (b, s, strlen (s));
}

static void
mb_addf (MbBuf *b, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start (ap, fmt);
  n = vsnprintf (NULL, 0, fmt, ap);
  va_end (ap);
  mb_reserve (b, (size_t) n);
  va_start (ap, fmt);
  vsnprintf (b->data + b->len, (size_t) n + 1, fmt, ap);
  va_end (ap);
  b->len += (size_t) n;
}

/* Drops the first @n bytes. */
static void
mb_consume (MbBuf *b, size_t n)
{
  if (n >= b->len)
    {
      b->len = 0;
      return;
    }
  memmove (b->data, b->data + n, b->len - n);
  b->len -= n;
}

static double
mb_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The _meta every 2026-07-28 request carries. */
#define MB_MODERN_META                                                             \
  "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" MB_MODERN_VERSION "\"," \
  "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"" MB_CLIENT_NAME "\",\"version\":\"0.1\"}," \
  "\"io.modelcontextprotocol/clientCapabilities\":{}}"

/*
 * The text a call sends: the request id in eight digits, so that an answer
 * given to the wrong request cannot pass, then filler up to @size bytes.
 * Plain ASCII that needs no escaping in JSON. mb_payload_init() writes the
 * filler once; mb_payload() then only changes the digits.
 */
static void
mb_payload_init (char *out, size_t size)
{
  static const char filler[] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";

  for (size_t i = 0; i < size; i++)
    out[i] = filler[i % (sizeof filler - 1)];
  out[size] = '\0';
}

static void
mb_payload (char *out, size_t size, int64_t id)
{
  char digits[32];
  size_t n = (size_t) snprintf (digits, sizeof digits, "%08" PRId64, id);

  memcpy (out, digits, n < size ? n : size);
}

/*
 * Appends one tools/call request (no newline). @arg_json is the JSON of the
 * argument's value: a quoted string or a number.
 */
static void
mb_tools_call (MbBuf *b, MbEra era, int64_t id, const char *tool, const char *arg,
               const char *arg_json, size_t arg_json_len)
{
  mb_addf (b, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"method\":\"tools/call\",\"params\":{\"name\":\"%s\","
           "\"arguments\":{\"%s\":", id, tool, arg);
  mb_add (b, arg_json, arg_json_len);
  mb_adds (b, era == MB_ERA_2026 ? "}," MB_MODERN_META "}}" : "}}}");
}

static void
mb_initialize (MbBuf *b, int64_t id)
{
  mb_addf (b, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"method\":\"initialize\",\"params\":{"
           "\"protocolVersion\":\"" MB_LEGACY_VERSION "\",\"capabilities\":{},"
           "\"clientInfo\":{\"name\":\"" MB_CLIENT_NAME "\",\"version\":\"0.1\"}}}", id);
}

#define MB_INITIALIZED "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"

static void
mb_discover (MbBuf *b, int64_t id)
{
  mb_addf (b, "{\"jsonrpc\":\"2.0\",\"id\":%" PRId64 ",\"method\":\"server/discover\",\"params\":{"
           MB_MODERN_META "}}", id);
}

/* What kind of message a line is. */
typedef enum
{
  MB_MSG_INVALID,
  MB_MSG_RESPONSE,       /* has an id and result or error */
  MB_MSG_NOTIFICATION,   /* method, no id */
  MB_MSG_REQUEST,        /* method and id: the server asks something */
} MbMsgKind;

typedef struct
{
  MbMsgKind kind;
  bool      id_null;
  int64_t   id;          /* when an integer */
  bool      has_error;
  int64_t   error_code;
  MjValue   error;
  MjValue   result;
} MbMsg;

static MbMsgKind
mb_classify (const char *line, size_t len, MbMsg *m)
{
  MjValue root = { line, line + len };
  MjValue v;

  memset (m, 0, sizeof *m);
  m->kind = MB_MSG_INVALID;
  if (!mj_valid (line, line + len))
    return m->kind;
  root.start = mj_ws (line, line + len);
  if (*root.start != '{')
    return m->kind;
  if (mj_get (root, "method", &v))
    {
      m->kind = mj_get (root, "id", &v) ? MB_MSG_REQUEST : MB_MSG_NOTIFICATION;
      return m->kind;
    }
  if (!mj_get (root, "id", &v))
    return m->kind;
  if (mj_is (v, "null"))
    m->id_null = true;
  else if (!mj_int (v, &m->id))
    return m->kind;
  if (mj_get (root, "error", &m->error))
    {
      MjValue code;
      m->has_error = true;
      if (mj_get (m->error, "code", &code))
        mj_int (code, &m->error_code);
    }
  else if (!mj_get (root, "result", &m->result))
    return m->kind;
  m->kind = MB_MSG_RESPONSE;
  return m->kind;
}

/*
 * Checks a tools/call result: no isError, a first content block of type
 * text whose text is @prefix followed by @text. On failure writes why.
 */
static bool
mb_check_text_result (MjValue result, const char *prefix, const char *text, size_t text_len,
                      char *why, size_t why_len)
{
  MjValue v, content, first;

  if (mj_get (result, "isError", &v) && !mj_is (v, "false"))
    {
      snprintf (why, why_len, "isError is set");
      return false;
    }
  if (!mj_get (result, "content", &content) || !mj_first (content, &first))
    {
      snprintf (why, why_len, "no content");
      return false;
    }
  if (!mj_get (first, "type", &v) || !mj_is (v, "\"text\""))
    {
      snprintf (why, why_len, "the first content block is not text");
      return false;
    }
  if (!mj_get (first, "text", &v) || !mj_string_equals2 (v, prefix, strlen (prefix), text, text_len))
    {
      snprintf (why, why_len, "the text differs from what was sent");
      return false;
    }
  return true;
}

static void
mb_quote (MbBuf *b, const char *text, size_t len)
{
  /* The payloads are plain ASCII: only quotes and backslashes to escape. */
  size_t run = 0;

  mb_reserve (b, len + 2);
  mb_add (b, "\"", 1);
  if (memchr (text, '"', len) == NULL && memchr (text, '\\', len) == NULL)
    {
      /* Nothing to escape (every payload mb_payload() makes). */
      mb_add (b, text, len);
      mb_add (b, "\"", 1);
      return;
    }
  for (size_t i = 0; i < len; i++)
    {
      if (text[i] == '"' || text[i] == '\\')
        {
          mb_add (b, text + run, i - run);
          mb_add (b, "\\", 1);
          run = i;
        }
    }
  mb_add (b, text + run, len - run);
  mb_add (b, "\"", 1);
}

static int
mb_cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The @q quantile (0..1) of @n sorted values, nearest rank. */
static double
mb_quantile (const double *sorted, size_t n, double q)
{
  size_t i;

  if (n == 0)
    return 0;
  i = (size_t) (q * (double) n);
  if (i >= n)
    i = n - 1;
  return sorted[i];
}

/* What /proc tells about the server process. */
typedef struct
{
  double cpu;       /* user + system seconds, all threads */
  long   vcsw;      /* voluntary context switches, live threads */
  long   ivcsw;     /* involuntary */
  long   hwm_kb;    /* VmHWM */
  long   rss_kb;    /* VmRSS */
  long   threads;
} MbProcStats;

static long
mb_status_field (const char *text, const char *name)
{
  const char *p = strstr (text, name);

  if (!p)
    return -1;
  p += strlen (name);
  while (*p == ' ' || *p == '\t' || *p == ':')
    p++;
  return strtol (p, NULL, 10);
}

static bool
mb_read_file (const char *path, char *buf, size_t len)
{
  int fd = open (path, O_RDONLY);
  ssize_t n;

  if (fd < 0)
    return false;
  n = read (fd, buf, len - 1);
  close (fd);
  if (n < 0)
    return false;
  buf[n] = '\0';
  return true;
}

static MbProcStats
mb_proc_stats (pid_t pid)
{
  MbProcStats s = { 0, };
  char path[320], buf[8192];
  DIR *dir;
  struct dirent *e;

  snprintf (path, sizeof path, "/proc/%d/status", (int) pid);
  if (mb_read_file (path, buf, sizeof buf))
    {
      s.hwm_kb = mb_status_field (buf, "VmHWM:");
      s.rss_kb = mb_status_field (buf, "VmRSS:");
      s.threads = mb_status_field (buf, "Threads:");
    }
  snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
  if (mb_read_file (path, buf, sizeof buf))
    {
      /* After the command name in parentheses: field 3 on; utime and stime
       * are fields 14 and 15 (they count every thread, dead ones too). */
      char *p = strrchr (buf, ')');
      unsigned long ut = 0, st = 0;
      if (p && sscanf (p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) == 2)
        s.cpu = (double) (ut + st) / (double) sysconf (_SC_CLK_TCK);
    }
  snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
  dir = opendir (path);
  while (dir && (e = readdir (dir)))
    {
      if (e->d_name[0] == '.')
        continue;
      snprintf (path, sizeof path, "/proc/%d/task/%s/status", (int) pid, e->d_name);
      if (mb_read_file (path, buf, sizeof buf))
        {
          s.vcsw += mb_status_field (buf, "voluntary_ctxt_switches:");
          s.ivcsw += mb_status_field (buf, "nonvoluntary_ctxt_switches:");
        }
    }
  if (dir)
    closedir (dir);
  return s;
}

#endif /* MCP_BENCH_H */
