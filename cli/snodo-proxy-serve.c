/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* snodo proxy --serve NAME=COMMAND|URL …: several servers behind one.
 *
 * Unlike snodo proxy URL, which passes messages through, this is a
 * SnodoServer of its own on standard input and output, whose catalog
 * mirrors its backends: each a SnodoClient (a command's child, or a
 * Streamable HTTP server), spoken to in the initialize era (2025-11-25).
 * Tools and prompts are named NAME_original; resources and resource
 * templates keep their URIs (the first NAME on the command line wins a
 * URI two backends have). A call is forwarded with
 * snodo_client_forward_async() under an id of its own, which is also its
 * progress token, and its answer returned whole; what the backend asks of
 * the client during a call goes to the front client through that call's
 * invocation. A backend's list change re-lists it; a backend that fails is
 * reported and its items removed, and the others go on (see
 * introspection/proxy.md). */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <snodo/snodo.h>

#ifdef G_OS_UNIX
#include <glib-unix.h>
#endif

#include "snodo-cli.h"
#include "snodo-proxy-serve.h"

/* How long serving waits for the backends to answer at startup. */
#define SERVE_STARTUP_TIMEOUT_S 10
/* A backend that fails after it answered is started again after 1, 2, 4,
 * 8 and 16 seconds; after that it stays failed. The count starts again
 * once it has served for a minute. */
#define SERVE_RESTARTS 5
#define SERVE_RESTART_RESET_S 60
/* The backends are spoken to in the initialize era, whose server requests
 * and progress go with the calls they are about: 2025-11-25, else
 * 2025-06-18. */

static Serve *the_serve;

static void serve_backend_list (Backend *backend, Kind kind);

/* ---- Backends --------------------------------------------------------- */

static void serve_start (Serve *serve);

static gboolean
serve_all_answered (Serve *serve)
{
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (backend->state == BACKEND_STARTING || backend->state == BACKEND_LISTING)
        return FALSE;
    }
  return TRUE;
}

static gboolean serve_backend_start (Backend *backend, GError **error);

static void
serve_old_client_closed_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_object_unref (source);
}

static gboolean
serve_backend_restart_cb (gpointer user_data)
{
  Backend *backend = user_data;
  g_autoptr(GError) error = NULL;

  backend->restart_id = 0;
  if (!serve_backend_start (backend, &error))
    serve_backend_fail (backend, error);
  return G_SOURCE_REMOVE;
}

void
serve_backend_fail (Backend      *backend,
                    const GError *error)
{
  Serve *serve = backend->serve;
  g_autofree char *text = NULL;
  /* It served once: it is started again, even if it fails to start
   * again. */
  gboolean served = backend->ready_since != 0 || backend->restarts > 0;

  if (backend->state == BACKEND_FAILED || backend->state == BACKEND_CLOSED)
    return;
  backend->state = BACKEND_FAILED;
  if (backend->client != NULL)
    {
      /* Its child reaped, whatever is left of it ended. */
      g_signal_handlers_disconnect_by_data (backend->client, backend);
      snodo_client_close_async (g_steal_pointer (&backend->client), NULL, serve_old_client_closed_cb, NULL);
    }
  if (backend->ready_since != 0 &&
      g_get_monotonic_time () - backend->ready_since > SERVE_RESTART_RESET_S * G_USEC_PER_SEC)
    backend->restarts = 0;
  backend->ready_since = 0;
  if (!serve->ended)
    {
      const char *reason = error != NULL ? error->message : "it closed the connection";

      if (served && backend->restarts < SERVE_RESTARTS)
        {
          guint delay = 1u << backend->restarts;

          text = g_strdup_printf ("the server failed, its tools, prompts and resources are removed; "
                                  "starting it again in %u s: %s", delay, reason);
          backend->restarts++;
          backend->restart_id = g_timeout_add_seconds (delay, serve_backend_restart_cb, backend);
        }
      else if (served)
        text = g_strdup_printf ("the server failed %u times in a row, its tools, prompts and resources are removed; "
                                "it is not started again: %s", SERVE_RESTARTS + 1, reason);
      else
        text = g_strdup_printf ("the server failed, its tools, prompts and resources are removed: %s", reason);
      serve_report (serve, SNODO_LOG_LEVEL_ERROR, backend->name, text);
    }
  for (Kind kind = 0; kind < N_KINDS; kind++)
    serve_backend_sync (backend, kind, NULL);
  /* The calls in flight fail with the connection (serve_forwarded_cb). */
  serve_start (serve);
}

