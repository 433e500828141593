/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

/* The span exporter: OTLP over HTTP with the JSON encoding, as the
 * standard OpenTelemetry environment configures it. Spans wait in a
 * bounded queue (a full queue drops and counts, never blocks a request nor
 * grows) and leave in batches from a thread of the exporter's own, with a
 * SoupSession only that thread uses. */

#include "config.h"

#include <string.h>

#include "snodo-features.h"
#include "snodo-telemetry-private.h"
#include "snodo-wire-private.h"

#if SNODO_HAS_HTTP_TRANSPORT
# include <libsoup/soup.h>
#endif

typedef struct
{
  char       *endpoint;
  char      **headers;       /* name, value, name, value, …, NULL */
  char       *service_name;
  char       *resource_attributes;  /* JSON text of extra KeyValues, or NULL */
  guint       timeout_ms;
  guint       schedule_delay_ms;
  guint       max_queue;
  guint       max_batch;

  GMutex      lock;
  GCond       cond;
  GQueue      queue;
  gboolean    flush_asked;
  /* Spans taken from the queue and not yet sent. */
  guint       in_flight;
  guint64     flush_generation;
  guint64     done_generation;
  guint64     dropped;
  guint64     exported;
  guint64     refused;
  GThread    *thread;
} Exporter;

static Exporter *exporter;

static const char *
env_first (const char *a,
           const char *b)
{
  const char *value = g_getenv (a);

  if (value != NULL && value[0] != '\0')
    return value;
  value = b != NULL ? g_getenv (b) : NULL;
  return value != NULL && value[0] != '\0' ? value : NULL;
}

static guint
env_uint (const char *name,
          guint       fallback,
          guint       min)
{
  const char *text = g_getenv (name);
  guint64 value;
  char *end;

  if (text == NULL || text[0] == '\0')
    return fallback;
  value = g_ascii_strtoull (text, &end, 10);
  if (*end != '\0' || value < min || value > G_MAXINT)
    {
      g_warning ("Tracing: %s=%s is not a number of at least %u; %u is used", name, text, min, fallback);
      return fallback;
    }
  return (guint) value;
}

/* "a=b,c=d" (values percent-encoded) → pairs; NULL on a malformed list. */
static GPtrArray *
parse_pairs (const char *text,
             const char *name)
{
  g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func (g_free);
  g_auto(GStrv) items = g_strsplit (text, ",", -1);

  for (guint i = 0; items[i] != NULL; i++)
    {
      char *equal;
      g_autofree char *key = NULL;
      char *value;

      if (g_strstrip (items[i])[0] == '\0')
        continue;
      equal = strchr (items[i], '=');
      if (equal == NULL || equal == items[i])
        {
          g_warning ("Tracing: %s: “%s” is not key=value; the variable is ignored", name, items[i]);
          return NULL;
        }
      key = g_strstrip (g_strndup (items[i], equal - items[i]));
      value = g_uri_unescape_string (g_strstrip (equal + 1), NULL);
      if (value == NULL)
        {
          g_warning ("Tracing: %s: the value of “%s” is not valid percent-encoding; the variable is ignored",
                     name, key);
          return NULL;
        }
      g_ptr_array_add (pairs, g_steal_pointer (&key));
      g_ptr_array_add (pairs, value);
    }
  return g_steal_pointer (&pairs);
}

static void
append_key_value (GString    *out,
                  const char *key,
                  const char *value)
{
  g_string_append (out, "{\"key\":");
  snodo_json_append_string (out, key);
  g_string_append (out, ",\"value\":{\"stringValue\":");
  snodo_json_append_string (out, value);
  g_string_append (out, "}}");
}

static void
append_hex (GString      *out,
            const guint8 *bytes,
            gsize         n)
{
  g_string_append_c (out, '"');
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (out, "%02x", bytes[i]);
  g_string_append_c (out, '"');
}

