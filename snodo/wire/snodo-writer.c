/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

/* pwritev2(), preadv2() and RWF_NOWAIT (HAVE_PWRITEV2). */
#ifndef _GNU_SOURCE
# define _GNU_SOURCE
#endif

#include <errno.h>
#include <string.h>

#include <glib.h>

#ifdef G_OS_UNIX
# include <limits.h>
# include <pthread.h>
# include <signal.h>
# include <sys/socket.h>
# include <sys/stat.h>
# include <sys/uio.h>
# include <unistd.h>
# include <glib-unix.h>
# include <gio/gunixoutputstream.h>
#endif

#include "snodo-writer-private.h"

#ifndef PIPE_BUF
# define PIPE_BUF 512
#endif

#ifdef G_OS_UNIX
/* Without MSG_NOSIGNAL (older macOS SDKs) a socket write to a reader that
 * is gone raises SIGPIPE, as a pipe write does: SigpipeGuard takes it back.
 * SO_NOSIGPIPE is not set instead: the socket is usually shared (standard
 * output), and the option would change it for the other processes that
 * hold it too. */
# ifdef HAVE_MSG_NOSIGNAL
#  define SNODO_SEND_FLAGS (MSG_DONTWAIT | MSG_NOSIGNAL)
# else
#  define SNODO_SEND_FLAGS MSG_DONTWAIT
# endif
#endif

/* The most written on the context in one turn of the main loop, so that
 * an output that always takes more cannot starve everything else. */
#define MAX_BYTES_PER_DISPATCH (256 * 1024)

/* The largest joined batch whose memory is kept for the next one. */
#define JOINED_KEEP_MAX (64 * 1024)

typedef enum
{
  /* A blocking write in the thread. */
  WRITER_MODE_THREAD,
  /* g_pollable_output_stream_write_nonblocking() on the context. */
  WRITER_MODE_POLLABLE,
  /* Non-blocking writes to the file descriptor of a GUnixOutputStream on a
   * pipe or a socket, on the context. */
  WRITER_MODE_FD,
} WriterMode;

/* Shared between the coordinator and the writer thread; the fields of the
 * thread are protected by lock, those of the context modes are only touched
 * on the context. */
struct _SnodoWriter
{
  gatomicrefcount  ref_count;
  GMutex           lock;
  GCond            cond;
  /* Immutable after creation; owned. */
  GOutputStream   *stream;
  GMainContext    *context;
  WriterMode       mode;

  /* Thread mode. The lines (GBytes) to write next, in order; set by the
   * coordinator, taken by the thread. */
  GPtrArray       *lines;
  /* The thread was started (it is, by the first write). */
  gboolean         thread_started;

  SnodoWriterFunc  func;
  gpointer         user_data;
  /* TRUE from a pending snodo_writer_write() until the result was
   * reported. */
  gboolean         busy;
  /* Set once by snodo_writer_abandon(): the thread exits after its current
   * write, the context modes stop at once, and no callback runs any more. */
  gboolean         abandoned;

  /* Context modes. The batch being written, and how much of it went out.
   * Owned. */
  GBytes          *buffer;
  gsize            offset;
  /* Context modes: where a batch of several lines is joined, kept from one
   * batch to the next (unless the last was over JOINED_KEEP_MAX bytes) so
   * that joining does not allocate, nor grow by reallocating, each time.
   * @buffer points into it while such a batch is written. Owned, nullable. */
  GByteArray      *joined;
  /* Waits for the output to take more (while busy). Owned; it holds a
   * reference on the writer. */
  GSource         *source;
  /* The stream's non-blocking write is GIO's emulation (poll, then a
   * blocking write): never ask it for more than PIPE_BUF bytes. */
  gboolean         emulated;
#ifdef G_OS_UNIX
  /* WRITER_MODE_FD: the stream's descriptor, not owned. */
  int              fd;
  SnodoFdKind      fd_kind;
  /* pwritev2() takes RWF_NOWAIT for fd (until it says otherwise). */
  gboolean         fd_nowait;
  /* SIGPIPE kills the process (its default): writes on the context keep
   * it from the process (see SigpipeGuard). */
  gboolean         fd_guard_sigpipe;
#endif
};

typedef struct
{
  SnodoWriter     *writer;
  SnodoWriterFunc  func;
  gpointer         user_data;
  GError          *error;
} WriteResult;