static void
serve_backend_closed_cb (SnodoClient  *client,
                         const GError *error,
                         gpointer      user_data)
{
  Backend *backend = user_data;

  if (client == backend->client)
    serve_backend_fail (backend, error);
}

/* The backend answered and listed: it serves. */
static void
serve_backend_ready (Backend *backend)
{
  GHashTableIter iter;
  gpointer uri;

  backend->state = BACKEND_READY;
  backend->ready_since = g_get_monotonic_time ();
  if (backend->restarts > 0)
    {
      serve_report (backend->serve, SNODO_LOG_LEVEL_NOTICE, backend->name, "the server was started again and serves");
    }
  /* The subscriptions of the server that failed, to the new one. */
  g_hash_table_iter_init (&iter, backend->subscribed);
  while (g_hash_table_iter_next (&iter, &uri, NULL))
    snodo_client_subscribe_resource_async (backend->client, uri, NULL, NULL, NULL);
  serve_start (backend->serve);
}

typedef struct
{
  Backend *backend;
  Kind kind;
} Listing;

static void
serve_listed_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  Listing *listing = user_data;
  Backend *backend = listing->backend;
  Kind kind = listing->kind;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonArray) items = NULL;
  SnodoClient *client = SNODO_CLIENT (source);

  g_free (listing);
  switch (kind)
    {
    case KIND_TOOLS:
      items = snodo_client_list_tools_finish (client, result, &error);
      break;
    case KIND_PROMPTS:
      items = snodo_client_list_prompts_finish (client, result, &error);
      break;
    case KIND_RESOURCES:
      items = snodo_client_list_resources_finish (client, result, &error);
      break;
    case KIND_TEMPLATES:
      items = snodo_client_list_resource_templates_finish (client, result, &error);
      break;
    case N_KINDS:
    default:
      g_assert_not_reached ();
    }
  backend->listing_kind[kind] = FALSE;
  if (client != backend->client || backend->state == BACKEND_FAILED || backend->state == BACKEND_CLOSED)
    {
      g_object_unref (client);
      return;
    }
  g_object_unref (client);
  if (items == NULL)
    {
      g_autofree char *text = g_strdup_printf ("listing failed: %s", error->message);

      serve_report (backend->serve, SNODO_LOG_LEVEL_WARNING, backend->name, text);
    }
  else
    serve_backend_sync (backend, kind, items);
  if (backend->relist[kind])
    {
      backend->relist[kind] = FALSE;
      serve_backend_list (backend, kind);
    }
  if (backend->state == BACKEND_LISTING && --backend->listing == 0)
    serve_backend_ready (backend);
}

/* Whether the backend offers the lists of @kind. */
static gboolean
serve_backend_offers (Backend *backend,
                      Kind     kind)
{
  static const char * const capabilities[] = { "tools", "prompts", "resources", "resources" };
  JsonObject *offered = snodo_client_get_server_capabilities (backend->client);

  return offered != NULL && json_object_has_member (offered, capabilities[kind]);
}

static void
serve_backend_list (Backend *backend,
                    Kind     kind)
{
  static void (*const start[]) (SnodoClient *, GCancellable *, GAsyncReadyCallback, gpointer) = {
    snodo_client_list_tools_async, snodo_client_list_prompts_async,
    snodo_client_list_resources_async, snodo_client_list_resource_templates_async,
  };
  Listing *listing;

  if (backend->listing_kind[kind])
    {
      backend->relist[kind] = TRUE;
      return;
    }
  listing = g_new0 (Listing, 1);
  listing->backend = backend;
  listing->kind = kind;
  backend->listing_kind[kind] = TRUE;
  if (backend->state == BACKEND_LISTING)
    backend->listing++;
  start[kind] (g_object_ref (backend->client), NULL, serve_listed_cb, listing);
}

