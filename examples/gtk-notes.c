/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/*
 * gtk-notes: a GTK 4 application that lets an MCP client (an AI assistant)
 * read and edit the document it shows, from the application's own main
 * loop, through SnodoApplicationBinding: over Streamable HTTP on the
 * loopback interface, or over standard input and output.
 *
 *   note://document          resource, text/plain: the text of the window,
 *                            as it is when read; subscribers are told when
 *                            it changes (whoever changed it)
 *   append_text {text}       adds text at the end of the document
 *   replace_text {search, replacement}
 *                            replaces every occurrence of search; a tool
 *                            error if there is none
 *
 * Its actions, which shortcuts activate too, are tools (see
 * snodo_server_add_action_group()):
 *
 *   app.insert-text {parameter}
 *                            inserts text at the cursor
 *   app.wrap                 turns word wrapping on or off (Alt+Z); its
 *                            state is the resource action:app.wrap
 *   app.clear                empties the document (Ctrl+Shift+K), keeping
 *                            its text for app.restore
 *   app.restore              puts the cleared text back; enabled, and so
 *                            offered, only after app.clear
 *
 * With its GSettings schema (org.snodo.examples.Notes, found through
 * GSETTINGS_SCHEMA_DIR when not installed), its font size is the resource
 * settings://org.snodo.examples.Notes/font-size, which the tool
 * org.snodo.examples.Notes.set-font-size sets (see
 * snodo_server_add_settings()). Without the schema it runs without settings.
 *
 *   gtk-notes                 the window only: no MCP
 *   gtk-notes --port PORT     serves HTTP on 127.0.0.1:PORT (0: any free
 *                             port), as --mcp-http=127.0.0.1:PORT does
 *   gtk-notes --mcp-stdio     serves on standard input and output; if
 *                             gtk-notes is running already, it serves this
 *                             connection with the window already open
 *   gtk-notes --help-mcp      the binding's other options
 *
 * Serving HTTP, it prints the endpoint's URL (http://127.0.0.1:PORT/mcp) as
 * the first line on standard output. Closing the window, SIGINT or SIGTERM
 * end it: the requests in progress are answered, then it exits 0.
 */

#include <signal.h>

#include <glib-unix.h>
#include <gtk/gtk.h>
#include <snodo/snodo.h>

#define DOCUMENT_URI "note://document"
#define SETTINGS_SCHEMA "org.snodo.examples.Notes"
/* Typing sends one "updated" per pause, not one per key. */
#define UPDATE_DELAY_MS 250

typedef struct
{
  /* Not owned: the application running in main(). */
  GtkApplication     *app;
  /* Owned: the document. It outlives the window so that a read that comes
   * in while the application is closing is still answered. */
  GtkTextBuffer      *buffer;
  /* Not owned, nullable: the text view of the window, while it is open. */
  GtkTextView        *view;
  /* Owned, nullable: the preferences, when the schema is installed, and
   * the style that applies the font size. */
  GSettings          *settings;
  GtkCssProvider     *css;
  /* Owned, nullable: the text app.clear took out, for app.restore. */
  char               *cleared;
  /* Owned: what the application offers, and what serves it when the
   * command line asks (the binding, which the application keeps too). */
  SnodoServer             *server;
  SnodoApplicationBinding *binding;
  /* Owned, nullable: the HTTP endpoint, for the window to show. */
  SnodoHttpTransport      *transport;
  /* The pending announcement that the document changed, or 0. */
  guint                    update_id;
  guint                    sigint_id;
  guint                    sigterm_id;
  /* Once set, nothing new starts: the endpoint is closing. */
  gboolean                 quitting;
} Notes;

/* The arguments of the tools, as JSON Schemas. */
static const char append_text_schema[] =
  "{"
  "  \"type\": \"object\","
  "  \"properties\": {\"text\": {\"type\": \"string\"}},"
  "  \"required\": [\"text\"]"
  "}";

