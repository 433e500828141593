/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* Serving from the running instance. When a unique application is already
 * running and `app --mcp-stdio` starts, the new process hands its standard
 * input and output (the descriptors, in a GUnixFDList) to the primary
 * instance with the method ServeStdio of the interface the binding exports
 * on the application's object path, and waits for the answer, which comes
 * when that connection ends and carries its exit status. The primary serves
 * the descriptors with its own server, and closes the connection if the
 * caller leaves the bus first (it was killed, say). Unix only. */

#include "config.h"

#include "snodo-app-private.h"
#include "snodo-base-private.h"

#ifdef G_OS_UNIX
# include <signal.h>
# include <glib-unix.h>
# include <glib/gstdio.h>
# include <gio/gunixfdlist.h>
# include <gio/gunixinputstream.h>
# include <gio/gunixoutputstream.h>

static const char introspection_xml[] =
  "<node>"
  "  <interface name='" SNODO_APPLICATION_INTERFACE "'>"
  "    <method name='ServeStdio'>"
  "      <arg type='h' name='input' direction='in'/>"
  "      <arg type='h' name='output' direction='in'/>"
  "      <arg type='i' name='status' direction='out'/>"
  "    </method>"
  "  </interface>"
  "</node>";

/* How long the caller retries while the primary has not exported the
 * interface yet (it does so as it starts up). */
#define HAND_OVER_RETRY_MS 50
#define HAND_OVER_TRIES 100

/* ---- The primary instance ------------------------------------------------ */

/* One connection handed over: served until it closes, then answered. */
typedef struct
{
  SnodoApplicationBinding *binding;      /* owned */
  SnodoStdioTransport     *transport;    /* owned */
  GDBusMethodInvocation   *invocation;   /* owned until answered */
  GInputStream            *input;        /* owned; closed at the end */
  GOutputStream           *output;       /* owned; closed at the end */
  guint                    watch_id;     /* the caller on the bus */
  int                      status;
} HandOver;

static void
hand_over_free (HandOver *hand_over)
{
  g_clear_handle_id (&hand_over->watch_id, g_bus_unwatch_name);
  g_clear_object (&hand_over->transport);
  if (hand_over->output != NULL)
    g_output_stream_close (hand_over->output, NULL, NULL);
  if (hand_over->input != NULL)
    g_input_stream_close (hand_over->input, NULL, NULL);
  g_clear_object (&hand_over->output);
  g_clear_object (&hand_over->input);
  g_clear_object (&hand_over->invocation);
  g_clear_object (&hand_over->binding);
  g_free (hand_over);
}

static void
hand_over_closed_cb (SnodoStdioTransport *transport,
                     const GError        *error,
                     HandOver            *hand_over)
{
  if (error != NULL)
    {
      g_printerr ("%s: %s\n", g_get_prgname () != NULL ? g_get_prgname () : "snodo", error->message);
      hand_over->status = 1;
    }
  if (hand_over->invocation != NULL)
    g_dbus_method_invocation_return_value (g_steal_pointer (&hand_over->invocation),
                                           g_variant_new ("(i)", hand_over->status));
  g_signal_handlers_disconnect_by_data (transport, hand_over);
  snodo_application_binding_untrack (hand_over->binding, G_OBJECT (transport));
  hand_over_free (hand_over);
}

static void
hand_over_vanished_cb (GDBusConnection *connection,
                       const char      *name,
                       gpointer         user_data)
{
  HandOver *hand_over = user_data;

  /* Nobody waits for the answer any more: the connection is the
   * caller's, and it is gone. */
  g_clear_object (&hand_over->invocation);
  snodo_stdio_transport_close_async (hand_over->transport, NULL, NULL, NULL);
}

