/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-catalog-private.h"
#include "snodo-prompt.h"
#include "snodo-resource.h"
#include "snodo-resource-template.h"
#include "snodo-server.h"
#include "snodo-server-methods.h"
#include "snodo-tool.h"

/*
 * The part of SnodoServer's API that offers resources, resource templates,
 * prompts and completion (and a tool declared from JSON text in one call); the catalog (snodo-catalog.c) keeps them, and the
 * methods of snodo-server-catalog-methods.c serve them. Used from the main
 * context the server was made in.
 */

/**
 * snodo_server_add_tool_from_string:
 * @self: a server
 * @name: the tool's name
 * @description: (nullable): what the tool does, for the model to read
 * @input_schema: (nullable): the JSON Schema of its arguments, as JSON text
 *   (an object with `"type": "object"`); %NULL for none
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the tool is removed and its
 *   last call has finished
 * @error: return location for an error
 *
 * Declares and offers a tool in one call: a [class@Snodo.Tool] named @name,
 * with @description and @input_schema, added with
 * [method@Snodo.Server.add_tool]. Use [method@Snodo.Server.lookup_tool] to
 * set more of it (a title, annotations, an output schema) before the first
 * `tools/list`.
 *
 * ```c
 * snodo_server_add_tool_from_string (server, "greet", "Greets someone by name",
 *                                    "{\"type\":\"object\","
 *                                    "\"properties\":{\"name\":{\"type\":\"string\"}},"
 *                                    "\"required\":[\"name\"]}",
 *                                    greet_cb, NULL, NULL, &error);
 * ```
 *
 * If the tool is refused, @destroy is called at once.
 *
 * Returns: %TRUE if the tool was added; %FALSE if @input_schema is not
 *   valid JSON or not a schema of type object, or for the reasons of
 *   [method@Snodo.Server.add_tool]
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_tool_from_string (SnodoServer    *self,
                                   const char     *name,
                                   const char     *description,
                                   const char     *input_schema,
                                   SnodoToolFunc   func,
                                   gpointer        user_data,
                                   GDestroyNotify  destroy,
                                   GError        **error)
{
  g_autoptr(SnodoTool) tool = NULL;

  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);
  g_return_val_if_fail (func != NULL, FALSE);

  tool = snodo_tool_new (name, description);
  if (input_schema != NULL && !snodo_tool_set_input_schema_from_string (tool, input_schema, error))
    {
      if (destroy != NULL)
        destroy (user_data);
      return FALSE;
    }
  return snodo_server_add_tool (self, tool, func, user_data, destroy, error);
}

/**
 * snodo_server_add_resource:
 * @self: a server
 * @resource: the resource's description
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 *   that reads it
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the resource is removed and
 *   its last read has finished
 * @error: return location for an error
 *
 * Offers a resource. Each `resources/read` of its URI runs @func on the
 * server's main context with a [class@Snodo.Invocation] to answer.
 * Resources are listed in the order they were added. Clients are told that
 * the list changed.
 *
 * If the resource is refused, @destroy is called at once.
 *
 * Returns: %TRUE if the resource was added; %FALSE if it has no URI or
 *   name, its URI is not an absolute URI or is taken, or its annotations,
 *   icons or the keys of its `_meta` are not valid
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_resource (SnodoServer        *self,
                           SnodoResource      *resource,
                           SnodoResourceFunc   func,
                           gpointer            user_data,
                           GDestroyNotify      destroy,
                           GError            **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_RESOURCE (resource), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!snodo_catalog_add_resource (snodo_server_get_catalog (self), resource,
                                   func, user_data, destroy, error))
    return FALSE;
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_remove_resource:
 * @self: a server
 * @uri: the resource's URI
 *
 * Stops offering a resource. Reads in progress finish. Clients are told
 * that the list changed.
 *
 * Returns: %TRUE if a resource of that URI was removed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_resource (SnodoServer *self,
                              const char  *uri)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (uri != NULL, FALSE);

  if (!snodo_catalog_remove_resource (snodo_server_get_catalog (self), uri))
    return FALSE;
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_add_resource_template:
 * @self: a server
 * @resource_template: the template's description
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 *   that reads the template's resources
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the template is removed and
 *   its last read has finished
 * @error: return location for an error
 *
 * Offers a family of resources named by a URI template. A `resources/read`
 * of a URI that no resource has runs the handler of the first template, in
 * the order they were added, that matches the URI (see
 * [class@Snodo.ResourceTemplate]), on the server's main context. Clients are
 * told that the list changed.
 *
 * If the template is refused, @destroy is called at once.
 *
 * Returns: %TRUE if the template was added; %FALSE if it has no URI
 *   template or name, it is not a valid RFC 6570 URI template or is taken, or its annotations, icons or `_meta` keys are not
 *   valid
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_resource_template (SnodoServer            *self,
                                    SnodoResourceTemplate  *resource_template,
                                    SnodoResourceFunc       func,
                                    gpointer                user_data,
                                    GDestroyNotify          destroy,
                                    GError                **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_RESOURCE_TEMPLATE (resource_template), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!snodo_catalog_add_resource_template (snodo_server_get_catalog (self), resource_template,
                                            func, user_data, destroy, error))
    return FALSE;
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_remove_resource_template:
 * @self: a server
 * @uri_template: the template, as it was added
 *
 * Stops offering a resource template. Reads in progress finish. Clients are
 * told that the list changed.
 *
 * Returns: %TRUE if the template was removed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_resource_template (SnodoServer *self,
                                       const char  *uri_template)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (uri_template != NULL, FALSE);

  if (!snodo_catalog_remove_resource_template (snodo_server_get_catalog (self), uri_template))
    return FALSE;
  snodo_server_notify_resources_changed (self);
  return TRUE;
}

/**
 * snodo_server_add_prompt:
 * @self: a server
 * @prompt: the prompt's description
 * @func: (scope notified) (closure user_data) (destroy destroy): the handler
 *   that fills it in
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the prompt is removed and its
 *   last request has finished
 * @error: return location for an error
 *
 * Offers a prompt. Each `prompts/get` of its name whose arguments are all
 * strings, with every required one present, runs @func on the server's main
 * context; other requests are refused with error -32602 before it runs.
 * Prompts are listed in the order they were added. Clients are told that
 * the list changed.
 *
 * If the prompt is refused, @destroy is called at once.
 *
 * Returns: %TRUE if the prompt was added; %FALSE if its name is missing,
 *   empty or taken, or its icons or the keys of its `_meta` are not valid
 *
 * Since: 0.1
 */