static const char replace_text_schema[] =
  "{"
  "  \"type\": \"object\","
  "  \"properties\": {"
  "    \"search\": {\"type\": \"string\", \"minLength\": 1},"
  "    \"replacement\": {\"type\": \"string\"}"
  "  },"
  "  \"required\": [\"search\", \"replacement\"]"
  "}";

static const char welcome_text[] =
  "Welcome to Notes.\n"
  "\n"
  "An assistant connected over MCP can read this document (note://document)\n"
  "and edit it with the tools append_text and replace_text.\n";

/* ---- The document, as an MCP resource ------------------------------------ */

static char *
notes_dup_text (Notes *notes)
{
  GtkTextIter start;
  GtkTextIter end;

  gtk_text_buffer_get_bounds (notes->buffer, &start, &end);
  return gtk_text_buffer_get_text (notes->buffer, &start, &end, FALSE);
}

/* Resource handlers are called on the server's main context, which here is
 * GTK's: the buffer can be read directly. */
static void
notes_read_document_cb (SnodoInvocation *invocation,
                        gpointer         user_data)
{
  Notes *notes = user_data;
  g_autofree char *text = notes_dup_text (notes);

  snodo_invocation_return_resource_text (invocation, NULL, "text/plain", text);
}

static gboolean
notes_announce_update_cb (gpointer user_data)
{
  Notes *notes = user_data;

  notes->update_id = 0;
  snodo_server_notify_resource_updated (notes->server, DOCUMENT_URI);
  return G_SOURCE_REMOVE;
}

/* Any change, typed or made by a tool, is announced to the clients that
 * subscribed to the document, once the changes pause. */
static void
notes_buffer_changed_cb (GtkTextBuffer *buffer,
                         Notes         *notes)
{
  if (notes->server == NULL || notes->quitting || notes->update_id != 0)
    return;
  notes->update_id = g_timeout_add (UPDATE_DELAY_MS, notes_announce_update_cb, notes);
}

/* ---- The tools that edit it ---------------------------------------------- */

/* Tool handlers run on the server's main context too, unless their tool is
 * set to run in a thread: they may change the buffer directly. Each edit is
 * one user action, so one Ctrl+Z undoes it. The arguments have been checked
 * against the tool's input schema before the handler is called. */
static void
notes_append_text_cb (SnodoInvocation *invocation,
                      gpointer         user_data)
{
  Notes *notes = user_data;
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  const char *text = json_object_get_string_member (arguments, "text");
  g_autofree char *answer = NULL;
  GtkTextIter end;

  gtk_text_buffer_begin_user_action (notes->buffer);
  gtk_text_buffer_get_end_iter (notes->buffer, &end);
  gtk_text_buffer_insert (notes->buffer, &end, text, -1);
  gtk_text_buffer_end_user_action (notes->buffer);

  answer = g_strdup_printf ("Appended %ld characters; the document has %d now",
                            g_utf8_strlen (text, -1),
                            gtk_text_buffer_get_char_count (notes->buffer));
  snodo_invocation_return_text (invocation, answer);
}

static void
notes_replace_text_cb (SnodoInvocation *invocation,
                       gpointer         user_data)
{
  Notes *notes = user_data;
  JsonObject *arguments = snodo_invocation_get_arguments (invocation);
  const char *search = json_object_get_string_member (arguments, "search");
  const char *replacement = json_object_get_string_member (arguments, "replacement");
  g_autofree char *answer = NULL;
  GtkTextIter iter;
  GtkTextIter match_start;
  GtkTextIter match_end;
  guint count = 0;

  gtk_text_buffer_begin_user_action (notes->buffer);
  gtk_text_buffer_get_start_iter (notes->buffer, &iter);
  while (gtk_text_iter_forward_search (&iter, search, GTK_TEXT_SEARCH_TEXT_ONLY,
                                       &match_start, &match_end, NULL))
    {
      /* Both revalidate match_start: after the insertion it stands at the
       * end of the replacement, where the search goes on. */
      gtk_text_buffer_delete (notes->buffer, &match_start, &match_end);
      gtk_text_buffer_insert (notes->buffer, &match_start, replacement, -1);
      iter = match_start;
      count++;
    }
  gtk_text_buffer_end_user_action (notes->buffer);

  if (count == 0)
    {
      answer = g_strdup_printf ("“%s” is not in the document", search);
      snodo_invocation_return_tool_error (invocation, answer);
      return;
    }
  answer = g_strdup_printf (count == 1 ? "Replaced %u occurrence" : "Replaced %u occurrences",
                            count);
  snodo_invocation_return_text (invocation, answer);
}