static void
snodo_application_binding_method_call_cb (GDBusConnection       *connection,
                                          const char            *sender,
                                          const char            *object_path,
                                          const char            *interface_name,
                                          const char            *method_name,
                                          GVariant              *parameters,
                                          GDBusMethodInvocation *invocation,
                                          gpointer               user_data)
{
  SnodoApplicationBinding *self = user_data;
  GUnixFDList *fds = g_dbus_message_get_unix_fd_list (g_dbus_method_invocation_get_message (invocation));
  g_autofree int *taken = NULL;
  int n_taken = 0;
  HandOver *hand_over;
  gint32 input_index = -1;
  gint32 output_index = -1;
  int input_fd = -1;
  int output_fd = -1;

  g_variant_get (parameters, "(hh)", &input_index, &output_index);
  /* Taken out of the message: no copy stays open in it (a client reads
   * its end of file only once every copy is closed). */
  if (fds != NULL)
    taken = g_unix_fd_list_steal_fds (fds, &n_taken);
  for (int i = 0; i < n_taken; i++)
    if (i == input_index && input_fd < 0)
      input_fd = taken[i];
    else if (i == output_index && output_fd < 0)
      output_fd = taken[i];
    else
      g_close (taken[i], NULL);
  if (input_fd < 0 || output_fd < 0)
    {
      if (input_fd >= 0)
        g_close (input_fd, NULL);
      if (output_fd >= 0)
        g_close (output_fd, NULL);
      g_dbus_method_invocation_return_error_literal (invocation, G_DBUS_ERROR, G_DBUS_ERROR_INVALID_ARGS,
                                                     _("ServeStdio needs two file descriptors"));
      return;
    }

  /* A client that goes away must be an output error of its connection,
   * not a killed application. */
  signal (SIGPIPE, SIG_IGN);

  hand_over = g_new0 (HandOver, 1);
  hand_over->binding = g_object_ref (self);
  hand_over->invocation = g_object_ref (invocation);
  hand_over->input = g_unix_input_stream_new (input_fd, TRUE);
  hand_over->output = g_unix_output_stream_new (output_fd, TRUE);
  hand_over->transport = snodo_stdio_transport_new (self->server, hand_over->input, hand_over->output);
  g_signal_emit_by_name (self, "prepare-transport", hand_over->transport);
  g_signal_connect (hand_over->transport, "closed", G_CALLBACK (hand_over_closed_cb), hand_over);
  hand_over->watch_id = g_bus_watch_name_on_connection (connection, sender, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                        NULL, hand_over_vanished_cb, hand_over, NULL);
  snodo_application_binding_track (self, G_OBJECT (hand_over->transport));
  snodo_stdio_transport_start (hand_over->transport);
}

static const GDBusInterfaceVTable vtable = {
  snodo_application_binding_method_call_cb, NULL, NULL, { 0, }
};

void
snodo_application_binding_export (SnodoApplicationBinding *self)
{
  g_autoptr(GDBusNodeInfo) info = NULL;
  g_autoptr(GError) error = NULL;
  GDBusConnection *connection;
  const char *path;

  if (self->application == NULL || self->registration_id != 0 ||
      (g_application_get_flags (self->application) & G_APPLICATION_NON_UNIQUE) != 0)
    return;
  connection = g_application_get_dbus_connection (self->application);
  path = g_application_get_dbus_object_path (self->application);
  if (connection == NULL || path == NULL)
    return;
  info = g_dbus_node_info_new_for_xml (introspection_xml, NULL);
  self->registration_id = g_dbus_connection_register_object (connection, path, info->interfaces[0], &vtable,
                                                             self, NULL, &error);
  if (self->registration_id == 0)
    {
      g_warning ("Cannot export %s on %s: %s", SNODO_APPLICATION_INTERFACE, path, error->message);
      return;
    }
  self->connection = g_object_ref (connection);
}

void
snodo_application_binding_unexport (SnodoApplicationBinding *self)
{
  if (self->registration_id != 0)
    g_dbus_connection_unregister_object (self->connection, self->registration_id);
  self->registration_id = 0;
  g_clear_object (&self->connection);
}

/* ---- The instance that hands over ---------------------------------------- */

typedef struct
{
  GDBusConnection *connection;
  const char      *name;
  const char      *path;
  GMainContext    *context;
  guint            tries;
  gboolean         done;
  int              status;
} Call;

static void hand_over_call (Call *call);

static gboolean
hand_over_retry_cb (gpointer data)
{
  hand_over_call (data);
  return G_SOURCE_REMOVE;
}

