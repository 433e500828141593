/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * mcp-load: a load generator for MCP servers on standard input and output.
 *
 *   mcp-load [OPTIONS] -- SERVER [ARGS...]
 *
 * It spawns the server with pipes, performs the handshake of the chosen era
 * (2025: initialize + notifications/initialized; 2026: none, every request
 * carries _meta; raw: none, and every answer must be the request line
 * itself, for a framing-only baseline), makes untimed warm-up calls, then
 * times N tools/call requests with up to K in flight. Every answer is
 * checked: its id, no error, no isError, one text block equal to the prefix
 * followed by the text sent (which starts with the request id, so an answer
 * to the wrong request fails). The first wrong answer stops the run, exit
 * status 1.
 *
 * Besides requests per second (and the latency distribution, which is
 * meaningful at window 1) it reads the server's /proc entries: CPU time,
 * context switches of all its threads during the timed calls, peak and
 * current resident memory. Other workloads: --sleeps (M slow calls then
 * one echo, all at once), --big-line (one huge line, then an echo),
 * --startup (spawn to first answer). --json prints one JSON object for
 * scripts (bench/run).
 *
 * Single-threaded, non-blocking pipes and poll(): the client's own cost per
 * call is a few hundred nanoseconds, well below any server's.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcp-bench.h"

extern char **environ;

typedef struct
{
  /* what to run */
  char   **argv;
  MbEra    era;
  const char *tool;
  const char *arg;
  const char *prefix;
  size_t   size;
  long     requests;
  long     window;
  long     warmup;
  double   timeout;
  /* other workloads */
  long     sleeps;
  long     sleep_ms;
  const char *sleep_tool;
  const char *sleep_arg;
  long long big_line;
  bool     startup;
  bool     json;
  bool     quiet;
} Options;

typedef struct
{
  pid_t   pid;
  int     to_fd;     /* the server's stdin */
  int     from_fd;   /* the server's stdout */
  bool    eof;
  MbBuf   out;       /* bytes not yet written */
  size_t  out_off;
  MbBuf   in;        /* bytes read, not yet split into lines */
  long    notifications;
  long    server_requests;
  long    late_lines;   /* lines read after the last answer awaited */
  /* a huge line being written in pieces */
  long long big_left;
  const char *big_tail;
} Peer;

static Options opt;