static void
notes_add_to_server (Notes *notes)
{
  g_autoptr(SnodoResource) document = snodo_resource_new (DOCUMENT_URI, "document");
  g_autoptr(SnodoTool) append = NULL;
  g_autoptr(SnodoTool) replace = NULL;
  g_autoptr(GError) error = NULL;

  snodo_resource_set_title (document, "The document of Notes");
  snodo_resource_set_mime_type (document, "text/plain");
  if (!snodo_server_add_resource (notes->server, document, notes_read_document_cb, notes, NULL,
                                  &error))
    g_error ("%s: %s", DOCUMENT_URI, error->message);

  append = snodo_tool_new ("append_text", "Adds text at the end of the document");
  replace = snodo_tool_new ("replace_text", "Replaces every occurrence of a text in the document");

  if (!snodo_tool_set_input_schema_from_string (append, append_text_schema, &error) ||
      !snodo_server_add_tool (notes->server, append, notes_append_text_cb, notes, NULL, &error))
    g_error ("append_text: %s", error->message);

  if (!snodo_tool_set_input_schema_from_string (replace, replace_text_schema, &error) ||
      !snodo_server_add_tool (notes->server, replace, notes_replace_text_cb, notes, NULL, &error))
    g_error ("replace_text: %s", error->message);
}

/* ---- The actions ---------------------------------------------------------- */

/* Action handlers run on the main context too, whether a shortcut or an MCP
 * client activated them. */
static void
notes_insert_text_cb (GSimpleAction *action,
                      GVariant      *parameter,
                      gpointer       user_data)
{
  Notes *notes = user_data;

  gtk_text_buffer_begin_user_action (notes->buffer);
  gtk_text_buffer_insert_at_cursor (notes->buffer, g_variant_get_string (parameter, NULL), -1);
  gtk_text_buffer_end_user_action (notes->buffer);
}

static void
notes_apply_wrap (Notes *notes)
{
  GAction *wrap = g_action_map_lookup_action (G_ACTION_MAP (notes->app), "wrap");
  g_autoptr(GVariant) state = g_action_get_state (wrap);

  if (notes->view != NULL)
    gtk_text_view_set_wrap_mode (notes->view,
                                 g_variant_get_boolean (state) ? GTK_WRAP_WORD_CHAR : GTK_WRAP_NONE);
}

/* Activating app.wrap without a parameter toggles it (GSimpleAction does
 * that for a boolean state); a new state lands here. */
static void
notes_change_wrap_cb (GSimpleAction *action,
                      GVariant      *value,
                      gpointer       user_data)
{
  g_simple_action_set_state (action, value);
  notes_apply_wrap (user_data);
}

static void
notes_set_restore_enabled (Notes    *notes,
                           gboolean  enabled)
{
  GAction *restore = g_action_map_lookup_action (G_ACTION_MAP (notes->app), "restore");

  g_simple_action_set_enabled (G_SIMPLE_ACTION (restore), enabled);
}

static void
notes_clear_cb (GSimpleAction *action,
                GVariant      *parameter,
                gpointer       user_data)
{
  Notes *notes = user_data;

  g_free (notes->cleared);
  notes->cleared = notes_dup_text (notes);
  gtk_text_buffer_set_text (notes->buffer, "", 0);
  notes_set_restore_enabled (notes, TRUE);
}