static void
snodo_writer_unref (SnodoWriter *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;

  g_assert (self->source == NULL);
  g_clear_pointer (&self->lines, g_ptr_array_unref);
  g_clear_pointer (&self->buffer, g_bytes_unref);
  g_clear_pointer (&self->joined, g_byte_array_unref);
  g_clear_object (&self->stream);
  g_clear_pointer (&self->context, g_main_context_unref);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_free (self);
}

static SnodoWriter *
snodo_writer_ref (SnodoWriter *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

/* ---- File descriptors, never made non-blocking ------------------------ */

#ifdef G_OS_UNIX

static void
snodo_fd_set_error (GError **error,
                    int      errsv)
{
  g_set_error_literal (error, G_IO_ERROR, g_io_error_from_errno (errsv), g_strerror (errsv));
}

/* Cleared by tests, to exercise the paths of kernels without RWF_NOWAIT. */
static gboolean snodo_fd_nowait_enabled = TRUE;

void
snodo_fd_set_nowait_enabled (gboolean enabled)
{
  snodo_fd_nowait_enabled = enabled;
}

gboolean
snodo_fd_get_nowait_enabled (void)
{
  return snodo_fd_nowait_enabled;
}

#ifdef HAVE_PWRITEV2
static gboolean
snodo_fd_errno_is_unsupported (int errsv)
{
  return errsv == EOPNOTSUPP || errsv == EINVAL || errsv == ENOSYS;
}
#endif

/* Whether @fd is a pipe (or FIFO) or a socket: the devices whose readiness
 * poll() reports truthfully, and that the non-blocking paths serve. */
SnodoFdKind
snodo_fd_get_kind (int fd)
{
  struct stat st;

  if (fstat (fd, &st) != 0)
    return SNODO_FD_OTHER;
  if (S_ISFIFO (st.st_mode))
    return SNODO_FD_PIPE;
  if (S_ISSOCK (st.st_mode))
    return SNODO_FD_SOCKET;
  return SNODO_FD_OTHER;
}

/* Waits for nothing: 1 if @fd polls ready for @events, 0 if not, -1 on
 * error (errno set). */
static int
snodo_fd_poll_now (int      fd,
                   gushort  events)
{
  GPollFD pfd = { fd, events, 0 };
  int ready;

  /* GLib's poll(), which works around the systems where poll() does not
   * report on every kind of descriptor. */
  do
    ready = g_poll (&pfd, 1, 0);
  while (ready < 0 && errno == EINTR);
  return ready;
}

/*
 * Moves at most @len bytes between @data and a pipe or socket without
 * blocking and without O_NONBLOCK (the descriptor may be shared, e.g. stdin
 * or stdout): preadv2() or pwritev2() with RWF_NOWAIT where the kernel
 * takes it (*@nowait is cleared the first time it does not), recv() or
 * send() with MSG_DONTWAIT, or else poll() and then read(), or write() of
 * at most PIPE_BUF bytes (a pipe that polls writable has room for that
 * much: a free page, so the write returns at once). Writes never raise
 * SIGPIPE on a socket where send() takes MSG_NOSIGNAL; on a pipe, and on
 * a socket elsewhere, see SigpipeGuard. Returns the bytes
 * moved (0 at end of input), or -1 with errno set, EAGAIN when the device
 * is not ready.
 */
static gssize
snodo_fd_transfer_nonblocking (int          fd,
                               SnodoFdKind  kind,
                               gboolean    *nowait,
                               gboolean     writing,
                               void        *data,
                               gsize        len)
{
  for (;;)
    {
      gssize n;

#ifdef HAVE_PWRITEV2
      if (*nowait)
        {
          struct iovec vector = { data, len };

          if (writing)
            n = pwritev2 (fd, &vector, 1, -1, RWF_NOWAIT);
          else
            n = preadv2 (fd, &vector, 1, -1, RWF_NOWAIT);
          if (n >= 0)
            return n;
          if (errno == EINTR)
            continue;
          if (!snodo_fd_errno_is_unsupported (errno))
            return -1;
          *nowait = FALSE;
        }
#else
      *nowait = FALSE;
#endif

      if (kind == SNODO_FD_SOCKET)
        {
          if (writing)
            n = send (fd, data, len, SNODO_SEND_FLAGS);
          else
            n = recv (fd, data, len, MSG_DONTWAIT);
        }
      else
        {
          int ready = snodo_fd_poll_now (fd, writing ? G_IO_OUT : G_IO_IN);

          if (ready == 0)
            {
              errno = EAGAIN;
              return -1;
            }
          if (ready < 0)
            n = -1;
          else if (writing)
            n = write (fd, data, MIN (len, PIPE_BUF));
          else
            n = read (fd, data, len);
        }
      if (n >= 0)
        return n;
      if (errno != EINTR)
        return -1;
    }
}

/*
 * Reads at most @size bytes of a pipe or socket without blocking (see
 * snodo_fd_transfer_nonblocking()). Returns the bytes read, 0 at end of
 * input, or -1 with G_IO_ERROR_WOULD_BLOCK or the error.
 */
gssize
snodo_fd_read_nonblocking (int           fd,
                           SnodoFdKind   kind,
                           gboolean     *nowait,
                           void         *buffer,
                           gsize         size,
                           GError      **error)
{
  gssize n = snodo_fd_transfer_nonblocking (fd, kind, nowait, FALSE, buffer, size);

  if (n < 0)
    {
      int errsv = errno;

      /* EAGAIN and EWOULDBLOCK become G_IO_ERROR_WOULD_BLOCK. */
      snodo_fd_set_error (error, errsv);
    }
  return n;
}

/*
 * A library must not change how its process handles signals, yet a write to
 * a pipe or socket whose reader is gone raises SIGPIPE, which kills a
 * program that left it at its default (a C or GJS program: Python ignores
 * it). So while SIGPIPE has its default disposition, a write on the
 * context blocks it in the writing thread for the time of the write, and a
 * SIGPIPE that write raised is taken back before it is unblocked: the
 * write fails with EPIPE, an output error, and nothing else happens. The
 * helper thread blocks it for good.
 */
typedef struct
{
  sigset_t old_mask;
  gboolean was_pending;
} SigpipeGuard;

static gboolean
snodo_sigpipe_is_default (void)
{
  struct sigaction action;

  return sigaction (SIGPIPE, NULL, &action) == 0 && action.sa_handler == SIG_DFL;
}

static void
snodo_sigpipe_guard_begin (SigpipeGuard *guard)
{
  sigset_t sigpipe, pending;

  sigemptyset (&sigpipe);
  sigaddset (&sigpipe, SIGPIPE);
  guard->was_pending = sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE);
  pthread_sigmask (SIG_BLOCK, &sigpipe, &guard->old_mask);
}