static void
hand_over_reply_cb (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Call *call = user_data;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) error = NULL;

  reply = g_dbus_connection_call_with_unix_fd_list_finish (G_DBUS_CONNECTION (object), NULL, result, &error);
  if (reply != NULL)
    {
      g_variant_get (reply, "(i)", &call->status);
      call->done = TRUE;
      return;
    }
  /* The primary instance is starting and has not exported the interface
   * yet: a moment later. */
  if ((g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD) ||
       g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_OBJECT) ||
       g_error_matches (error, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_INTERFACE)) &&
      ++call->tries < HAND_OVER_TRIES)
    {
      GSource *source = g_timeout_source_new (HAND_OVER_RETRY_MS);

      g_source_set_callback (source, hand_over_retry_cb, call, NULL);
      g_source_attach (source, call->context);
      g_source_unref (source);
      return;
    }
  g_printerr (_("%s: the running instance cannot serve: %s\n"),
              g_get_prgname () != NULL ? g_get_prgname () : "snodo", error->message);
  call->status = 1;
  call->done = TRUE;
}

static void
hand_over_call (Call *call)
{
  g_autoptr(GUnixFDList) fds = g_unix_fd_list_new ();
  g_autoptr(GError) error = NULL;

  if (g_unix_fd_list_append (fds, 0, &error) < 0 || g_unix_fd_list_append (fds, 1, &error) < 0)
    {
      g_printerr ("%s: %s\n", g_get_prgname () != NULL ? g_get_prgname () : "snodo", error->message);
      call->status = 1;
      call->done = TRUE;
      return;
    }
  g_dbus_connection_call_with_unix_fd_list (call->connection, call->name, call->path,
                                            SNODO_APPLICATION_INTERFACE, "ServeStdio",
                                            g_variant_new ("(hh)", 0, 1), G_VARIANT_TYPE ("(i)"),
                                            G_DBUS_CALL_FLAGS_NONE, G_MAXINT, fds, NULL,
                                            hand_over_reply_cb, call);
}

static gboolean
hand_over_signal_cb (gpointer data)
{
  Call *call = data;

  /* Leaving the bus is what tells the primary instance to close the
   * connection. */
  call->status = 0;
  call->done = TRUE;
  return G_SOURCE_REMOVE;
}

/* Registers the application; if another instance is the primary one, hands
 * it standard input and output and waits until that connection ends, with
 * its exit status in *out_status. FALSE when this process is to serve. */
gboolean
snodo_application_binding_hand_over (SnodoApplicationBinding *self,
                                     int                     *out_status)
{
  g_autoptr(GMainContext) context = NULL;
  g_autoptr(GError) error = NULL;
  GSource *sources[2];
  Call call = { 0, };

  if (self->application == NULL || g_application_get_application_id (self->application) == NULL ||
      (g_application_get_flags (self->application) & G_APPLICATION_NON_UNIQUE) != 0)
    return FALSE;
  if (!g_application_register (self->application, NULL, &error))
    {
      g_printerr ("%s: %s\n", g_get_prgname () != NULL ? g_get_prgname () : "snodo", error->message);
      *out_status = 1;
      return TRUE;
    }
  if (!g_application_get_is_remote (self->application))
    return FALSE;

  call.connection = g_application_get_dbus_connection (self->application);
  call.name = g_application_get_application_id (self->application);
  call.path = g_application_get_dbus_object_path (self->application);
  if (call.connection == NULL || call.path == NULL)
    return FALSE;

  /* A context of its own: the application's main loop does not run yet,
   * and nothing of it must run while this process only waits. */
  context = g_main_context_new ();
  call.context = context;
  g_main_context_push_thread_default (context);
  sources[0] = g_unix_signal_source_new (SIGINT);
  sources[1] = g_unix_signal_source_new (SIGTERM);
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_source_set_callback (sources[i], hand_over_signal_cb, &call, NULL);
      g_source_attach (sources[i], context);
    }
  hand_over_call (&call);
  while (!call.done)
    g_main_context_iteration (context, TRUE);
  for (guint i = 0; i < G_N_ELEMENTS (sources); i++)
    {
      g_source_destroy (sources[i]);
      g_source_unref (sources[i]);
    }
  g_main_context_pop_thread_default (context);

  *out_status = call.status;
  return TRUE;
}

#else /* !G_OS_UNIX */

gboolean
snodo_application_binding_hand_over (SnodoApplicationBinding *self,
                                     int                     *out_status)
{
  return FALSE;
}

void
snodo_application_binding_export (SnodoApplicationBinding *self)
{
}

void
snodo_application_binding_unexport (SnodoApplicationBinding *self)
{
}

#endif