static void
peer_spawn (Peer *peer, char **argv)
{
  int in_pipe[2], out_pipe[2];
  posix_spawn_file_actions_t fa;

  memset (peer, 0, sizeof *peer);
  if (pipe2 (in_pipe, O_CLOEXEC) < 0 || pipe2 (out_pipe, O_CLOEXEC) < 0)
    mb_die ("mcp-load: pipe: %s", strerror (errno));
  posix_spawn_file_actions_init (&fa);
  posix_spawn_file_actions_adddup2 (&fa, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2 (&fa, out_pipe[1], 1);
  if ((errno = posix_spawnp (&peer->pid, argv[0], &fa, NULL, argv, environ)) != 0)
    mb_die ("mcp-load: cannot start %s: %s", argv[0], strerror (errno));
  posix_spawn_file_actions_destroy (&fa);
  close (in_pipe[0]);
  close (out_pipe[1]);
  peer->to_fd = in_pipe[1];
  peer->from_fd = out_pipe[0];
  fcntl (peer->to_fd, F_SETFL, O_NONBLOCK);
  fcntl (peer->from_fd, F_SETFL, O_NONBLOCK);
  /* Bigger pipes: fewer wake-ups for both sides (ignored if not allowed). */
  fcntl (peer->to_fd, F_SETPIPE_SZ, 1 << 20);
  fcntl (peer->from_fd, F_SETPIPE_SZ, 1 << 20);
}

static void
peer_fail (Peer *peer, const char *fmt, ...)
{
  va_list ap;

  fputs ("mcp-load: ", stderr);
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  if (peer->pid > 0)
    {
      kill (peer->pid, SIGTERM);
      waitpid (peer->pid, NULL, 0);
    }
  exit (1);
}

/* Writes what it can without blocking. */
static void
peer_flush (Peer *peer)
{
  static char big_chunk[1 << 16];

  for (;;)
    {
      ssize_t n;

      if (peer->out_off < peer->out.len)
        {
          n = write (peer->to_fd, peer->out.data + peer->out_off, peer->out.len - peer->out_off);
          if (n < 0)
            {
              if (errno == EAGAIN || errno == EINTR)
                return;
              peer_fail (peer, "writing to the server failed: %s", strerror (errno));
            }
          peer->out_off += (size_t) n;
          if (peer->out_off < peer->out.len)
            return;
          peer->out.len = 0;
          peer->out_off = 0;
          continue;
        }
      if (peer->big_left > 0)
        {
          size_t want = peer->big_left < (long long) sizeof big_chunk ? (size_t) peer->big_left : sizeof big_chunk;
          if (big_chunk[0] != 'a')
            memset (big_chunk, 'a', sizeof big_chunk);
          n = write (peer->to_fd, big_chunk, want);
          if (n < 0)
            {
              if (errno == EAGAIN || errno == EINTR)
                return;
              /* The server may close its input on a huge line: that is an
               * outcome to report, not a client failure. */
              peer->big_left = -1;
              return;
            }
          peer->big_left -= n;
          if (peer->big_left == 0 && peer->big_tail)
            {
              mb_adds (&peer->out, peer->big_tail);
              peer->big_tail = NULL;
            }
          continue;
        }
      return;
    }
}

static bool
peer_pending (Peer *peer)
{
  return peer->out_off < peer->out.len || peer->big_left > 0;
}

/*
 * Waits for input (or room to write) up to @deadline, reads what is there.
 * Returns false at the deadline.
 */
static bool
peer_wait (Peer *peer, double deadline)
{
  struct pollfd fds[2];
  nfds_t nfds = 0;
  int timeout_ms;
  double left = deadline - mb_now ();

  if (left <= 0)
    return false;
  timeout_ms = (int) (left * 1000) + 1;
  if (!peer->eof)
    fds[nfds++] = (struct pollfd) { .fd = peer->from_fd, .events = POLLIN };
  if (peer_pending (peer) && peer->big_left >= 0)
    fds[nfds++] = (struct pollfd) { .fd = peer->to_fd, .events = POLLOUT };
  if (nfds == 0)
    return false;
  if (poll (fds, nfds, timeout_ms) < 0 && errno != EINTR)
    peer_fail (peer, "poll: %s", strerror (errno));
  for (nfds_t i = 0; i < nfds; i++)
    {
      if (fds[i].fd == peer->to_fd && fds[i].revents)
        peer_flush (peer);
      if (fds[i].fd == peer->from_fd && fds[i].revents)
        {
          for (;;)
            {
              ssize_t n;
              mb_reserve (&peer->in, 1 << 18);
              n = read (peer->from_fd, peer->in.data + peer->in.len, peer->in.cap - peer->in.len - 1);
              if (n > 0)
                {
                  peer->in.len += (size_t) n;
                  if (peer->in.cap - peer->in.len > 4096)
                    break;
                  continue;
                }
              if (n == 0)
                peer->eof = true;
              else if (errno != EAGAIN && errno != EINTR)
                peer->eof = true;
              break;
            }
        }
    }
  return true;
}

/* Answers a request of the server (none expected) with an error. */
static void
peer_refuse (Peer *peer, const char *line, size_t len)
{
  MjValue root = { line, line + len }, id;

  peer->server_requests++;
  if (mj_get (root, "id", &id))
    {
      mb_adds (&peer->out, "{\"jsonrpc\":\"2.0\",\"id\":");
      mb_add (&peer->out, id.start, (size_t) (id.end - id.start));
      mb_adds (&peer->out, ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}\n");
      peer_flush (peer);
    }
}

/* One batch of calls: ids first..first+count-1, up to window in flight. */
typedef struct Job Job;
struct Job
{
  int64_t first;
  long    count;
  long    window;
  /* appends request @id, without the newline */
  void  (*build) (Job *job, int64_t id, MbBuf *out);
  /* checks the answer to @id; false (with @why) if wrong */
  bool  (*check) (Job *job, int64_t id, const MbMsg *msg, const char *line, size_t len, char *why, size_t wlen);
  /* results */
  double *sent_at;   /* per request */
  double *done_at;   /* per request */
};

static char *payload;    /* opt.size + 1 bytes */
static MbBuf scratch;

static void
build_call (Job *job, int64_t id, MbBuf *out)
{
  size_t before;

  mb_payload (payload, opt.size, id);
  scratch.len = 0;
  mb_quote (&scratch, payload, opt.size);
  before = out->len;
  mb_tools_call (out, opt.era == MB_ERA_RAW ? MB_ERA_2025 : opt.era, id, opt.tool, opt.arg,
                 scratch.data, scratch.len);
  (void) before;
}

static bool
check_call (Job *job, int64_t id, const MbMsg *msg, const char *line, size_t len, char *why, size_t wlen)
{
  if (msg->has_error)
    {
      snprintf (why, wlen, "an error answer (code %" PRId64 ")", msg->error_code);
      return false;
    }
  mb_payload (payload, opt.size, id);
  return mb_check_text_result (msg->result, opt.prefix, payload, opt.size, why, wlen);
}

static bool
check_raw (Job *job, int64_t id, const MbMsg *msg, const char *line, size_t len, char *why, size_t wlen)
{
  static MbBuf expect;

  expect.len = 0;
  build_call (job, id, &expect);
  if (expect.len != len || memcmp (expect.data, line, len) != 0)
    {
      snprintf (why, wlen, "the line differs from the request");
      return false;
    }
  return true;
}

static void
build_sleep_or_echo (Job *job, int64_t id, MbBuf *out)
{
  char num[32];

  if (id - job->first < opt.sleeps)
    {
      int n = snprintf (num, sizeof num, "%ld", opt.sleep_ms);
      mb_tools_call (out, opt.era, id, opt.sleep_tool, opt.sleep_arg, num, (size_t) n);
    }
  else
    build_call (job, id, out);
}

static bool
check_sleep_or_echo (Job *job, int64_t id, const MbMsg *msg, const char *line, size_t len, char *why, size_t wlen)
{
  char text[64];

  if (id - job->first >= opt.sleeps)
    return check_call (job, id, msg, line, len, why, wlen);
  if (msg->has_error)
    {
      snprintf (why, wlen, "an error answer to sleep (code %" PRId64 ")", msg->error_code);
      return false;
    }
  snprintf (text, sizeof text, "slept %ld", opt.sleep_ms);
  return mb_check_text_result (msg->result, "", text, strlen (text), why, wlen);
}

/* The raw baseline has no JSON-RPC answers: the request line comes back. */
static int64_t
raw_id (const char *line, size_t len)
{
  MjValue root = { line, line + len }, v;
  int64_t id = -1;

  if (mj_get (root, "id", &v))
    mj_int (v, &id);
  return id;
}

static void
run_job (Peer *peer, Job *job)
{
  int64_t next = job->first;
  int64_t end = job->first + job->count;
  long answered = 0;
  char *seen = calloc ((size_t) job->count, 1);
  double deadline = mb_now () + opt.timeout;

  while (answered < job->count)
    {
      size_t pos = 0;

      if (next < end && next - job->first - answered < job->window)
        {
          while (next < end && next - job->first - answered < job->window)
            {
              job->build (job, next, &peer->out);
              mb_add (&peer->out, "\n", 1);
              if (job->sent_at)
                job->sent_at[next - job->first] = mb_now ();
              next++;
            }
          peer_flush (peer);
        }
      if (!peer_wait (peer, deadline))
        peer_fail (peer, "no answer for %.0f s (%ld of %ld answered)", opt.timeout, answered, job->count);

      for (;;)
        {
          char *nl = memchr (peer->in.data + pos, '\n', peer->in.len - pos);
          size_t len;
          char *line = peer->in.data + pos;
          MbMsg msg;
          int64_t id;
          char why[200];

          if (!nl)
            break;
          len = (size_t) (nl - line);
          pos += len + 1;
          if (len > 0 && line[len - 1] == '\r')
            len--;
          if (len == 0)
            continue;
          memset (&msg, 0, sizeof msg);
          if (opt.era == MB_ERA_RAW)
            id = raw_id (line, len);
          else
            {
              mb_classify (line, len, &msg);
              if (msg.kind == MB_MSG_NOTIFICATION)
                {
                  peer->notifications++;
                  continue;
                }
              if (msg.kind == MB_MSG_REQUEST)
                {
                  peer_refuse (peer, line, len);
                  continue;
                }
              if (msg.kind != MB_MSG_RESPONSE)
                peer_fail (peer, "not a JSON-RPC message: %.200s", line);
              if (msg.id_null)
                peer_fail (peer, "an answer with id null: %.300s", line);
              id = msg.id;
            }
          if (id < job->first || id >= next || seen[id - job->first])
            peer_fail (peer, "an answer for an unknown or repeated id %" PRId64 ": %.200s", id, line);
          if (!job->check (job, id, &msg, line, len, why, sizeof why))
            peer_fail (peer, "request %" PRId64 ": %s: %.300s", id, why, line);
          seen[id - job->first] = 1;
          if (job->done_at)
            job->done_at[id - job->first] = mb_now ();
          answered++;
          deadline = mb_now () + opt.timeout;
        }
      mb_consume (&peer->in, pos);
      if (peer->eof && answered < job->count)
        peer_fail (peer, "the server closed its output (%ld of %ld answered)", answered, job->count);
    }
  free (seen);
}

/* Sends one request and waits for its answer; returns the message. */
static MbMsg
call_one (Peer *peer, int64_t id, const char *request, MbBuf *answer)
{
  double deadline = mb_now () + opt.timeout;

  mb_adds (&peer->out, request);
  mb_add (&peer->out, "\n", 1);
  peer_flush (peer);
  for (;;)
    {
      char *nl;

      while ((nl = memchr (peer->in.data, '\n', peer->in.len)))
        {
          size_t len = (size_t) (nl - peer->in.data);
          MbMsg msg;

          mb_classify (peer->in.data, len, &msg);
          if (msg.kind == MB_MSG_RESPONSE && !msg.id_null && msg.id == id)
            {
              answer->len = 0;
              mb_add (answer, peer->in.data, len);
              mb_consume (&peer->in, len + 1);
              /* Point the message into the copy. */
              mb_classify (answer->data, answer->len, &msg);
              return msg;
            }
          if (msg.kind == MB_MSG_REQUEST)
            peer_refuse (peer, peer->in.data, len);
          else if (msg.kind == MB_MSG_NOTIFICATION)
            peer->notifications++;
          else
            peer_fail (peer, "unexpected line during the handshake: %.300s", peer->in.data);
          mb_consume (&peer->in, len + 1);
        }
      if (peer->eof)
        peer_fail (peer, "the server closed its output during the handshake");
      if (!peer_wait (peer, deadline))
        peer_fail (peer, "no answer to the handshake for %.0f s", opt.timeout);
    }
}

static void
handshake (Peer *peer)
{
  MbBuf req = { 0, }, answer = { 0, };
  MbMsg msg;

  if (opt.era == MB_ERA_RAW)
    return;
  if (opt.era == MB_ERA_2025)
    mb_initialize (&req, 0);
  else
    mb_discover (&req, 0);
  msg = call_one (peer, 0, req.data, &answer);
  if (msg.has_error)
    peer_fail (peer, "the handshake failed: %.300s", answer.data);
  if (opt.era == MB_ERA_2025)
    {
      MjValue v;
      if (!mj_get (msg.result, "protocolVersion", &v) || !mj_is (v, "\"" MB_LEGACY_VERSION "\""))
        peer_fail (peer, "initialize did not agree on " MB_LEGACY_VERSION ": %.300s", answer.data);
      mb_adds (&peer->out, MB_INITIALIZED "\n");
      peer_flush (peer);
    }
  free (req.data);
  free (answer.data);
}

/* Counts the whole lines in the input buffer and drops them. */
static void
peer_drop_lines (Peer *peer)
{
  char *p = peer->in.data, *end = peer->in.data + peer->in.len, *nl;

  while (p < end && (nl = memchr (p, '\n', (size_t) (end - p))))
    {
      if (nl > p && !(nl == p + 1 && *p == '\r'))
        peer->late_lines++;
      p = nl + 1;
    }
  mb_consume (&peer->in, (size_t) (p - peer->in.data));
}

/*
 * Closes the server's input and waits up to 5 s for it to exit. What it
 * writes meanwhile is read and counted (late_lines): after the last
 * answer awaited, an echo server has nothing more to say.
 */
static int
peer_close (Peer *peer, struct rusage *ru)
{
  int status = 0;
  double deadline = mb_now () + 5;

  peer_drop_lines (peer);
  close (peer->to_fd);
  for (;;)
    {
      pid_t r = wait4 (peer->pid, &status, WNOHANG, ru);
      if (r == peer->pid)
        break;
      if (mb_now () > deadline)
        {
          kill (peer->pid, SIGKILL);
          wait4 (peer->pid, &status, 0, ru);
          status = -1;
          break;
        }
      /* Drain its output so that it can finish writing. */
      if (!peer->eof)
        {
          peer_wait (peer, mb_now () + 0.05);
          peer_drop_lines (peer);
        }
      else
        usleep (5000);
    }
  /* What it wrote before exiting, up to its end of output. */
  deadline = mb_now () + 1;
  while (!peer->eof && peer_wait (peer, deadline))
    peer_drop_lines (peer);
  peer_drop_lines (peer);
  close (peer->from_fd);
  return status;
}

static void
usage (int status)
{
  fprintf (status ? stderr : stdout,
           "usage: mcp-load [OPTIONS] -- SERVER [ARGS...]\n"
           "  -n, --requests N     timed calls (default 10000)\n"
           "  -k, --window K       calls in flight (default 1)\n"
           "  -w, --warmup N       untimed calls first (default 500)\n"
           "  -s, --size BYTES     text sent per call (default 16, at least 8)\n"
           "  -e, --era ERA        2025 (initialize), 2026 (_meta on every request) or raw\n"
           "                       (no handshake, the answer is the request line: a line echoer)\n"
           "      --tool NAME      the echo tool (default echo)\n"
           "      --arg NAME       its string argument (default text)\n"
           "      --prefix TEXT    what the answer has before the text (default none)\n"
           "      --sleeps M       instead: M sleep calls then one echo, all at once\n"
           "      --sleep-ms MS    how long each sleeps (default 100)\n"
           "      --sleep-tool NAME, --sleep-arg NAME   (default sleep, ms; answer \"slept MS\")\n"
           "      --big-line BYTES instead: one line of that size, then one echo\n"
           "      --startup        instead: only the handshake; time and memory\n"
           "      --timeout S      longest wait for an answer (default 30)\n"
           "      --json           print one JSON object\n"
           "  -q, --quiet          no human-readable lines\n");
  exit (status);
}

static void
print_json_stats (const char *name, MbProcStats s)
{
  printf (",\"%s\":{\"cpu_s\":%.3f,\"vcsw\":%ld,\"ivcsw\":%ld,\"hwm_kb\":%ld,\"rss_kb\":%ld,\"threads\":%ld}",
          name, s.cpu, s.vcsw, s.ivcsw, s.hwm_kb, s.rss_kb, s.threads);
}

int
main (int argc, char **argv)
{
  static const struct option longopts[] = {
    { "requests", required_argument, NULL, 'n' },
    { "window", required_argument, NULL, 'k' },
    { "warmup", required_argument, NULL, 'w' },
    { "size", required_argument, NULL, 's' },
    { "era", required_argument, NULL, 'e' },
    { "tool", required_argument, NULL, 1 },
    { "arg", required_argument, NULL, 2 },
    { "prefix", required_argument, NULL, 3 },
    { "sleeps", required_argument, NULL, 4 },
    { "sleep-ms", required_argument, NULL, 5 },
    { "sleep-tool", required_argument, NULL, 6 },
    { "sleep-arg", required_argument, NULL, 7 },
    { "big-line", required_argument, NULL, 8 },
    { "startup", no_argument, NULL, 9 },
    { "timeout", required_argument, NULL, 10 },
    { "json", no_argument, NULL, 11 },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
  };
  Peer peer;
  double t_spawn, t_ready, t0, t1;
  MbProcStats s_ready, s0, s1;
  struct rusage ru;
  int c, status;
  int64_t next_id = 1;

  opt.requests = 10000;
  opt.window = 1;
  opt.warmup = 500;
  opt.size = 16;
  opt.era = MB_ERA_2025;
  opt.tool = "echo";
  opt.arg = "text";
  opt.prefix = "";
  opt.sleep_ms = 100;
  opt.sleep_tool = "sleep";
  opt.sleep_arg = "ms";
  opt.timeout = 30;
  while ((c = getopt_long (argc, argv, "+n:k:w:s:e:qh", longopts, NULL)) != -1)
    {
      switch (c)
        {
        case 'n': opt.requests = atol (optarg); break;
        case 'k': opt.window = atol (optarg); break;
        case 'w': opt.warmup = atol (optarg); break;
        case 's': opt.size = (size_t) atol (optarg); break;
        case 'e':
          if (strcmp (optarg, "2025") == 0 || strcmp (optarg, MB_LEGACY_VERSION) == 0)
            opt.era = MB_ERA_2025;
          else if (strcmp (optarg, "2026") == 0 || strcmp (optarg, MB_MODERN_VERSION) == 0)
            opt.era = MB_ERA_2026;
          else if (strcmp (optarg, "raw") == 0)
            opt.era = MB_ERA_RAW;
          else
            usage (2);
          break;
        case 1: opt.tool = optarg; break;
        case 2: opt.arg = optarg; break;
        case 3: opt.prefix = optarg; break;
        case 4: opt.sleeps = atol (optarg); break;
        case 5: opt.sleep_ms = atol (optarg); break;
        case 6: opt.sleep_tool = optarg; break;
        case 7: opt.sleep_arg = optarg; break;
        case 8: opt.big_line = atoll (optarg); break;
        case 9: opt.startup = true; break;
        case 10: opt.timeout = atof (optarg); break;
        case 11: opt.json = true; break;
        case 'q': opt.quiet = true; break;
        case 'h': usage (0); break;
        default: usage (2);
        }
    }
  if (optind >= argc || opt.requests < 0 || opt.window < 1 || opt.warmup < 0 || opt.size < 8)
    usage (2);
  opt.argv = argv + optind;
  signal (SIGPIPE, SIG_IGN);
  payload = malloc (opt.size + 1);
  mb_payload_init (payload, opt.size);

  t_spawn = mb_now ();
  peer_spawn (&peer, opt.argv);
  handshake (&peer);
  t_ready = mb_now ();
  s_ready = mb_proc_stats (peer.pid);

  if (opt.startup)
    {
      status = peer_close (&peer, &ru);
      if (opt.json)
        {
          printf ("{\"workload\":\"startup\",\"startup_s\":%.6f", t_ready - t_spawn);
          print_json_stats ("ready", s_ready);
          printf (",\"exit_status\":%d}\n", status);
        }
      if (!opt.quiet)
        fprintf (opt.json ? stderr : stdout, "first answer after %.1f ms; VmRSS %ld kB after the handshake\n",
                 (t_ready - t_spawn) * 1e3, s_ready.rss_kb);
      return 0;
    }

  /* Warm-up, never timed. */
  if (opt.warmup > 0)
    {
      Job warm = { next_id, opt.warmup, opt.window, build_call,
                   opt.era == MB_ERA_RAW ? check_raw : check_call, NULL, NULL };
      run_job (&peer, &warm);
      next_id += opt.warmup;
    }

  if (opt.big_line > 0)
    {
      /* One line of opt.big_line bytes: a tools/call of echo whose text
       * fills it. Then an echo, which must still be answered. */
      static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":\"big\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"";
      static const char tail[] = "\"}}}\n";
      MbBuf echo = { 0, };
      long hwm_before = mb_proc_stats (peer.pid).hwm_kb, hwm_after;
      double t_start = mb_now (), t_line_done = 0, t_echo = 0, deadline;
      bool big_answered = false, echo_ok = false;
      int64_t big_code = 0, echo_id = next_id;
      char why[200] = "no answer";

      mb_adds (&peer.out, head);
      peer.big_left = opt.big_line - (long long) (sizeof head - 1) - (long long) (sizeof tail - 1);
      peer.big_tail = tail;
      build_call (NULL, echo_id, &echo);
      mb_add (&echo, "\n", 1);
      peer_flush (&peer);
      deadline = mb_now () + opt.timeout;
      while (!(echo_ok || (t_echo > 0)) && mb_now () < deadline && !peer.eof)
        {
          char *nl;

          if (t_line_done == 0 && !peer_pending (&peer))
            {
              t_line_done = mb_now ();
              mb_add (&peer.out, echo.data, echo.len);
              peer_flush (&peer);
            }
          if (peer.big_left < 0)
            break;   /* the server stopped reading */
          peer_wait (&peer, mb_now () + 0.2);
          while ((nl = memchr (peer.in.data, '\n', peer.in.len)))
            {
              size_t len = (size_t) (nl - peer.in.data);
              MbMsg msg;

              mb_classify (peer.in.data, len, &msg);
              if (msg.kind == MB_MSG_RESPONSE && msg.id_null && msg.has_error)
                {
                  big_answered = true;
                  big_code = msg.error_code;
                }
              else if (msg.kind == MB_MSG_RESPONSE && !msg.id_null && msg.id == echo_id)
                {
                  t_echo = mb_now ();
                  echo_ok = check_call (NULL, echo_id, &msg, peer.in.data, len, why, sizeof why);
                }
              else if (msg.kind == MB_MSG_RESPONSE || msg.kind == MB_MSG_INVALID)
                {
                  /* an answer for "big" (its id is a string) */
                  MjValue root = { peer.in.data, peer.in.data + len }, e, code;
                  big_answered = true;
                  if (mj_get (root, "error", &e) && mj_get (e, "code", &code))
                    mj_int (code, &big_code);
                }
              mb_consume (&peer.in, len + 1);
            }
        }
      hwm_after = mb_proc_stats (peer.pid).hwm_kb;
      s1 = mb_proc_stats (peer.pid);
      status = peer_close (&peer, &ru);
      if (opt.json)
        printf ("{\"workload\":\"big-line\",\"bytes\":%lld,\"big_answered\":%s,\"big_code\":%" PRId64 ","
                "\"echo_ok\":%s,\"why\":\"%s\",\"line_written\":%s,\"seconds\":%.3f,"
                "\"hwm_before_kb\":%ld,\"hwm_after_kb\":%ld,\"server_gone\":%s,\"exit_status\":%d}\n",
                opt.big_line, big_answered ? "true" : "false", big_code, echo_ok ? "true" : "false",
                echo_ok ? "" : why, t_line_done > 0 ? "true" : "false", mb_now () - t_start,
                hwm_before, hwm_after, hwm_after < 0 ? "true" : "false", status);
      if (!opt.quiet)
        fprintf (opt.json ? stderr : stdout,
                 "big line of %lld bytes: %s (code %" PRId64 "); echo after it: %s; VmHWM %ld -> %ld kB\n",
                 opt.big_line, big_answered ? "answered" : "not answered", big_code,
                 echo_ok ? "answered" : why, hwm_before, hwm_after);
      return 0;
    }

  if (opt.sleeps > 0)
    {
      long count = opt.sleeps + 1;
      Job job = { next_id, count, count, build_sleep_or_echo, check_sleep_or_echo, NULL, NULL };
      double all = 0, echo_s;

      job.done_at = calloc ((size_t) count, sizeof (double));
      t0 = mb_now ();
      run_job (&peer, &job);
      for (long i = 0; i < count; i++)
        if (job.done_at[i] - t0 > all)
          all = job.done_at[i] - t0;
      echo_s = job.done_at[opt.sleeps] - t0;
      s1 = mb_proc_stats (peer.pid);
      status = peer_close (&peer, &ru);
      if (opt.json)
        printf ("{\"workload\":\"sleeps\",\"sleeps\":%ld,\"sleep_ms\":%ld,\"all_s\":%.4f,\"echo_s\":%.4f,"
                "\"exit_status\":%d}\n", opt.sleeps, opt.sleep_ms, all, echo_s, status);
      if (!opt.quiet)
        fprintf (opt.json ? stderr : stdout, "%ld sleeps of %ld ms and an echo: all answered after %.1f ms, "
                 "the echo after %.1f ms\n", opt.sleeps, opt.sleep_ms, all * 1e3, echo_s * 1e3);
      return 0;
    }

  {
    Job job = { next_id, opt.requests, opt.window, build_call,
                opt.era == MB_ERA_RAW ? check_raw : check_call, NULL, NULL };
    double *lat = NULL;
    double p50 = 0, p90 = 0, p99 = 0, rate;

    if (opt.requests > 0)
      {
        job.sent_at = calloc ((size_t) opt.requests, sizeof (double));
        job.done_at = calloc ((size_t) opt.requests, sizeof (double));
      }
    s0 = mb_proc_stats (peer.pid);
    t0 = mb_now ();
    if (opt.requests > 0)
      run_job (&peer, &job);
    t1 = mb_now ();
    s1 = mb_proc_stats (peer.pid);
    status = peer_close (&peer, &ru);
    rate = opt.requests > 0 ? (double) opt.requests / (t1 - t0) : 0;
    if (opt.requests > 0)
      {
        lat = malloc ((size_t) opt.requests * sizeof (double));
        for (long i = 0; i < opt.requests; i++)
          lat[i] = (job.done_at[i] - job.sent_at[i]) * 1e6;
        qsort (lat, (size_t) opt.requests, sizeof (double), mb_cmp_double);
        p50 = mb_quantile (lat, (size_t) opt.requests, 0.50);
        p90 = mb_quantile (lat, (size_t) opt.requests, 0.90);
        p99 = mb_quantile (lat, (size_t) opt.requests, 0.99);
      }
    if (opt.json)
      {
        printf ("{\"workload\":\"calls\",\"requests\":%ld,\"window\":%ld,\"size\":%zu,\"seconds\":%.6f,"
                "\"rate\":%.1f,\"p50_us\":%.2f,\"p90_us\":%.2f,\"p99_us\":%.2f,\"startup_s\":%.6f,"
                "\"notifications\":%ld,\"late_lines\":%ld,\"exit_status\":%d",
                opt.requests, opt.window, opt.size, t1 - t0, rate, p50, p90, p99, t_ready - t_spawn,
                peer.notifications, peer.late_lines, status);
        print_json_stats ("ready", s_ready);
        print_json_stats ("before", s0);
        print_json_stats ("after", s1);
        printf (",\"rusage\":{\"utime_s\":%.3f,\"stime_s\":%.3f,\"nvcsw\":%ld,\"nivcsw\":%ld,\"maxrss_kb\":%ld}}\n",
                (double) ru.ru_utime.tv_sec + (double) ru.ru_utime.tv_usec * 1e-6,
                (double) ru.ru_stime.tv_sec + (double) ru.ru_stime.tv_usec * 1e-6,
                ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_maxrss);
      }
    if (!opt.quiet)
      {
        FILE *f = opt.json ? stderr : stdout;
        double n = opt.requests > 0 ? (double) opt.requests : 1;
        fprintf (f, "%ld calls, %ld in flight, %zu B: %.0f calls/s", opt.requests, opt.window, opt.size, rate);
        if (opt.window == 1)
          fprintf (f, "; latency p50 %.1f us, p90 %.1f us, p99 %.1f us", p50, p90, p99);
        fprintf (f, "\nserver: %.2f us CPU, %.2f context switches (%.2f voluntary) per call; VmHWM %ld kB%s\n",
                 (s1.cpu - s0.cpu) * 1e6 / n, (double) (s1.vcsw + s1.ivcsw - s0.vcsw - s0.ivcsw) / n,
                 (double) (s1.vcsw - s0.vcsw) / n, s1.hwm_kb,
                 status == 0 ? "" : "; it did not exit cleanly after the end of input");
      }
    free (lat);
  }
  return 0;
}