static void
serve_backend_connected_cb (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  Backend *backend = user_data;
  g_autoptr(GError) error = NULL;

  if (!snodo_client_connect_finish (SNODO_CLIENT (source), result, &error))
    {
      if (SNODO_CLIENT (source) != backend->client)
        return;
      /* A server of 2025-06-18 answers initialize with its version. */
      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_FAILED) &&
          backend->version == SNODO_PROTOCOL_VERSION_2025_11_25)
        {
          g_autoptr(GError) again = NULL;

          g_signal_handlers_disconnect_by_data (backend->client, backend);
          snodo_client_close_async (g_steal_pointer (&backend->client), NULL, serve_old_client_closed_cb, NULL);
          backend->version = SNODO_PROTOCOL_VERSION_2025_06_18;
          if (!serve_backend_start (backend, &again))
            serve_backend_fail (backend, again);
          return;
        }
      serve_backend_fail (backend, error);
      return;
    }
  if (SNODO_CLIENT (source) != backend->client || backend->state != BACKEND_STARTING)
    return;
  backend->state = BACKEND_LISTING;
  backend->listing = 1;
  for (Kind kind = 0; kind < N_KINDS; kind++)
    if (serve_backend_offers (backend, kind))
      serve_backend_list (backend, kind);
  if (--backend->listing == 0)
    serve_backend_ready (backend);
}

/* The most recent call in flight to @backend: the one a server's request
 * or log message of the initialize era, which names no request, is about. */
static Call *
serve_backend_current_call (Backend *backend)
{
  GHashTableIter iter;
  gpointer value;
  Call *newest = NULL;

  g_hash_table_iter_init (&iter, backend->calls);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      Call *call = value;

      if (!snodo_invocation_get_answered (call->invocation) &&
          (newest == NULL || call->started > newest->started ||
           (call->started == newest->started && strcmp (call->key, newest->key) > 0)))
        newest = call;
    }
  return newest;
}

static void
serve_backend_notification_cb (SnodoClient *client,
                               const char  *method,
                               JsonObject  *params,
                               gpointer     user_data)
{
  Backend *backend = user_data;

  if (client != backend->client)
    return;
  if (g_str_equal (method, "notifications/tools/list_changed"))
    serve_backend_list (backend, KIND_TOOLS);
  else if (g_str_equal (method, "notifications/prompts/list_changed"))
    serve_backend_list (backend, KIND_PROMPTS);
  else if (g_str_equal (method, "notifications/resources/list_changed"))
    {
      serve_backend_list (backend, KIND_RESOURCES);
      serve_backend_list (backend, KIND_TEMPLATES);
    }
  else if (g_str_equal (method, "notifications/resources/updated"))
    {
      const char *uri = serve_string_member (params, "uri");

      if (uri != NULL && g_hash_table_contains (backend->items[KIND_RESOURCES], uri))
        snodo_server_notify_resource_updated (backend->serve->server, uri);
    }
  else if (g_str_equal (method, "notifications/progress"))
    {
      const char *token = serve_string_member (params, "progressToken");
      Call *call = token != NULL ? g_hash_table_lookup (backend->calls, token) : NULL;
      JsonNode *progress = json_object_get_member (params, "progress");
      JsonNode *total = json_object_get_member (params, "total");

      if (call != NULL && progress != NULL && JSON_NODE_HOLDS_VALUE (progress))
        snodo_invocation_report_progress (call->invocation, json_node_get_double (progress),
                                          total != NULL && JSON_NODE_HOLDS_VALUE (total)
                                          ? json_node_get_double (total) : -1,
                                          serve_string_member (params, "message"));
    }
  else if (g_str_equal (method, "notifications/message"))
    {
      Call *call = serve_backend_current_call (backend);
      int level = SNODO_LOG_LEVEL_INFO;
      static const char * const levels[] = { "debug", "info", "notice", "warning", "error", "critical", "alert",
                                              "emergency" };
      const char *logger = serve_string_member (params, "logger");
      JsonNode *data = json_object_get_member (params, "data");

      for (guint i = 0; i < G_N_ELEMENTS (levels); i++)
        if (g_strcmp0 (serve_string_member (params, "level"), levels[i]) == 0)
          level = (int) i;
      if (data == NULL)
        return;
      if (call != NULL)
        snodo_invocation_log (call->invocation, (SnodoLogLevel) level, logger != NULL ? logger : backend->name, data);
      else
        snodo_server_log (backend->serve->server, (SnodoLogLevel) level, logger != NULL ? logger : backend->name,
                          data);
    }
}

