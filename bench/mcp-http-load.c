/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * mcp-http-load: a load generator for MCP servers on Streamable HTTP.
 *
 *   mcp-http-load [OPTIONS] http://127.0.0.1:PORT/mcp
 *
 * C client threads, each with its own connection and its own request loop
 * (one request at a time on it, as an HTTP/1.1 client without pipelining
 * does), share N tools/call requests. HTTP/1.1 over plain sockets: a
 * connection is kept for the next request unless the server ends it
 * (`Connection: close`, or a body delimited by closing), so the count of
 * TCP connects shows whether the server keeps connections alive.
 *
 * Eras: 2025 (each client initializes its own session, sends
 * notifications/initialized, then carries Mcp-Session-Id and
 * MCP-Protocol-Version) and 2026 (stateless: _meta in every body and the
 * MCP-Protocol-Version, Mcp-Method and Mcp-Name headers).
 *
 * Every answer is checked, whether it comes as application/json or as a
 * text/event-stream (notifications before the answer are skipped): id, no
 * error, the text sent. A request that fails is counted (errors), and so
 * is a kept-alive connection the server had closed before the request
 * (resets; the request is then sent again on a new connection, as HTTP
 * clients do). --sleeps M instead has M clients each make one slow call
 * at the same moment, and reports when the last was answered and how many
 * were lost.
 */

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "mcp-bench.h"

typedef struct
{
  const char *url;
  char        host[256];     /* for the Host header: host:port */
  char        path[512];
  struct sockaddr_storage addr;
  socklen_t   addrlen;
  MbEra       era;
  const char *tool;
  const char *arg;
  const char *prefix;
  size_t      size;
  long        requests;
  long        conns;
  long        warmup;
  long        sleeps;
  long        sleep_ms;
  double      timeout;
  pid_t       pid;
  bool        json;
  bool        quiet;
} Options;

static Options opt;
static long next_request;           /* atomically taken by the clients */
static double *latencies;           /* per timed request, seconds */
static pthread_barrier_t ready;     /* all clients connected and initialized */
static pthread_barrier_t go;
static pthread_mutex_t first_error_lock = PTHREAD_MUTEX_INITIALIZER;
static char first_error[512];

typedef struct
{
  int     index;
  int     fd;
  MbBuf   req;
  MbBuf   rbuf;        /* bytes read from the socket */
  MbBuf   body;        /* the body of the last response */
  MbBuf   line;
  char    session[256];
  char    content_type[128];
  int     status;
  char   *payload;
  long    connects;
  long    slow_connects;  /* connects that took over 0.5 s: a full listen queue */
  long    resets;
  long    errors;
  long    done;
  long    notifications;
  double  sleep_done;   /* --sleeps: when the slow call was answered */
  bool    sleep_ok;
  bool    handshake_ok;
} Client;

static void
note_error (Client *c, const char *fmt, ...)
{
  va_list ap;

  c->errors++;
  pthread_mutex_lock (&first_error_lock);
  if (first_error[0] == '\0')
    {
      va_start (ap, fmt);
      vsnprintf (first_error, sizeof first_error, fmt, ap);
      va_end (ap);
    }
  pthread_mutex_unlock (&first_error_lock);
}

static void
client_disconnect (Client *c)
{
  if (c->fd >= 0)
    close (c->fd);
  c->fd = -1;
  c->rbuf.len = 0;
}

