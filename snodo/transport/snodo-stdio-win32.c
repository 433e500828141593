/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Standard input and output on Windows.
 *
 * GWin32InputStream and GWin32OutputStream hand ReadFile() and WriteFile()
 * a zeroed OVERLAPPED even on a synchronous handle; for a disk file that
 * means "at offset 0", every time: standard input redirected from a file
 * would be read again and again, and standard output redirected to a file
 * overwritten from its start. Pipes and consoles have no offset, and keep
 * GLib's streams. A disk file gets the two plain streams of this file,
 * which pass no OVERLAPPED, so that the file pointer is used and moves: the
 * input is read from where it stands, the output appended in order. */

#include "config.h"

#include <windows.h>

#include <gio/gwin32inputstream.h>
#include <gio/gwin32outputstream.h>

/* The snodo program builds this file in too, for its proxy, with
 * SNODO_STDIO_WIN32_IN_PROGRAM: the library does not export it. */
#ifdef SNODO_STDIO_WIN32_IN_PROGRAM
# include <glib/gi18n.h>
#else
# include "snodo-base-private.h"
#endif
#include "snodo-stdio-win32-private.h"

typedef struct
{
  GInputStream parent_instance;
  HANDLE       handle;
} SnodoWin32FileInput;

typedef struct
{
  GInputStreamClass parent_class;
} SnodoWin32FileInputClass;

typedef struct
{
  GOutputStream parent_instance;
  HANDLE        handle;
} SnodoWin32FileOutput;

typedef struct
{
  GOutputStreamClass parent_class;
} SnodoWin32FileOutputClass;

static GType snodo_win32_file_input_get_type (void);
static GType snodo_win32_file_output_get_type (void);

G_DEFINE_TYPE (SnodoWin32FileInput, snodo_win32_file_input, G_TYPE_INPUT_STREAM)
G_DEFINE_TYPE (SnodoWin32FileOutput, snodo_win32_file_output, G_TYPE_OUTPUT_STREAM)

static void
set_win32_error (GError     **error,
                 DWORD        code,
                 const char  *what)
{
  g_autofree char *message = g_win32_error_message (code);

  g_set_error (error, G_IO_ERROR, g_io_error_from_win32_error (code), "%s: %s", what, message);
}

static gssize
snodo_win32_file_input_read (GInputStream  *stream,
                             void          *buffer,
                             gsize          count,
                             GCancellable  *cancellable,
                             GError       **error)
{
  SnodoWin32FileInput *self = (SnodoWin32FileInput *) stream;
  DWORD got = 0;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;
  if (!ReadFile (self->handle, buffer, (DWORD) MIN (count, G_MAXINT32), &got, NULL))
    {
      DWORD code = GetLastError ();

      if (code == ERROR_HANDLE_EOF || code == ERROR_BROKEN_PIPE)
        return 0;
      set_win32_error (error, code, _("Error reading from the input file"));
      return -1;
    }
  return got;
}

static gssize
snodo_win32_file_output_write (GOutputStream  *stream,
                               const void     *buffer,
                               gsize           count,
                               GCancellable   *cancellable,
                               GError        **error)
{
  SnodoWin32FileOutput *self = (SnodoWin32FileOutput *) stream;
  DWORD put = 0;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return -1;
  if (!WriteFile (self->handle, buffer, (DWORD) MIN (count, G_MAXINT32), &put, NULL))
    {
      set_win32_error (error, GetLastError (), _("Error writing to the output file"));
      return -1;
    }
  return put;
}

static void
snodo_win32_file_input_init (SnodoWin32FileInput *self)
{
}

static void
snodo_win32_file_output_init (SnodoWin32FileOutput *self)
{
}

static void
snodo_win32_file_input_class_init (SnodoWin32FileInputClass *klass)
{
  G_INPUT_STREAM_CLASS (klass)->read_fn = snodo_win32_file_input_read;
}

static void
snodo_win32_file_output_class_init (SnodoWin32FileOutputClass *klass)
{
  G_OUTPUT_STREAM_CLASS (klass)->write_fn = snodo_win32_file_output_write;
}

GInputStream *
snodo_win32_stdin_stream_new (void)
{
  HANDLE handle = GetStdHandle (STD_INPUT_HANDLE);
  SnodoWin32FileInput *stream;

  if (GetFileType (handle) != FILE_TYPE_DISK)
    return g_win32_input_stream_new (handle, FALSE);
  stream = g_object_new (snodo_win32_file_input_get_type (), NULL);
  stream->handle = handle;
  return G_INPUT_STREAM (stream);
}

GOutputStream *
snodo_win32_stdout_stream_new (void)
{
  HANDLE handle = GetStdHandle (STD_OUTPUT_HANDLE);
  SnodoWin32FileOutput *stream;

  if (GetFileType (handle) != FILE_TYPE_DISK)
    return g_win32_output_stream_new (handle, FALSE);
  stream = g_object_new (snodo_win32_file_output_get_type (), NULL);
  stream->handle = handle;
  return G_OUTPUT_STREAM (stream);
}