static void
question_free (Question *question)
{
  g_object_unref (question->request);
  g_free (question);
}

static void
serve_answered_cb (GObject      *source,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  Question *question = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) answer = NULL;

  answer = snodo_invocation_request_input_finish (SNODO_INVOCATION (source), result, &error);
  if (answer != NULL && JSON_NODE_HOLDS_OBJECT (answer))
    snodo_server_request_return_result (question->request, json_node_get_object (answer));
  else
    {
      /* 2026-07-28: the front client is asked by the answer to its
       * request, and sends it again with its answer: this call ends, and
       * the next one asks the same question, answered at once. */
      if (g_error_matches (error, SNODO_ERROR, SNODO_ERROR_INPUT_REQUIRED))
        {
          GHashTableIter iter;
          gpointer value;

          g_hash_table_iter_init (&iter, question->backend->calls);
          while (g_hash_table_iter_next (&iter, NULL, &value))
            if (((Call *) value)->invocation == SNODO_INVOCATION (source))
              g_cancellable_cancel (((Call *) value)->cancellable);
          if (!snodo_invocation_get_answered (SNODO_INVOCATION (source)))
            snodo_invocation_return_gerror (SNODO_INVOCATION (source), error);
        }
      snodo_server_request_return_error (question->request,
                                         error != NULL && error->domain == SNODO_RPC_ERROR
                                         ? error->code : SNODO_RPC_ERROR_INTERNAL_ERROR,
                                         error != NULL ? error->message : "The client gave no answer");
    }
  g_object_unref (source);
  question_free (question);
}

/* What the backend asks of the client (elicitation, sampling, roots) is
 * asked of the front client through the call it is about. */
static gboolean
serve_backend_request_cb (SnodoClient        *client,
                          SnodoServerRequest *request,
                          gpointer            user_data)
{
  Backend *backend = user_data;
  Call *call = serve_backend_current_call (backend);
  JsonObject *params = snodo_server_request_get_params (request);
  g_autoptr(JsonNode) params_node = NULL;
  g_autofree char *key = NULL;
  Question *question;

  if (call == NULL)
    {
      snodo_server_request_return_error (request, SNODO_RPC_ERROR_INVALID_REQUEST,
                                         "The proxy asks its client only during a call");
      return TRUE;
    }
  question = g_new0 (Question, 1);
  question->backend = backend;
  question->request = g_object_ref (request);
  key = g_strdup_printf ("%s-%u", backend->name, ++call->questions);
  if (params != NULL)
    {
      params_node = json_node_new (JSON_NODE_OBJECT);
      json_node_set_object (params_node, params);
    }
  snodo_invocation_request_input_async (g_object_ref (call->invocation), key,
                                        snodo_server_request_get_method (request), params_node,
                                        call->cancellable, serve_answered_cb, question);
  return TRUE;
}