static void
snodo_sigpipe_guard_end (SigpipeGuard *guard,
                         gboolean      raised)
{
  if (raised && !guard->was_pending)
    {
      sigset_t sigpipe;
#ifdef HAVE_SIGTIMEDWAIT
      static const struct timespec no_wait = { 0, 0 };
#else
      sigset_t pending;
      int taken;
#endif

      sigemptyset (&sigpipe);
      sigaddset (&sigpipe, SIGPIPE);
#ifdef HAVE_SIGTIMEDWAIT
      while (sigtimedwait (&sigpipe, NULL, &no_wait) < 0 && errno == EINTR)
        ;
#else
      /* The write raised SIGPIPE at this thread, where it is blocked: it
       * is pending, so sigwait() returns at once. Checked first all the
       * same, for a write that failed without raising it. */
      if (sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE))
        sigwait (&sigpipe, &taken);
#endif
    }
  pthread_sigmask (SIG_SETMASK, &guard->old_mask, NULL);
}

static gssize snodo_writer_fd_write_unguarded (SnodoWriter   *self,
                                               const guint8  *data,
                                               gsize          len,
                                               GError       **error);

/* Writes a part of @data to the writer's descriptor without blocking: the
 * bytes written, 0 if the device takes nothing now, -1 on error. Never
 * raises SIGPIPE in the process. */
static gssize
snodo_writer_fd_write (SnodoWriter   *self,
                       const guint8  *data,
                       gsize          len,
                       GError       **error)
{
  SigpipeGuard guard;
  GError *local_error = NULL;
  gssize n;

  if (!self->fd_guard_sigpipe)
    return snodo_writer_fd_write_unguarded (self, data, len, error);

  snodo_sigpipe_guard_begin (&guard);
  n = snodo_writer_fd_write_unguarded (self, data, len, &local_error);
  snodo_sigpipe_guard_end (&guard, g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_BROKEN_PIPE));
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return n;
}