static void
notes_restore_cb (GSimpleAction *action,
                  GVariant      *parameter,
                  gpointer       user_data)
{
  Notes *notes = user_data;
  g_autofree char *text = g_steal_pointer (&notes->cleared);

  if (text != NULL)
    gtk_text_buffer_set_text (notes->buffer, text, -1);
  notes_set_restore_enabled (notes, FALSE);
}

static void
notes_add_actions (Notes *notes)
{
  const GActionEntry entries[] = {
    { "insert-text", notes_insert_text_cb, "s", NULL, NULL, { 0 } },
    { "wrap", NULL, NULL, "true", notes_change_wrap_cb, { 0 } },
    { "clear", notes_clear_cb, NULL, NULL, NULL, { 0 } },
    { "restore", notes_restore_cb, NULL, NULL, NULL, { 0 } },
  };

  g_action_map_add_action_entries (G_ACTION_MAP (notes->app), entries, G_N_ELEMENTS (entries),
                                   notes);
  notes_set_restore_enabled (notes, FALSE);
}

/* The actions as tools, described for the assistant; app.restore comes
 * and goes as it is enabled. */
static void
notes_add_actions_to_server (Notes *notes)
{
  const char *allowed[] = { "insert-text", "wrap", "clear", "restore", NULL };
  g_autoptr(GError) error = NULL;
  GVariant *hints = g_variant_new_parsed (
    "{'insert-text': {'title': <'Insert text'>,"
    "                 'description': <'Inserts text at the cursor of the document'>,"
    "                 'parameter-description': <'The text to insert'>},"
    " 'wrap': {'title': <'Wrap lines'>,"
    "          'description': <'Turns word wrapping on or off; the state is action:app.wrap'>},"
    " 'clear': {'title': <'Clear'>,"
    "           'description': <'Empties the document; app.restore puts its text back'>},"
    " 'restore': {'title': <'Restore'>,"
    "             'description': <'Puts back the text the last app.clear took out'>}}");

  if (!snodo_server_add_action_group (notes->server, G_ACTION_GROUP (notes->app), "app", allowed,
                                      hints, NULL, &error))
    g_error ("actions: %s", error->message);
}

/* ---- The preferences ------------------------------------------------------- */

static void
notes_apply_font_size (Notes *notes)
{
  g_autofree char *css = NULL;

  if (notes->settings == NULL || notes->css == NULL)
    return;
  css = g_strdup_printf ("textview.notes { font-size: %dpt; }",
                         g_settings_get_int (notes->settings, "font-size"));
#if GTK_CHECK_VERSION (4, 12, 0)
  gtk_css_provider_load_from_string (notes->css, css);
#else
  gtk_css_provider_load_from_data (notes->css, css, -1);
#endif
}

static void
notes_font_size_changed_cb (GSettings  *settings,
                            const char *key,
                            Notes      *notes)
{
  notes_apply_font_size (notes);
}

/* The settings, if the schema is installed (or in GSETTINGS_SCHEMA_DIR):
 * an example must run from its build directory too. */
static void
notes_add_settings (Notes *notes)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;
  g_autoptr(GError) error = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, SETTINGS_SCHEMA, TRUE);
  if (schema == NULL)
    {
      g_printerr ("gtk-notes: the GSettings schema %s is not installed: running without settings\n",
                  SETTINGS_SCHEMA);
      return;
    }

  notes->settings = g_settings_new_full (schema, NULL, NULL);
  if (!snodo_server_add_settings (notes->server, notes->settings, NULL,
                                  SNODO_SETTINGS_FLAGS_WRITABLE, &error))
    g_error ("settings: %s", error->message);
}

/* ---- Ending ---------------------------------------------------------------- */

/* Closes what serves MCP: the requests in progress are answered first. The
 * binding holds the application until that is done, after the window is
 * gone. */
static void
notes_quit (Notes *notes)
{
  if (notes->quitting)
    return;
  notes->quitting = TRUE;
  g_clear_handle_id (&notes->update_id, g_source_remove);
  g_clear_handle_id (&notes->sigint_id, g_source_remove);
  g_clear_handle_id (&notes->sigterm_id, g_source_remove);
  snodo_application_binding_close (notes->binding);
}