static gboolean
serve_backend_start (Backend  *backend,
                     GError  **error)
{
  Serve *serve = backend->serve;
  g_autoptr(SnodoClient) client = NULL;
  g_autoptr(JsonObject) capabilities = json_object_new ();
  JsonObject *elicitation = json_object_new ();

  if (backend->uri != NULL)
    client = snodo_client_new_for_uri (backend->uri, error);
  else
    client = snodo_client_new_for_argv ((const char * const *) backend->argv, error);
  if (client == NULL)
    return FALSE;
  /* The front client times its requests out itself, and cancels them. */
  snodo_client_set_request_timeout (client, 0);
  if (!snodo_cli_apply_client_options (client, serve->options, error))
    return FALSE;
  /* Signing in to a server at a URL, unless the user gave the token. */
  if (backend->uri != NULL && !snodo_cli_has_own_authorization (serve->options) &&
      !snodo_cli_set_up_oauth (client, serve->options, error))
    return FALSE;
  snodo_client_set_pinned_version (client, backend->version);
  json_object_set_object_member (elicitation, "form", json_object_new ());
  json_object_set_object_member (elicitation, "url", json_object_new ());
  json_object_set_object_member (capabilities, "elicitation", elicitation);
  json_object_set_object_member (capabilities, "sampling", json_object_new ());
  json_object_set_object_member (capabilities, "roots", json_object_new ());
  snodo_client_set_capabilities (client, capabilities);
  g_signal_connect (client, "notification", G_CALLBACK (serve_backend_notification_cb), backend);
  g_signal_connect (client, "server-request", G_CALLBACK (serve_backend_request_cb), backend);
  g_signal_connect (client, "closed", G_CALLBACK (serve_backend_closed_cb), backend);
  backend->client = g_steal_pointer (&client);
  backend->state = BACKEND_STARTING;
  snodo_client_connect_async (backend->client, NULL, serve_backend_connected_cb, backend);
  return TRUE;
}

static void
backend_free (Backend *backend)
{
  g_clear_handle_id (&backend->restart_id, g_source_remove);
  if (backend->client != NULL)
    g_signal_handlers_disconnect_by_data (backend->client, backend);
  g_clear_object (&backend->client);
  for (Kind kind = 0; kind < N_KINDS; kind++)
    {
      g_clear_pointer (&backend->items[kind], g_hash_table_unref);
      g_clear_pointer (&backend->listed[kind], json_array_unref);
    }
  g_clear_pointer (&backend->shadowed, g_hash_table_unref);
  g_clear_pointer (&backend->calls, g_hash_table_unref);
  g_clear_pointer (&backend->subscribed, g_hash_table_unref);
  g_strfreev (backend->argv);
  g_free (backend->uri);
  g_free (backend->name);
  g_free (backend);
}

/* ---- Serving and the end ---------------------------------------------- */

static void
serve_free (Serve *serve)
{
  g_clear_handle_id (&serve->startup_id, g_source_remove);
  if (serve->transport != NULL)
    g_signal_handlers_disconnect_by_data (serve->transport, serve);
  g_clear_object (&serve->transport);
  /* The backends' items go before the backends. */
  g_clear_object (&serve->server);
  g_clear_pointer (&serve->backends, g_ptr_array_unref);
  g_clear_pointer (&serve->options, g_variant_dict_unref);
  g_free (serve);
}

static void
serve_release (Serve *serve)
{
  if (serve->released)
    return;
  serve->released = TRUE;
  g_application_release (serve->app);
}

static void
serve_backend_closed_done_cb (GObject      *source,
                              GAsyncResult *result,
                              gpointer      user_data)
{
  Serve *serve = user_data;

  snodo_client_close_finish (SNODO_CLIENT (source), result, NULL);
  g_object_unref (source);
  if (--serve->closing == 0)
    serve_release (serve);
}

/* The front client is gone: every backend is closed, then the proxy
 * exits. */
static void
serve_end (Serve *serve)
{
  if (serve->ended)
    return;
  serve->ended = TRUE;
  serve->closing = 1;
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      g_clear_handle_id (&backend->restart_id, g_source_remove);
      if (backend->client == NULL)
        continue;
      backend->state = BACKEND_CLOSED;
      serve->closing++;
      snodo_client_close_async (g_object_ref (backend->client), NULL, serve_backend_closed_done_cb, serve);
    }
  if (--serve->closing == 0)
    serve_release (serve);
}

