/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#pragma once

#include <gio/gio.h>
#include <json-glib/json-glib.h>

#define SNODO_INSIDE
# include "snodo-version.h"
# include "snodo-version-macros.h"
# include "snodo-types.h"
# include "snodo-enum-types.h"
# include "snodo-error.h"
# include "snodo-protocol-version.h"
# include "snodo-work.h"
# include "snodo-executor.h"
# include "snodo-description.h"
# include "snodo-tool.h"
# include "snodo-bus.h"
# include "snodo-local-bus.h"
# include "snodo-task-store.h"
# include "snodo-answer.h"
# include "snodo-invocation.h"
# include "snodo-skill.h"
# include "snodo-middleware-next.h"
# include "snodo-server.h"
# include "snodo-session.h"
# include "snodo-action-group.h"
# include "snodo-settings.h"
# include "snodo-stdio-transport.h"
# include "snodo-resource.h"
# include "snodo-resource-template.h"
# include "snodo-prompt.h"
# include "snodo-server-request.h"
# include "snodo-client.h"
# include "snodo-telemetry.h"
# include "snodo-application-binding.h"
# include "snodo-client-tasks.h"
# include "snodo-features.h"
# if SNODO_HAS_HTTP_TRANSPORT
#  include "snodo-event-store.h"
#  include "snodo-http-transport.h"
#  include "snodo-auth-request.h"
#  include "snodo-http-authorization.h"
#  include "snodo-credential-store.h"
#  include "snodo-client-oauth.h"
# endif
# if SNODO_HAS_REDIS_BUS
#  include "snodo-redis-bus.h"
# endif
#undef SNODO_INSIDE