static gboolean
notes_close_request_cb (GtkWindow *window,
                        Notes     *notes)
{
  notes_quit (notes);
  return GDK_EVENT_PROPAGATE;
}

static gboolean
notes_signal_cb (gpointer user_data)
{
  Notes *notes = user_data;
  GList *windows;

  notes_quit (notes);   /* removes this source, and the other signal's */
  while ((windows = gtk_application_get_windows (notes->app)) != NULL)
    gtk_window_destroy (windows->data);
  return G_SOURCE_REMOVE;
}

/* ---- The application ------------------------------------------------------ */

/* --port PORT, as the binding's --mcp-http=127.0.0.1:PORT. */
static int
notes_handle_local_options_cb (GApplication *app,
                               GVariantDict *options,
                               Notes        *notes)
{
  const char *port_text = NULL;
  guint64 port = 0;

  /* A string: GApplication drops an integer option whose value is 0. */
  if (g_variant_dict_lookup (options, "port", "&s", &port_text))
    {
      g_autofree char *where = NULL;

      if (!g_ascii_string_to_unsigned (port_text, 10, 0, G_MAXUINT16, &port, NULL))
        {
          g_printerr ("gtk-notes: --port needs a port from 0 to 65535\n");
          return 2;
        }
      where = g_strdup_printf ("127.0.0.1:%u", (guint) port);
      g_variant_dict_insert (options, "mcp-http", "s", where);
      g_variant_dict_remove (options, "port");
    }
  return -1;
}

/* The endpoint, before it listens: kept for the window to show its URL. */
static void
notes_prepare_transport_cb (SnodoApplicationBinding *binding,
                            GObject                 *transport,
                            Notes                   *notes)
{
  if (SNODO_IS_HTTP_TRANSPORT (transport) && notes->transport == NULL)
    notes->transport = g_object_ref (SNODO_HTTP_TRANSPORT (transport));
}

/* Once per process, in the primary instance: the document, and the
 * actions as tools. */