char *
snodo_otlp_encode (GPtrArray  *spans,
                   const char *service_name,
                   const char *resource_attributes)
{
  GString *out = g_string_new ("{\"resourceSpans\":[{\"resource\":{\"attributes\":[");

  append_key_value (out, "service.name", service_name);
  g_string_append_c (out, ',');
  append_key_value (out, "telemetry.sdk.name", "snodo");
  g_string_append_c (out, ',');
  append_key_value (out, "telemetry.sdk.language", "c");
  g_string_append_c (out, ',');
  append_key_value (out, "telemetry.sdk.version", PACKAGE_VERSION);
  if (resource_attributes != NULL)
    {
      g_string_append_c (out, ',');
      g_string_append (out, resource_attributes);
    }
  g_string_append (out, "]},\"scopeSpans\":[{\"scope\":{\"name\":\"snodo\",\"version\":\"" PACKAGE_VERSION "\"},"
                        "\"spans\":[");
  for (guint i = 0; i < spans->len; i++)
    {
      SnodoSpanData *span = g_ptr_array_index (spans, i);

      if (i > 0)
        g_string_append_c (out, ',');
      g_string_append (out, "{\"traceId\":");
      append_hex (out, span->context.trace_id, 16);
      g_string_append (out, ",\"spanId\":");
      append_hex (out, span->context.span_id, 8);
      if (span->has_parent)
        {
          g_string_append (out, ",\"parentSpanId\":");
          append_hex (out, span->parent_span_id, 8);
        }
      if (span->tracestate != NULL)
        {
          g_string_append (out, ",\"traceState\":");
          snodo_json_append_string (out, span->tracestate);
        }
      g_string_append (out, ",\"name\":");
      snodo_json_append_string (out, span->name != NULL ? span->name : "");
      g_string_append_printf (out, ",\"kind\":%d,\"startTimeUnixNano\":\"%" G_GINT64_FORMAT "\","
                                   "\"endTimeUnixNano\":\"%" G_GINT64_FORMAT "\",\"attributes\":[",
                              (int) span->kind, span->start_ns, span->end_ns);
      for (guint j = 0; span->attributes != NULL && j < span->attributes->len; j++)
        {
          const char *key = g_ptr_array_index (span->attributes, j);

          if (j > 0)
            g_string_append_c (out, ',');
          g_string_append (out, "{\"key\":");
          snodo_json_append_string (out, key);
          g_string_append (out, ",\"value\":");
          g_string_append (out, key + strlen (key) + 1);
          g_string_append_c (out, '}');
        }
      /* Status: 1 OK, 2 ERROR; OK is left unset, as instrumentations do. */
      g_string_append (out, "],\"status\":{");
      if (span->error)
        {
          g_string_append (out, "\"code\":2");
          if (span->status_message != NULL)
            {
              g_string_append (out, ",\"message\":");
              snodo_json_append_string (out, span->status_message);
            }
        }
      g_string_append (out, "}}");
    }
  g_string_append (out, "]}]}]}");
  return g_string_free (out, FALSE);
}

void
snodo_otlp_enqueue (SnodoSpanData *data)
{
  gboolean wake;

  if (exporter == NULL)
    {
      snodo_span_data_free (data);
      return;
    }
  g_mutex_lock (&exporter->lock);
  if (exporter->queue.length >= exporter->max_queue)
    {
      exporter->dropped++;
      g_mutex_unlock (&exporter->lock);
      snodo_span_data_free (data);
      return;
    }
  g_queue_push_tail (&exporter->queue, data);
  wake = exporter->queue.length == exporter->max_batch;
  if (wake)
    g_cond_broadcast (&exporter->cond);
  g_mutex_unlock (&exporter->lock);
}

guint64
snodo_otlp_get_dropped (void)
{
  guint64 n;

  if (exporter == NULL)
    return 0;
  g_mutex_lock (&exporter->lock);
  n = exporter->dropped + exporter->refused;
  g_mutex_unlock (&exporter->lock);
  return n;
}

guint64
snodo_otlp_get_exported (void)
{
  guint64 n;

  if (exporter == NULL)
    return 0;
  g_mutex_lock (&exporter->lock);
  n = exporter->exported;
  g_mutex_unlock (&exporter->lock);
  return n;
}

#if SNODO_HAS_HTTP_TRANSPORT