static gssize
snodo_writer_fd_write_unguarded (SnodoWriter   *self,
                                 const guint8  *data,
                                 gsize          len,
                                 GError       **error)
{
  gssize n = snodo_fd_transfer_nonblocking (self->fd, self->fd_kind, &self->fd_nowait, TRUE,
                                            (void *) data, len);

  if (n < 0)
    {
      int errsv = errno;

      if (errsv == EAGAIN || errsv == EWOULDBLOCK)
        return 0;
      snodo_fd_set_error (error, errsv);
    }
  return n;
}

#endif /* G_OS_UNIX */

/* ---- Writing on the context ------------------------------------------- */

static gssize
snodo_writer_try_write (SnodoWriter   *self,
                        const guint8  *data,
                        gsize          len,
                        GError       **error)
{
  GError *local_error = NULL;
  gssize n;

#ifdef G_OS_UNIX
  if (self->mode == WRITER_MODE_FD)
    {
      if (g_output_stream_is_closed (self->stream))
        {
          g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_CLOSED, "Stream is already closed");
          return -1;
        }
      return snodo_writer_fd_write (self, data, len, error);
    }
#endif

  if (self->emulated)
    len = MIN (len, PIPE_BUF);
  n = g_pollable_output_stream_write_nonblocking (G_POLLABLE_OUTPUT_STREAM (self->stream),
                                                  data, len, NULL, &local_error);
  if (n < 0 && g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
    {
      g_error_free (local_error);
      return 0;
    }
  if (n < 0)
    g_propagate_error (error, local_error);
  return n;
}

/* The batch in @buffer is written (or never will be): lets go of it, and
 * of the joining memory if that grew large. */
static void
snodo_writer_clear_buffer (SnodoWriter *self)
{
  g_clear_pointer (&self->buffer, g_bytes_unref);
  if (self->joined != NULL && self->joined->len > JOINED_KEEP_MAX)
    g_clear_pointer (&self->joined, g_byte_array_unref);
}

/* Writes what the device takes now, at most MAX_BYTES_PER_DISPATCH. TRUE
 * once the batch is written or the stream failed (@error set); FALSE if the
 * rest must wait. */
static gboolean
snodo_writer_advance (SnodoWriter  *self,
                      GError      **error)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (self->buffer, &len);
  gsize budget = MAX_BYTES_PER_DISPATCH;

  while (self->offset < len)
    {
      gssize n;

      if (budget == 0)
        return FALSE;
      n = snodo_writer_try_write (self, data + self->offset, MIN (len - self->offset, budget), error);
      if (n < 0)
        return TRUE;
      if (n == 0)
        return FALSE;
      self->offset += n;
      budget -= MIN ((gsize) n, budget);
    }
  return TRUE;
}

/* The source's callback, for both kinds of source: the device may take
 * more. */
static gboolean
snodo_writer_writable_cb (gpointer user_data)
{
  SnodoWriter *self = user_data;
  g_autoptr(GError) error = NULL;
  SnodoWriterFunc func;

  /* The source holds the writer, and abandoning destroys the source. */
  g_assert (!self->abandoned);

  if (!snodo_writer_advance (self, &error))
    return G_SOURCE_CONTINUE;

  g_clear_pointer (&self->source, g_source_unref);
  snodo_writer_clear_buffer (self);
  g_mutex_lock (&self->lock);
  self->busy = FALSE;
  g_mutex_unlock (&self->lock);
  func = self->func;
  /* It may start the next write, or abandon the writer. */
  func (error, self->user_data);
  return G_SOURCE_REMOVE;
}

#ifdef G_OS_UNIX
static gboolean
snodo_writer_fd_writable_cb (int           fd,
                             GIOCondition  condition,
                             gpointer      user_data)
{
  return snodo_writer_writable_cb (user_data);
}
#endif

static gboolean
snodo_writer_pollable_writable_cb (GObject  *stream,
                                   gpointer  user_data)
{
  return snodo_writer_writable_cb (user_data);
}

/* ---- Writing in the thread -------------------------------------------- */

static void
write_result_free (WriteResult *result)
{
  g_clear_pointer (&result->writer, snodo_writer_unref);
  g_clear_error (&result->error);
  g_free (result);
}

static gboolean
snodo_writer_report_cb (gpointer data)
{
  WriteResult *result = data;
  SnodoWriter *self = result->writer;
  gboolean abandoned;

  g_mutex_lock (&self->lock);
  abandoned = self->abandoned;
  self->busy = FALSE;
  g_mutex_unlock (&self->lock);

  if (!abandoned)
    result->func (result->error, result->user_data);

  return G_SOURCE_REMOVE;
}