static void
serve_transport_closed_cb (SnodoStdioTransport *transport,
                           const GError        *error,
                           gpointer             user_data)
{
  Serve *serve = user_data;

  if (error != NULL)
    {
      g_printerr ("snodo: %s\n", error->message);
      serve->status = 1;
    }
  serve_end (serve);
}

/* The instructions of the backends that answered, each under its name:
 * what a client reads once, at the start. */
static void
serve_set_instructions (Serve *serve)
{
  g_autoptr(GString) instructions = g_string_new (NULL);

  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);
      const char *text = backend->client != NULL && backend->state == BACKEND_READY
                         ? snodo_client_get_instructions (backend->client) : NULL;

      if (text == NULL || *text == '\0')
        continue;
      g_string_append_printf (instructions, "%s## %s (tools and prompts named %s_…)\n\n%s\n",
                              instructions->len > 0 ? "\n" : "", backend->name, backend->name, text);
    }
  if (instructions->len > 0)
    snodo_server_set_instructions (serve->server, instructions->str);
}

static void
serve_serve (Serve *serve)
{
  g_clear_handle_id (&serve->startup_id, g_source_remove);
  serve_set_instructions (serve);
  serve->transport = snodo_stdio_transport_new_for_stdio (serve->server);
  g_signal_connect (serve->transport, "closed", G_CALLBACK (serve_transport_closed_cb), serve);
  snodo_stdio_transport_start (serve->transport);
}

/* Serving begins once every backend answered or failed, or after the
 * startup timeout. */
static void
serve_start (Serve *serve)
{
  if (serve->transport != NULL || serve->ended || !serve_all_answered (serve))
    return;
  serve_serve (serve);
}

static gboolean
serve_startup_timeout_cb (gpointer user_data)
{
  Serve *serve = user_data;

  serve->startup_id = 0;
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (backend->state == BACKEND_STARTING || backend->state == BACKEND_LISTING)
        g_printerr ("snodo: %s: no answer after %d seconds; serving without it until it answers\n",
                    backend->name, SERVE_STARTUP_TIMEOUT_S);
    }
  serve_serve (serve);
  return G_SOURCE_REMOVE;
}

#ifdef G_OS_UNIX
static gboolean
serve_signal_cb (gpointer user_data)
{
  Serve *serve = user_data;

  if (serve->transport != NULL)
    snodo_stdio_transport_close_async (serve->transport, NULL, NULL, NULL);
  else
    serve_end (serve);
  return G_SOURCE_CONTINUE;
}
#endif

int
snodo_cli_proxy_serve_status (void)
{
  int status = the_serve != NULL ? the_serve->status : 0;

  g_clear_pointer (&the_serve, serve_free);
  return status;
}

static int
serve_usage_error (const char *message)
{
  g_printerr ("snodo: %s (see snodo --help)\n", message);
  return 2;
}

/* NAME: letters, digits and '-', so that NAME_tool stays a name every
 * client takes. */
static gboolean
serve_name_is_valid (const char *name,
                     gsize       length)
{
  if (length == 0)
    return FALSE;
  for (gsize i = 0; i < length; i++)
    if (!g_ascii_isalnum (name[i]) && name[i] != '-')
      return FALSE;
  return TRUE;
}