/* Sends one batch; on the exporter's thread, without the lock. */
static gboolean
export_batch (SoupSession *session,
              GPtrArray   *batch)
{
  g_autofree char *body = snodo_otlp_encode (batch, exporter->service_name, exporter->resource_attributes);
  g_autoptr(SoupMessage) message = soup_message_new ("POST", exporter->endpoint);
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GBytes) answer = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = strlen (body);
  guint status;

  if (message == NULL)
    return FALSE;
  for (guint i = 0; exporter->headers != NULL && exporter->headers[i] != NULL; i += 2)
    soup_message_headers_replace (soup_message_get_request_headers (message),
                                  exporter->headers[i], exporter->headers[i + 1]);
  bytes = g_bytes_new_take (g_steal_pointer (&body), len);
  soup_message_set_request_body_from_bytes (message, "application/json", bytes);
  answer = soup_session_send_and_read (session, message, NULL, &error);
  status = soup_message_get_status (message);
  if (answer == NULL || status < 200 || status >= 300)
    {
      /* Once a minute at most: a receiver that is down must not flood
       * the logs. */
      static gint64 last_warning;
      gint64 now = g_get_monotonic_time ();

      if (now - last_warning > 60 * G_USEC_PER_SEC)
        {
          last_warning = now;
          g_warning ("Tracing: %u spans not exported to %s: %s", batch->len, exporter->endpoint,
                     error != NULL ? error->message : soup_message_get_reason_phrase (message));
        }
      return FALSE;
    }
  return TRUE;
}

static gpointer
exporter_thread (gpointer user_data)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(SoupSession) session = NULL;

  g_main_context_push_thread_default (context);
  session = soup_session_new_with_options ("user-agent", "snodo/" PACKAGE_VERSION,
                                           "timeout", MAX (1u, (exporter->timeout_ms + 999) / 1000),
                                           NULL);
  g_mutex_lock (&exporter->lock);
  for (;;)
    {
      gint64 deadline = g_get_monotonic_time () + (gint64) exporter->schedule_delay_ms * 1000;
      g_autoptr(GPtrArray) batch = NULL;
      guint64 generation;
      gboolean sent;

      while (exporter->queue.length < exporter->max_batch && !exporter->flush_asked)
        if (!g_cond_wait_until (&exporter->cond, &exporter->lock, deadline))
          break;

      generation = exporter->flush_generation;
      exporter->flush_asked = FALSE;
      if (exporter->queue.length == 0)
        {
          exporter->done_generation = generation;
          g_cond_broadcast (&exporter->cond);
          continue;
        }

      batch = g_ptr_array_new_with_free_func ((GDestroyNotify) snodo_span_data_free);
      while (batch->len < exporter->max_batch && exporter->queue.length > 0)
        g_ptr_array_add (batch, g_queue_pop_head (&exporter->queue));
      exporter->in_flight = batch->len;
      g_mutex_unlock (&exporter->lock);

      sent = export_batch (session, batch);

      g_mutex_lock (&exporter->lock);
      exporter->in_flight = 0;
      if (sent)
        exporter->exported += batch->len;
      else
        exporter->refused += batch->len;
      /* More than a batch waited: the rest goes at once. */
      if (exporter->queue.length > 0)
        exporter->flush_asked = TRUE;
      else
        {
          exporter->done_generation = generation;
          g_cond_broadcast (&exporter->cond);
        }
    }
  return NULL;
}