static gpointer
snodo_writer_thread (gpointer data)
{
  SnodoWriter *self = data;

#ifdef G_OS_UNIX
  {
    /* A write to a reader that is gone fails with EPIPE here, without
     * raising SIGPIPE in the process (see SigpipeGuard). */
    sigset_t sigpipe;

    sigemptyset (&sigpipe);
    sigaddset (&sigpipe, SIGPIPE);
    pthread_sigmask (SIG_BLOCK, &sigpipe, NULL);
  }
#endif

  for (;;)
    {
      g_autoptr(GPtrArray) lines = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree GOutputVector *vectors = NULL;
      WriteResult *result;
      GSource *source;
      gsize written = 0;

      g_mutex_lock (&self->lock);
      while (self->lines == NULL && !self->abandoned)
        g_cond_wait (&self->cond, &self->lock);
      if (self->abandoned)
        {
          g_mutex_unlock (&self->lock);
          break;
        }
      lines = g_steal_pointer (&self->lines);
      result = g_new0 (WriteResult, 1);
      result->func = self->func;
      result->user_data = self->user_data;
      g_mutex_unlock (&self->lock);

      vectors = g_new0 (GOutputVector, lines->len);
      for (guint i = 0; i < lines->len; i++)
        vectors[i].buffer = g_bytes_get_data (g_ptr_array_index (lines, i), &vectors[i].size);

      /* No cancellable on purpose: lines go out whole or not at all. */
      if (g_output_stream_writev_all (self->stream, vectors, lines->len, &written, NULL, &error))
        g_output_stream_flush (self->stream, NULL, &error);

      result->error = g_steal_pointer (&error);
      result->writer = snodo_writer_ref (self);

      source = g_idle_source_new ();
      g_source_set_priority (source, G_PRIORITY_DEFAULT);
      g_source_set_static_name (source, "[snodo] write done");
      g_source_set_callback (source, snodo_writer_report_cb, result, (GDestroyNotify) write_result_free);
      g_source_attach (source, self->context);
      g_source_unref (source);
    }

  snodo_writer_unref (self);
  return NULL;
}

/* ---- API --------------------------------------------------------------- */

SnodoWriter *
snodo_writer_new (GOutputStream *stream,
                  GMainContext  *context)
{
  SnodoWriter *self = g_new0 (SnodoWriter, 1);
  gboolean unix_stream = FALSE;

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->stream = g_object_ref (stream);
  self->context = g_main_context_ref (context);
  self->mode = WRITER_MODE_THREAD;

#ifdef G_OS_UNIX
  /* Exactly GIO's own type: a subclass may write otherwise. */
  unix_stream = (G_OBJECT_TYPE (stream) == G_TYPE_UNIX_OUTPUT_STREAM);
  if (unix_stream)
    {
      self->fd = g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (stream));
      self->fd_kind = snodo_fd_get_kind (self->fd);
      self->fd_nowait = snodo_fd_nowait_enabled;
      self->fd_guard_sigpipe = snodo_sigpipe_is_default ();
      if (self->fd_kind != SNODO_FD_OTHER)
        self->mode = WRITER_MODE_FD;
    }
#endif

  /* A stream that buffers (has a flush) is left to the thread, which
   * flushes; as are terminals and files, which would be GIO's emulated
   * non-blocking write. */
  if (self->mode == WRITER_MODE_THREAD &&
      !unix_stream &&
      G_IS_POLLABLE_OUTPUT_STREAM (stream) &&
      g_pollable_output_stream_can_poll (G_POLLABLE_OUTPUT_STREAM (stream)) &&
      G_OUTPUT_STREAM_GET_CLASS (stream)->flush == NULL)
    {
      GPollableOutputStreamInterface *iface = G_POLLABLE_OUTPUT_STREAM_GET_INTERFACE (stream);
      GPollableOutputStreamInterface *fallback = g_type_default_interface_ref (G_TYPE_POLLABLE_OUTPUT_STREAM);

      self->mode = WRITER_MODE_POLLABLE;
      self->emulated = (iface->write_nonblocking == fallback->write_nonblocking);
      g_type_default_interface_unref (fallback);
    }

  return self;
}

/* Entry: no write in progress (the coordinator has at most one). Writes
 * @lines, whole and in order: at once if the device takes them (DONE or
 * FAILED, and @func is not called), or else later (PENDING: @func is called
 * once on the context, unless the writer is abandoned first). */