static void
notes_startup_cb (GApplication *app,
                  Notes        *notes)
{
  const char *wrap_accels[] = { "<Alt>z", NULL };
  const char *clear_accels[] = { "<Control><Shift>k", NULL };

  notes->buffer = gtk_text_buffer_new (NULL);
  gtk_text_buffer_set_text (notes->buffer, welcome_text, -1);
  g_signal_connect (notes->buffer, "changed", G_CALLBACK (notes_buffer_changed_cb), notes);
  /* Once registered: an application lists its actions only then. */
  notes_add_actions_to_server (notes);

  if (notes->settings != NULL)
    {
      notes->css = gtk_css_provider_new ();
      gtk_style_context_add_provider_for_display (gdk_display_get_default (),
                                                  GTK_STYLE_PROVIDER (notes->css),
                                                  GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
      g_signal_connect (notes->settings, "changed::font-size",
                        G_CALLBACK (notes_font_size_changed_cb), notes);
      notes_apply_font_size (notes);
    }

  gtk_application_set_accels_for_action (notes->app, "app.wrap", wrap_accels);
  gtk_application_set_accels_for_action (notes->app, "app.clear", clear_accels);

  notes->sigint_id = g_unix_signal_add (SIGINT, notes_signal_cb, notes);
  notes->sigterm_id = g_unix_signal_add (SIGTERM, notes_signal_cb, notes);
}

static void
notes_activate_cb (GApplication *app,
                   Notes        *notes)
{
  GtkWindow *window = gtk_application_get_active_window (notes->app);
  g_autofree char *uri = NULL;
  g_autofree char *status = NULL;
  GtkWidget *box;
  GtkWidget *scrolled;
  GtkWidget *view;
  GtkWidget *label;

  if (window != NULL)
    {
      gtk_window_present (window);
      return;
    }

  window = GTK_WINDOW (gtk_application_window_new (notes->app));
  gtk_window_set_title (window, "Notes");
  gtk_window_set_default_size (window, 640, 420);
  g_signal_connect (window, "close-request", G_CALLBACK (notes_close_request_cb), notes);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  scrolled = gtk_scrolled_window_new ();
  gtk_widget_set_vexpand (scrolled, TRUE);
  view = gtk_text_view_new_with_buffer (notes->buffer);
  gtk_widget_add_css_class (view, "notes");
  notes->view = GTK_TEXT_VIEW (view);
  g_object_add_weak_pointer (G_OBJECT (view), (gpointer *) &notes->view);
  notes_apply_wrap (notes);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_top_margin (GTK_TEXT_VIEW (view), 12);
  gtk_text_view_set_bottom_margin (GTK_TEXT_VIEW (view), 12);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_box_append (GTK_BOX (box), scrolled);

  if (notes->transport != NULL)
    uri = snodo_http_transport_dup_uri (notes->transport);
  status = g_strdup_printf ("MCP: %s · resource %s · tools append_text, replace_text, "
                            "app.insert-text, app.wrap, app.clear, app.restore%s",
                            uri != NULL ? uri : "gtk-notes --mcp-stdio", DOCUMENT_URI,
                            notes->settings != NULL ? ", " SETTINGS_SCHEMA ".set-font-size" : "");
  label = gtk_label_new (status);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  gtk_box_append (GTK_BOX (box), gtk_separator_new (GTK_ORIENTATION_HORIZONTAL));
  gtk_box_append (GTK_BOX (box), label);

  gtk_window_set_child (window, box);
  gtk_widget_grab_focus (view);
  gtk_window_present (window);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GtkApplication) app = NULL;
  Notes notes = { NULL, };
  int status;

  /* Unique: a second gtk-notes shows the window already open, and a
   * second gtk-notes --mcp-stdio serves that window's document. */
  app = gtk_application_new ("org.snodo.examples.Notes", G_APPLICATION_DEFAULT_FLAGS);
  notes.app = app;
  g_application_add_main_option (G_APPLICATION (app), "port", 'p', G_OPTION_FLAG_NONE,
                                 G_OPTION_ARG_STRING,
                                 "Serve MCP over HTTP on 127.0.0.1:PORT (0: any free port)",
                                 "PORT");
  g_signal_connect (app, "handle-local-options",
                    G_CALLBACK (notes_handle_local_options_cb), &notes);
  g_signal_connect (app, "startup", G_CALLBACK (notes_startup_cb), &notes);
  g_signal_connect (app, "activate", G_CALLBACK (notes_activate_cb), &notes);

  /* The server is created here, on the main context GTK runs: every
   * handler is called on it. */
  notes.server = snodo_server_new ("gtk-notes", "1.0");
  snodo_server_set_instructions (notes.server,
                                 "The document the user is writing in Notes. Read " DOCUMENT_URI
                                 " before you change it.");
  notes_add_to_server (&notes);
  notes_add_actions (&notes);
  notes_add_settings (&notes);
  notes.binding = snodo_application_binding_new (G_APPLICATION (app), notes.server);
  g_signal_connect (notes.binding, "prepare-transport", G_CALLBACK (notes_prepare_transport_cb), &notes);

  status = g_application_run (G_APPLICATION (app), argc, argv);
  if (status == 0)
    status = snodo_application_binding_get_exit_status (notes.binding);

  g_clear_handle_id (&notes.update_id, g_source_remove);
  g_clear_handle_id (&notes.sigint_id, g_source_remove);
  g_clear_handle_id (&notes.sigterm_id, g_source_remove);
  g_clear_object (&notes.transport);
  g_clear_object (&notes.binding);
  g_clear_object (&notes.server);
  g_clear_object (&notes.buffer);
  g_clear_object (&notes.css);
  g_clear_object (&notes.settings);
  g_clear_pointer (&notes.cleared, g_free);
  return status;
}