gboolean
snodo_otlp_start (void)
{
  const char *list = g_getenv ("OTEL_TRACES_EXPORTER");
  const char *disabled = g_getenv ("OTEL_SDK_DISABLED");
  const char *protocol;
  const char *endpoint;
  const char *headers;
  const char *resource;
  const char *service;
  g_auto(GStrv) exporters = NULL;
  gboolean otlp = FALSE;
  Exporter *self;

  if (disabled != NULL && g_ascii_strcasecmp (disabled, "true") == 0)
    return FALSE;
  if (list == NULL)
    return FALSE;
  exporters = g_strsplit (list, ",", -1);
  for (guint i = 0; exporters[i] != NULL; i++)
    otlp |= g_str_equal (g_strstrip (exporters[i]), "otlp");
  if (!otlp)
    return FALSE;

  protocol = env_first ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL");
  if (protocol != NULL && !g_str_equal (protocol, "http/json"))
    {
      g_warning ("Tracing: OTLP protocol “%s” is not supported, only http/json; no spans are exported",
                 protocol);
      return FALSE;
    }

  self = g_new0 (Exporter, 1);
  endpoint = g_getenv ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  if (endpoint != NULL && endpoint[0] != '\0')
    self->endpoint = g_strdup (endpoint);
  else
    {
      endpoint = env_first ("OTEL_EXPORTER_OTLP_ENDPOINT", NULL);
      if (endpoint == NULL)
        endpoint = "http://localhost:4318";
      self->endpoint = g_str_has_suffix (endpoint, "/") ? g_strconcat (endpoint, "v1/traces", NULL)
                                                        : g_strconcat (endpoint, "/v1/traces", NULL);
    }
  if (!g_uri_is_valid (self->endpoint, G_URI_FLAGS_NONE, NULL) ||
      (!g_str_has_prefix (self->endpoint, "http://") && !g_str_has_prefix (self->endpoint, "https://")))
    {
      g_warning ("Tracing: “%s” is not an http or https URL; no spans are exported", self->endpoint);
      g_free (self->endpoint);
      g_free (self);
      return FALSE;
    }

  headers = env_first ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS");
  if (headers != NULL)
    {
      g_autoptr(GPtrArray) pairs = parse_pairs (headers, "OTEL_EXPORTER_OTLP_HEADERS");

      if (pairs != NULL)
        {
          g_ptr_array_add (pairs, NULL);
          self->headers = (char **) g_ptr_array_free (g_steal_pointer (&pairs), FALSE);
        }
    }

  service = env_first ("OTEL_SERVICE_NAME", NULL);
  resource = env_first ("OTEL_RESOURCE_ATTRIBUTES", NULL);
  if (resource != NULL)
    {
      g_autoptr(GPtrArray) pairs = parse_pairs (resource, "OTEL_RESOURCE_ATTRIBUTES");
      g_autoptr(GString) json = g_string_new (NULL);

      for (guint i = 0; pairs != NULL && i < pairs->len; i += 2)
        {
          const char *key = g_ptr_array_index (pairs, i);

          if (g_str_equal (key, "service.name"))
            {
              if (service == NULL)
                self->service_name = g_strdup (g_ptr_array_index (pairs, i + 1));
              continue;
            }
          if (json->len > 0)
            g_string_append_c (json, ',');
          append_key_value (json, key, g_ptr_array_index (pairs, i + 1));
        }
      if (json->len > 0)
        self->resource_attributes = g_string_free (g_steal_pointer (&json), FALSE);
    }
  if (service != NULL)
    self->service_name = g_strdup (service);
  if (self->service_name == NULL)
    self->service_name = g_strconcat ("unknown_service:", g_get_prgname () ? g_get_prgname () : "snodo", NULL);

  self->timeout_ms = env_uint ("OTEL_EXPORTER_OTLP_TRACES_TIMEOUT",
                               env_uint ("OTEL_EXPORTER_OTLP_TIMEOUT", 10000, 1), 1);
  self->schedule_delay_ms = env_uint ("OTEL_BSP_SCHEDULE_DELAY", 5000, 1);
  self->max_queue = env_uint ("OTEL_BSP_MAX_QUEUE_SIZE", 2048, 1);
  self->max_batch = MIN (env_uint ("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512, 1), self->max_queue);

  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  g_queue_init (&self->queue);
  exporter = self;
  /* Lives as long as the process: spans may end on any thread until the
   * last moment. */
  self->thread = g_thread_new ("snodo-otlp", exporter_thread, NULL);
  g_debug ("Tracing: spans of %s exported to %s every %u ms", self->service_name, self->endpoint,
           self->schedule_delay_ms);
  return TRUE;
}

void
snodo_otlp_flush (guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;
  guint64 generation;

  if (exporter == NULL || g_thread_self () == exporter->thread)
    return;
  g_mutex_lock (&exporter->lock);
  generation = ++exporter->flush_generation;
  exporter->flush_asked = TRUE;
  g_cond_broadcast (&exporter->cond);
  while (exporter->done_generation < generation)
    if (!g_cond_wait_until (&exporter->cond, &exporter->lock, deadline))
      break;
  g_mutex_unlock (&exporter->lock);
}

#else /* !SNODO_HAS_HTTP_TRANSPORT */

gboolean
snodo_otlp_start (void)
{
  const char *list = g_getenv ("OTEL_TRACES_EXPORTER");

  if (list != NULL && strstr (list, "otlp") != NULL)
    g_warning ("Tracing: OTEL_TRACES_EXPORTER asks for OTLP, but Snodo was built without libsoup; "
               "no spans are exported");
  return FALSE;
}

void
snodo_otlp_flush (guint timeout_ms)
{
}

#endif