SnodoWriterStatus
snodo_writer_write (SnodoWriter      *self,
                    GPtrArray        *lines,
                    SnodoWriterFunc   func,
                    gpointer          user_data,
                    GError          **error)
{
  g_autoptr(GError) local_error = NULL;

  g_assert (!self->busy);
  g_assert (!self->abandoned);
  g_assert (lines->len > 0);

  if (self->mode == WRITER_MODE_THREAD)
    {
      g_mutex_lock (&self->lock);
      self->busy = TRUE;
      /* The thread's own references: the coordinator may drop its lines
       * while an abandoned write still uses them. */
      self->lines = g_ptr_array_new_full (lines->len, (GDestroyNotify) g_bytes_unref);
      for (guint i = 0; i < lines->len; i++)
        g_ptr_array_add (self->lines, g_bytes_ref (g_ptr_array_index (lines, i)));
      self->func = func;
      self->user_data = user_data;
      g_cond_signal (&self->cond);
      g_mutex_unlock (&self->lock);

      if (!self->thread_started)
        {
          self->thread_started = TRUE;
          /* The thread's reference. */
          g_thread_unref (g_thread_new ("snodo-writer", snodo_writer_thread, snodo_writer_ref (self)));
        }
      return SNODO_WRITER_PENDING;
    }

  if (lines->len == 1)
    self->buffer = g_bytes_ref (g_ptr_array_index (lines, 0));
  else
    {
      if (self->joined == NULL)
        self->joined = g_byte_array_new ();
      g_byte_array_set_size (self->joined, 0);
      for (guint i = 0; i < lines->len; i++)
        {
          gsize len;
          const guint8 *data = g_bytes_get_data (g_ptr_array_index (lines, i), &len);

          g_byte_array_append (self->joined, data, len);
        }
      /* Valid until snodo_writer_clear_buffer(): @joined is only changed
       * by the next batch, which waits for this one. */
      self->buffer = g_bytes_new_static (self->joined->data, self->joined->len);
    }
  self->offset = 0;

  if (snodo_writer_advance (self, &local_error))
    {
      snodo_writer_clear_buffer (self);
      if (local_error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          return SNODO_WRITER_FAILED;
        }
      return SNODO_WRITER_DONE;
    }

  /* The device is full: wait for it to take more. */
  g_mutex_lock (&self->lock);
  self->busy = TRUE;
  g_mutex_unlock (&self->lock);
  self->func = func;
  self->user_data = user_data;

#ifdef G_OS_UNIX
  if (self->mode == WRITER_MODE_FD)
    {
      self->source = g_unix_fd_source_new (self->fd, G_IO_OUT);
      g_source_set_callback (self->source, G_SOURCE_FUNC (snodo_writer_fd_writable_cb),
                             snodo_writer_ref (self), (GDestroyNotify) snodo_writer_unref);
    }
  else
#endif
    {
      self->source = g_pollable_output_stream_create_source (G_POLLABLE_OUTPUT_STREAM (self->stream), NULL);
      g_source_set_callback (self->source, G_SOURCE_FUNC (snodo_writer_pollable_writable_cb),
                             snodo_writer_ref (self), (GDestroyNotify) snodo_writer_unref);
    }
  g_source_set_static_name (self->source, "[snodo] output writable");
  /* Not blocked while dispatched (which costs two wake-ups of the context):
   * the callback never iterates the context. */
  g_source_set_can_recurse (self->source, TRUE);
  g_source_attach (self->source, self->context);
  return SNODO_WRITER_PENDING;
}

gboolean
snodo_writer_is_busy (SnodoWriter *self)
{
  gboolean busy;

  g_mutex_lock (&self->lock);
  busy = self->busy;
  g_mutex_unlock (&self->lock);
  return busy;
}

/* Drops the coordinator's reference. Nothing more is written on the
 * context; a write in progress in the thread finishes there (or never
 * does). No callback runs any more. */
void
snodo_writer_abandon (SnodoWriter *self)
{
  g_mutex_lock (&self->lock);
  self->abandoned = TRUE;
  g_clear_pointer (&self->lines, g_ptr_array_unref);
  g_cond_signal (&self->cond);
  g_mutex_unlock (&self->lock);

  if (self->source != NULL)
    {
      GSource *source = g_steal_pointer (&self->source);

      /* Drops the source's reference on the writer. */
      g_source_destroy (source);
      g_source_unref (source);
    }
  snodo_writer_clear_buffer (self);
  snodo_writer_unref (self);
}