gboolean
snodo_server_add_prompt (SnodoServer      *self,
                         SnodoPrompt      *prompt,
                         SnodoPromptFunc   func,
                         gpointer          user_data,
                         GDestroyNotify    destroy,
                         GError          **error)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (SNODO_IS_PROMPT (prompt), FALSE);
  g_return_val_if_fail (func != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (!snodo_catalog_add_prompt (snodo_server_get_catalog (self), prompt,
                                 func, user_data, destroy, error))
    return FALSE;
  snodo_server_notify_prompts_changed (self);
  return TRUE;
}

/**
 * snodo_server_remove_prompt:
 * @self: a server
 * @name: the prompt's name
 *
 * Stops offering a prompt. Requests in progress finish. Clients are told
 * that the list changed.
 *
 * Returns: %TRUE if a prompt of that name was removed
 *
 * Since: 0.1
 */
gboolean
snodo_server_remove_prompt (SnodoServer *self,
                            const char  *name)
{
  g_return_val_if_fail (SNODO_IS_SERVER (self), FALSE);
  g_return_val_if_fail (name != NULL, FALSE);

  if (!snodo_catalog_remove_prompt (snodo_server_get_catalog (self), name))
    return FALSE;
  snodo_server_notify_prompts_changed (self);
  return TRUE;
}

/**
 * snodo_server_set_completion_func:
 * @self: a server
 * @func: (nullable) (scope notified) (closure user_data) (destroy destroy):
 *   the handler that suggests argument values, or %NULL to offer none
 * @user_data: data for @func
 * @destroy: (nullable): frees @user_data once the handler is replaced and
 *   its last request has finished
 *
 * Sets the handler of `completion/complete`, which suggests values for the
 * arguments of prompts and resource templates. The server offers the
 * `completions` capability while a handler is set. Requests whose `ref`,
 * `argument` or `context` are not of the right shape are refused with error
 * -32602 before it runs.
 *
 * Since: 0.1
 */
void
snodo_server_set_completion_func (SnodoServer         *self,
                                  SnodoCompletionFunc  func,
                                  gpointer             user_data,
                                  GDestroyNotify       destroy)
{
  g_return_if_fail (SNODO_IS_SERVER (self));

  snodo_catalog_set_completion_func (snodo_server_get_catalog (self), func, user_data, destroy);
}