static bool
client_connect (Client *c)
{
  struct timeval tv = { (time_t) opt.timeout, 0 };
  int one = 1;
  double t = mb_now ();

  c->fd = socket (opt.addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (c->fd < 0)
    return false;
  setsockopt (c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt (c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt (c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect (c->fd, (struct sockaddr *) &opt.addr, opt.addrlen) < 0)
    {
      client_disconnect (c);
      return false;
    }
  c->connects++;
  if (mb_now () - t > 0.5)
    c->slow_connects++;
  return true;
}

static bool
write_all (int fd, const char *p, size_t n)
{
  while (n > 0)
    {
      ssize_t w = send (fd, p, n, MSG_NOSIGNAL);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return false;
      p += w;
      n -= (size_t) w;
    }
  return true;
}

/* Reads more bytes into rbuf; 0 at end of stream, -1 on error. */
static ssize_t
fill (Client *c)
{
  ssize_t n;

  mb_reserve (&c->rbuf, 65536);
  do
    n = recv (c->fd, c->rbuf.data + c->rbuf.len, c->rbuf.cap - c->rbuf.len - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n > 0)
    {
      c->rbuf.len += (size_t) n;
      c->rbuf.data[c->rbuf.len] = '\0';
    }
  return n;
}

static const char *
header_value (const char *headers, const char *end, const char *name, char *out, size_t outlen)
{
  size_t nlen = strlen (name);
  const char *p = headers;

  while (p < end)
    {
      const char *eol = memmem (p, (size_t) (end - p), "\r\n", 2);
      if (!eol)
        eol = end;
      if ((size_t) (eol - p) > nlen && strncasecmp (p, name, nlen) == 0 && p[nlen] == ':')
        {
          const char *v = p + nlen + 1;
          size_t len;
          while (v < eol && (*v == ' ' || *v == '\t'))
            v++;
          len = (size_t) (eol - v);
          if (len >= outlen)
            len = outlen - 1;
          memcpy (out, v, len);
          out[len] = '\0';
          return out;
        }
      p = eol + 2;
    }
  return NULL;
}

typedef enum
{
  RX_OK,
  RX_RESET,     /* the connection was gone before any byte of the answer */
  RX_ERROR,
  RX_TIMEOUT,   /* nothing for --timeout seconds */
} RxStatus;

/*
 * Reads one HTTP response into c->status, c->content_type, c->body (and
 * c->session if the server sent one). Sets *keep to whether the connection
 * may be used again.
 */
static RxStatus
read_response (Client *c, bool *keep)
{
  char *hend;
  char value[256];
  size_t hlen;
  long long clen = -1;
  bool chunked = false, close_conn = false, http10 = false;

  *keep = false;
  while (!(hend = memmem (c->rbuf.data, c->rbuf.len, "\r\n\r\n", 4)))
    {
      ssize_t n = fill (c);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        return RX_TIMEOUT;
      if (n <= 0)
        return c->rbuf.len == 0 ? RX_RESET : RX_ERROR;
    }
  hlen = (size_t) (hend - c->rbuf.data) + 4;
  if (sscanf (c->rbuf.data, "HTTP/1.%*d %d", &c->status) != 1)
    return RX_ERROR;
  http10 = strncmp (c->rbuf.data, "HTTP/1.0", 8) == 0;
  if (header_value (c->rbuf.data, hend, "Content-Length", value, sizeof value))
    clen = atoll (value);
  if (header_value (c->rbuf.data, hend, "Transfer-Encoding", value, sizeof value) && strcasestr (value, "chunked"))
    chunked = true;
  if (header_value (c->rbuf.data, hend, "Connection", value, sizeof value))
    {
      if (strcasestr (value, "close"))
        close_conn = true;
      else if (strcasestr (value, "keep-alive"))
        http10 = false;
    }
  if (!header_value (c->rbuf.data, hend, "Content-Type", c->content_type, sizeof c->content_type))
    c->content_type[0] = '\0';
  if (header_value (c->rbuf.data, hend, "Mcp-Session-Id", value, sizeof value))
    snprintf (c->session, sizeof c->session, "%s", value);
  mb_consume (&c->rbuf, hlen);
  c->body.len = 0;

  if (chunked)
    {
      for (;;)
        {
          char *eol;
          unsigned long size;

          while (!(eol = memmem (c->rbuf.data, c->rbuf.len, "\r\n", 2)))
            if (fill (c) <= 0)
              return RX_ERROR;
          size = strtoul (c->rbuf.data, NULL, 16);
          mb_consume (&c->rbuf, (size_t) (eol - c->rbuf.data) + 2);
          if (size == 0)
            {
              /* trailers, then an empty line */
              for (;;)
                {
                  while (!(eol = memmem (c->rbuf.data, c->rbuf.len, "\r\n", 2)))
                    if (fill (c) <= 0)
                      return RX_ERROR;
                  if (eol == c->rbuf.data)
                    {
                      mb_consume (&c->rbuf, 2);
                      break;
                    }
                  mb_consume (&c->rbuf, (size_t) (eol - c->rbuf.data) + 2);
                }
              break;
            }
          while (c->rbuf.len < size + 2)
            if (fill (c) <= 0)
              return RX_ERROR;
          mb_add (&c->body, c->rbuf.data, size);
          mb_consume (&c->rbuf, size + 2);
        }
    }
  else if (clen >= 0)
    {
      while ((long long) c->rbuf.len < clen)
        if (fill (c) <= 0)
          return RX_ERROR;
      mb_add (&c->body, c->rbuf.data, (size_t) clen);
      mb_consume (&c->rbuf, (size_t) clen);
    }
  else
    {
      /* Delimited by the end of the connection. */
      ssize_t n;
      while ((n = fill (c)) > 0)
        ;
      if (n < 0)
        return RX_ERROR;
      mb_add (&c->body, c->rbuf.data, c->rbuf.len);
      c->rbuf.len = 0;
      close_conn = true;
    }
  *keep = !close_conn && !http10;
  return RX_OK;
}

/*
 * Finds the JSON-RPC answer with @id in the body (JSON, or the data of the
 * events of an event stream); copies it to c->line.
 */
static bool
find_answer (Client *c, int64_t id, MbMsg *msg)
{
  if (strncasecmp (c->content_type, "application/json", 16) == 0)
    {
      c->line.len = 0;
      mb_add (&c->line, c->body.data, c->body.len);
      mb_classify (c->line.data, c->line.len, msg);
      return msg->kind == MB_MSG_RESPONSE && !msg->id_null && msg->id == id;
    }
  if (strncasecmp (c->content_type, "text/event-stream", 17) == 0)
    {
      const char *p = c->body.data, *end = c->body.data + c->body.len;

      c->line.len = 0;
      while (p <= end)
        {
          const char *eol = memchr (p, '\n', (size_t) (end - p));
          const char *lend = eol ? eol : end;
          size_t len = (size_t) (lend - p);

          if (len > 0 && p[len - 1] == '\r')
            len--;
          if (len == 0)
            {
              /* end of an event */
              if (c->line.len > 0)
                {
                  mb_classify (c->line.data, c->line.len, msg);
                  if (msg->kind == MB_MSG_RESPONSE && !msg->id_null && msg->id == id)
                    return true;
                  if (msg->kind == MB_MSG_NOTIFICATION)
                    c->notifications++;
                  c->line.len = 0;
                }
            }
          else if (len >= 5 && memcmp (p, "data:", 5) == 0)
            {
              const char *d = p + 5;
              if (d < p + len && *d == ' ')
                d++;
              if (c->line.len > 0)
                mb_add (&c->line, "\n", 1);
              mb_add (&c->line, d, (size_t) (p + len - d));
            }
          if (!eol)
            break;
          p = eol + 1;
        }
      if (c->line.len > 0)
        {
          mb_classify (c->line.data, c->line.len, msg);
          return msg->kind == MB_MSG_RESPONSE && !msg->id_null && msg->id == id;
        }
    }
  return false;
}

/*
 * One POST: @body is the JSON-RPC message, @method and @name are what the
 * 2026 headers mirror (name may be NULL). Retries once on a fresh
 * connection if a kept-alive one turns out to be closed.
 */
static bool
post (Client *c, const char *body, size_t blen, const char *method, const char *name)
{
  for (int attempt = 0; attempt < 2; attempt++)
    {
      bool fresh = false, keep = false;
      RxStatus rx;

      if (c->fd < 0)
        {
          if (!client_connect (c))
            {
              note_error (c, "connect: %s", strerror (errno));
              return false;
            }
          fresh = true;
        }
      c->req.len = 0;
      mb_addf (&c->req, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
               "Accept: application/json, text/event-stream\r\nContent-Length: %zu\r\n",
               opt.path, opt.host, blen);
      if (opt.era == MB_ERA_2026)
        {
          mb_addf (&c->req, "MCP-Protocol-Version: " MB_MODERN_VERSION "\r\nMcp-Method: %s\r\n", method);
          if (name)
            mb_addf (&c->req, "Mcp-Name: %s\r\n", name);
        }
      else if (strcmp (method, "initialize") != 0)
        {
          mb_adds (&c->req, "MCP-Protocol-Version: " MB_LEGACY_VERSION "\r\n");
          if (c->session[0])
            mb_addf (&c->req, "Mcp-Session-Id: %s\r\n", c->session);
        }
      mb_add (&c->req, "\r\n", 2);
      mb_add (&c->req, body, blen);
      if (!write_all (c->fd, c->req.data, c->req.len))
        rx = RX_RESET;
      else
        rx = read_response (c, &keep);
      if (rx == RX_OK)
        {
          if (!keep)
            client_disconnect (c);
          return true;
        }
      client_disconnect (c);
      if (rx == RX_RESET && !fresh)
        {
          c->resets++;
          continue;
        }
      note_error (c, "client %d: %s", c->index,
                  rx == RX_RESET ? "the connection closed without an answer"
                  : rx == RX_TIMEOUT ? "no answer within the timeout" : "a broken HTTP response");
      return false;
    }
  return false;
}

static bool
handshake (Client *c)
{
  MbBuf b = { 0, };
  MbMsg msg;
  bool ok = false;

  if (opt.era == MB_ERA_2026)
    return true;
  mb_initialize (&b, 0);
  if (!post (c, b.data, b.len, "initialize", NULL))
    goto out;
  if (c->status != 200 || !find_answer (c, 0, &msg) || msg.has_error)
    {
      note_error (c, "initialize: HTTP %d: %.200s", c->status, c->body.data ? c->body.data : "");
      goto out;
    }
  /* No Mcp-Session-Id: a stateless server, which is allowed. */
  if (!post (c, MB_INITIALIZED, strlen (MB_INITIALIZED), "notifications/initialized", NULL))
    goto out;
  if (c->status != 202 && c->status != 200)
    {
      note_error (c, "notifications/initialized: HTTP %d", c->status);
      goto out;
    }
  ok = true;
out:
  free (b.data);
  return ok;
}

static bool
call_echo (Client *c, int64_t id)
{
  MbBuf b = { 0, };
  MbBuf q = { 0, };
  MbMsg msg;
  char why[200];
  bool ok = false;

  mb_payload (c->payload, opt.size, id);
  mb_quote (&q, c->payload, opt.size);
  mb_tools_call (&b, opt.era, id, opt.tool, opt.arg, q.data, q.len);
  if (!post (c, b.data, b.len, "tools/call", opt.tool))
    goto out;
  if (c->status != 200)
    note_error (c, "request %" PRId64 ": HTTP %d: %.200s", id, c->status, c->body.data ? c->body.data : "");
  else if (!find_answer (c, id, &msg))
    note_error (c, "request %" PRId64 ": no answer with its id in %.200s", id, c->body.data);
  else if (msg.has_error)
    note_error (c, "request %" PRId64 ": an error answer: %.200s", id, c->line.data);
  else if (!mb_check_text_result (msg.result, opt.prefix, c->payload, opt.size, why, sizeof why))
    note_error (c, "request %" PRId64 ": %s: %.200s", id, why, c->line.data);
  else
    ok = true;
out:
  free (b.data);
  free (q.data);
  return ok;
}

static bool
call_sleep (Client *c, int64_t id)
{
  MbBuf b = { 0, };
  MbMsg msg;
  char num[32], text[64], why[200];
  int n = snprintf (num, sizeof num, "%ld", opt.sleep_ms);
  bool ok = false;

  mb_tools_call (&b, opt.era, id, "sleep", "ms", num, (size_t) n);
  snprintf (text, sizeof text, "slept %ld", opt.sleep_ms);
  if (!post (c, b.data, b.len, "tools/call", "sleep"))
    goto out;
  if (c->status != 200 || !find_answer (c, id, &msg) || msg.has_error)
    note_error (c, "sleep %" PRId64 ": HTTP %d: %.200s", id, c->status, c->body.data ? c->body.data : "");
  else if (!mb_check_text_result (msg.result, "", text, strlen (text), why, sizeof why))
    note_error (c, "sleep %" PRId64 ": %s", id, why);
  else
    ok = true;
out:
  free (b.data);
  return ok;
}

static void *
client_main (void *data)
{
  Client *c = data;
  /* Warm-up ids sit above the timed ones. */
  int64_t warm_id = opt.requests + 1 + (int64_t) c->index * (opt.warmup + 1);

  c->fd = -1;
  c->payload = malloc (opt.size + 1);
  mb_payload_init (c->payload, opt.size);
  c->handshake_ok = handshake (c);
  for (long i = 0; c->handshake_ok && i < opt.warmup && opt.sleeps == 0; i++)
    call_echo (c, warm_id++);
  pthread_barrier_wait (&ready);
  pthread_barrier_wait (&go);
  if (!c->handshake_ok)
    return NULL;
  if (opt.sleeps > 0)
    {
      c->sleep_ok = call_sleep (c, c->index + 1);
      c->sleep_done = mb_now ();
      return NULL;
    }
  for (;;)
    {
      long id = __atomic_add_fetch (&next_request, 1, __ATOMIC_RELAXED);
      double t;

      if (id > opt.requests)
        break;
      t = mb_now ();
      if (call_echo (c, id))
        {
          latencies[id - 1] = mb_now () - t;
          c->done++;
        }
      else
        latencies[id - 1] = -1;
    }
  client_disconnect (c);
  return NULL;
}

static void
parse_url (const char *url)
{
  const char *p, *slash;
  char hostonly[256], port[16] = "80";
  struct addrinfo hints = { 0, }, *res;
  const char *colon;

  if (strncmp (url, "http://", 7) != 0)
    mb_die ("mcp-http-load: only http:// URLs");
  p = url + 7;
  slash = strchr (p, '/');
  snprintf (opt.path, sizeof opt.path, "%s", slash ? slash : "/");
  snprintf (opt.host, sizeof opt.host, "%.*s", (int) (slash ? slash - p : (long) strlen (p)), p);
  colon = strrchr (opt.host, ':');
  if (colon && !strchr (colon, ']'))
    {
      snprintf (hostonly, sizeof hostonly, "%.*s", (int) (colon - opt.host), opt.host);
      snprintf (port, sizeof port, "%s", colon + 1);
    }
  else
    snprintf (hostonly, sizeof hostonly, "%s", opt.host);
  if (hostonly[0] == '[')
    {
      memmove (hostonly, hostonly + 1, strlen (hostonly));
      hostonly[strcspn (hostonly, "]")] = '\0';
    }
  hints.ai_socktype = SOCK_STREAM;
  if (getaddrinfo (hostonly, port, &hints, &res) != 0)
    mb_die ("mcp-http-load: cannot resolve %s", hostonly);
  memcpy (&opt.addr, res->ai_addr, res->ai_addrlen);
  opt.addrlen = res->ai_addrlen;
  freeaddrinfo (res);
}

static void
usage (int status)
{
  fprintf (status ? stderr : stdout,
           "usage: mcp-http-load [OPTIONS] URL\n"
           "  -c, --connections C  clients, each with its own connection (default 1)\n"
           "  -n, --requests N     timed calls, shared by the clients (default 10000)\n"
           "  -w, --warmup N       untimed calls per client first (default 20)\n"
           "  -s, --size BYTES     text sent per call (default 16, at least 8)\n"
           "  -e, --era ERA        2025 (a session per client) or 2026 (stateless)\n"
           "      --tool NAME, --arg NAME, --prefix TEXT   the echo tool (echo, text, none)\n"
           "      --sleeps M       instead: M clients each make one sleep call at once\n"
           "      --sleep-ms MS    (default 100)\n"
           "      --pid PID        the server's process, for CPU time and memory from /proc\n"
           "      --timeout S      longest wait for an answer (default 30)\n"
           "      --json           print one JSON object\n"
           "  -q, --quiet          no human-readable lines\n");
  exit (status);
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "connections", required_argument, NULL, 'c' },
    { "requests", required_argument, NULL, 'n' },
    { "warmup", required_argument, NULL, 'w' },
    { "size", required_argument, NULL, 's' },
    { "era", required_argument, NULL, 'e' },
    { "tool", required_argument, NULL, 1 },
    { "arg", required_argument, NULL, 2 },
    { "prefix", required_argument, NULL, 3 },
    { "sleeps", required_argument, NULL, 4 },
    { "sleep-ms", required_argument, NULL, 5 },
    { "pid", required_argument, NULL, 6 },
    { "timeout", required_argument, NULL, 7 },
    { "json", no_argument, NULL, 8 },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  Client *clients;
  pthread_t *threads;
  long nclients, slow_connects = 0, connects = 0, resets = 0, errors = 0, done = 0, lost = 0, handshake_failed = 0;
  double t0, t1, rate, p50 = 0, p99 = 0, last = 0;
  MbProcStats s0 = { 0, }, s1 = { 0, };
  int c;

  opt.conns = 1;
  opt.requests = 10000;
  opt.warmup = 20;
  opt.size = 16;
  opt.era = MB_ERA_2025;
  opt.tool = "echo";
  opt.arg = "text";
  opt.prefix = "";
  opt.sleep_ms = 100;
  opt.timeout = 30;
  while ((c = getopt_long (argc, argv, "c:n:w:s:e:qh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'c': opt.conns = atol (optarg); break;
        case 'n': opt.requests = atol (optarg); break;
        case 'w': opt.warmup = atol (optarg); break;
        case 's': opt.size = (size_t) atol (optarg); break;
        case 'e':
          if (strcmp (optarg, "2025") == 0 || strcmp (optarg, MB_LEGACY_VERSION) == 0)
            opt.era = MB_ERA_2025;
          else if (strcmp (optarg, "2026") == 0 || strcmp (optarg, MB_MODERN_VERSION) == 0)
            opt.era = MB_ERA_2026;
          else
            usage (2);
          break;
        case 1: opt.tool = optarg; break;
        case 2: opt.arg = optarg; break;
        case 3: opt.prefix = optarg; break;
        case 4: opt.sleeps = atol (optarg); break;
        case 5: opt.sleep_ms = atol (optarg); break;
        case 6: opt.pid = (pid_t) atol (optarg); break;
        case 7: opt.timeout = atof (optarg); break;
        case 8: opt.json = true; break;
        case 'q': opt.quiet = true; break;
        case 'h': usage (0); break;
        default: usage (2);
        }
    }
  if (optind != argc - 1 || opt.conns < 1 || opt.requests < 0 || opt.warmup < 0 || opt.size < 8)
    usage (2);
  opt.url = argv[optind];
  parse_url (opt.url);
  signal (SIGPIPE, SIG_IGN);

  nclients = opt.sleeps > 0 ? opt.sleeps : opt.conns;
  if (opt.sleeps > 0)
    opt.requests = 0;
  latencies = calloc ((size_t) opt.requests + 1, sizeof (double));
  clients = calloc ((size_t) nclients, sizeof (Client));
  threads = calloc ((size_t) nclients, sizeof (pthread_t));
  pthread_barrier_init (&ready, NULL, (unsigned) nclients + 1);
  pthread_barrier_init (&go, NULL, (unsigned) nclients + 1);
  for (long i = 0; i < nclients; i++)
    {
      pthread_attr_t attr;
      clients[i].index = (int) i;
      pthread_attr_init (&attr);
      pthread_attr_setstacksize (&attr, 256 * 1024);
      if (pthread_create (&threads[i], &attr, client_main, &clients[i]) != 0)
        mb_die ("mcp-http-load: cannot start client %ld", i);
      pthread_attr_destroy (&attr);
    }
  pthread_barrier_wait (&ready);
  if (opt.pid > 0)
    s0 = mb_proc_stats (opt.pid);
  t0 = mb_now ();
  pthread_barrier_wait (&go);
  for (long i = 0; i < nclients; i++)
    pthread_join (threads[i], NULL);
  t1 = mb_now ();
  if (opt.pid > 0)
    s1 = mb_proc_stats (opt.pid);

  for (long i = 0; i < nclients; i++)
    {
      connects += clients[i].connects;
      slow_connects += clients[i].slow_connects;
      resets += clients[i].resets;
      errors += clients[i].errors;
      done += clients[i].done;
      if (!clients[i].handshake_ok)
        handshake_failed++;
      if (opt.sleeps > 0)
        {
          if (!clients[i].sleep_ok)
            lost++;
          else if (clients[i].sleep_done - t0 > last)
            last = clients[i].sleep_done - t0;
        }
    }
  rate = (double) done / (t1 - t0);
  if (done > 0)
    {
      double *ok = malloc ((size_t) done * sizeof (double));
      long k = 0;
      for (long i = 0; i < opt.requests; i++)
        if (latencies[i] >= 0 && k < done)
          ok[k++] = latencies[i] * 1e6;
      qsort (ok, (size_t) k, sizeof (double), mb_cmp_double);
      p50 = mb_quantile (ok, (size_t) k, 0.5);
      p99 = mb_quantile (ok, (size_t) k, 0.99);
      free (ok);
    }
  if (opt.json)
    {
      printf ("{\"workload\":\"%s\",\"era\":\"%s\",\"connections\":%ld,\"requests\":%ld,\"answered\":%ld,"
              "\"seconds\":%.6f,\"rate\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"connects\":%ld,\"resets\":%ld,"
              "\"slow_connects\":%ld,\"errors\":%ld,\"handshake_failed\":%ld,\"sleeps\":%ld,\"sleeps_lost\":%ld,\"sleeps_all_s\":%.4f",
              opt.sleeps > 0 ? "sleeps" : "calls", opt.era == MB_ERA_2026 ? "2026" : "2025", nclients,
              opt.requests, done, t1 - t0, rate, p50, p99, connects, resets, slow_connects, errors, handshake_failed,
              opt.sleeps, lost, last);
      if (opt.pid > 0)
        printf (",\"server\":{\"cpu_s\":%.3f,\"vcsw\":%ld,\"ivcsw\":%ld,\"hwm_kb\":%ld,\"rss_kb\":%ld}",
                s1.cpu - s0.cpu, s1.vcsw - s0.vcsw, s1.ivcsw - s0.ivcsw, s1.hwm_kb, s1.rss_kb);
      printf (",\"first_error\":\"");
      for (const char *p = first_error; *p; p++)
        printf (*p == '"' || *p == '\\' ? "\\%c" : (unsigned char) *p < 0x20 ? " " : "%c", *p);
      printf ("\"}\n");
    }
  if (!opt.quiet)
    {
      FILE *f = opt.json ? stderr : stdout;
      if (opt.sleeps > 0)
        fprintf (f, "%ld sleeps of %ld ms at once: the last answered after %.1f ms, %ld lost", opt.sleeps,
                 opt.sleep_ms, last * 1e3, lost);
      else
        fprintf (f, "%ld of %ld calls answered over %ld connections: %.0f calls/s, p50 %.0f us, p99 %.0f us",
                 done, opt.requests, nclients, rate, p50, p99);
      fprintf (f, "; %ld TCP connects (%ld slower than 0.5 s), %ld resets, %ld errors\n", connects, slow_connects,
               resets, errors);
      if (first_error[0])
        fprintf (f, "first error: %s\n", first_error);
    }
  return errors > 0 || lost > 0 ? 1 : 0;
}