int
snodo_cli_proxy_serve (GApplication *app,
                       GVariantDict *options,
                       int           argc,
                       char        **argv)
{
  g_autofree const char **serves = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) backends = NULL;
  gboolean http = FALSE;
  Serve *serve;

  if (!g_variant_dict_lookup (options, "serve", "^a&s", &serves) || serves[0] == NULL)
    return serve_usage_error ("--serve needs NAME=COMMAND or NAME=URL");
  if (argc > 0 && !(argc == 1 && g_str_equal (argv[0], "--")))
    return serve_usage_error ("proxy --serve goes without a URL or command: each is in a --serve");
  if (g_variant_dict_contains (options, "protocol-version"))
    return serve_usage_error ("--protocol-version does not go with proxy: the client's first message chooses the version");

  backends = g_ptr_array_new_with_free_func ((GDestroyNotify) backend_free);
  for (guint i = 0; serves[i] != NULL; i++)
    {
      const char *equal = strchr (serves[i], '=');
      const char *target = equal != NULL ? equal + 1 : NULL;
      Backend *backend;

      if (equal == NULL || !serve_name_is_valid (serves[i], equal - serves[i]))
        {
          g_autofree char *message = g_strdup_printf ("--serve %s: NAME=COMMAND or NAME=URL, with a NAME of letters, "
                                                      "digits and -", serves[i]);

          return serve_usage_error (message);
        }
      backend = g_new0 (Backend, 1);
      backend->name = g_strndup (serves[i], equal - serves[i]);
      for (guint j = 0; j < backends->len; j++)
        if (g_str_equal (((Backend *) g_ptr_array_index (backends, j))->name, backend->name))
          {
            g_autofree char *message = g_strdup_printf ("--serve: the name %s is given twice", backend->name);

            backend_free (backend);
            return serve_usage_error (message);
          }
      g_ptr_array_add (backends, backend);
      if (g_str_has_prefix (target, "http://") || g_str_has_prefix (target, "https://"))
        {
          backend->uri = g_strdup (target);
          http = TRUE;
        }
      else if (!g_shell_parse_argv (target, NULL, &backend->argv, &error))
        {
          g_autofree char *message = g_strdup_printf ("--serve %s: %s", serves[i], error->message);

          return serve_usage_error (message);
        }
    }
  if (!snodo_cli_check_client_options (options, http, &error))
    {
      g_printerr ("snodo: %s\n", error->message);
      return g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE) ? 2 : 1;
    }

  serve = g_new0 (Serve, 1);
  the_serve = serve;
  serve->app = app;
  serve->options = g_variant_dict_ref (options);
  serve->backends = g_steal_pointer (&backends);
  serve->server = snodo_server_new ("snodo-proxy", SNODO_VERSION_S);
  snodo_server_set_title (serve->server, "snodo proxy");
  snodo_server_set_completion_func (serve->server, serve_complete_cb, serve, NULL);
  snodo_server_add_middleware (serve->server, "resources/subscribe", serve_subscribe_middleware, serve, NULL);
  snodo_server_add_middleware (serve->server, "subscriptions/listen", serve_subscribe_middleware, serve, NULL);
  /* The backends' own time limits apply; the front client cancels. */
  snodo_server_set_handler_timeout (serve->server, 0);

  g_application_hold (app);
  /* Every backend set up before any starts: one that fails at once
   * changes the catalog, which looks at them all. */
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      backend->serve = serve;
      for (Kind kind = 0; kind < N_KINDS; kind++)
        backend->items[kind] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                      (GDestroyNotify) json_node_unref);
      backend->calls = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, (GDestroyNotify) call_free);
      backend->subscribed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      backend->shadowed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      backend->version = SNODO_PROTOCOL_VERSION_2025_11_25;
    }
  for (guint i = 0; i < serve->backends->len; i++)
    {
      Backend *backend = g_ptr_array_index (serve->backends, i);

      if (!serve_backend_start (backend, &error))
        {
          backend->state = BACKEND_FAILED;
          g_printerr ("snodo: %s: the server failed: %s\n", backend->name, error->message);
          g_clear_error (&error);
        }
    }
#ifdef G_OS_UNIX
  g_unix_signal_add (SIGTERM, serve_signal_cb, serve);
  g_unix_signal_add (SIGINT, serve_signal_cb, serve);
#endif
  serve->startup_id = g_timeout_add_seconds (SERVE_STARTUP_TIMEOUT_S, serve_startup_timeout_cb, serve);
  serve_start (serve);
  return 0;
}
