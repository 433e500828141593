/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Copyright 2026 The Snodo authors */

#include "config.h"

#include "snodo-prompt.h"
#include "snodo-description.h"

/**
 * SnodoPrompt:
 *
 * The description of a prompt a [class@Snodo.Server] offers: a template of
 * messages for the user to pick, with named string arguments. The handler
 * that fills it in is given to [method@Snodo.Server.add_prompt].
 *
 * A prompt's description must not change while it is registered; to change
 * it, remove the prompt and add it again (clients are told of the change).
 *
 * ```c
 * g_autoptr(SnodoPrompt) prompt = snodo_prompt_new ("review", "Reviews a change");
 *
 * snodo_prompt_add_argument (prompt, "change", "The change to review", TRUE);
 * snodo_server_add_prompt (server, prompt, review_cb, NULL, NULL, NULL);
 * ```
 *
 * From Python, a function whose parameters are the prompt's arguments is
 * enough; a string it returns is one user message (see the Python and
 * JavaScript page):
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 *
 * @server.prompt()
 * def review(change: str) -> str:
 *     """Reviews a change."""
 *     return 'Please review ' + change
 *
 *
 * server.run()
 * ```
 *
 * and from JavaScript:
 *
 * ```js
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 * server.prompt({name: 'review', description: 'Reviews a change', arguments: {change: 'string'}},
 *     ({change}) => `Please review ${change}`);
 * server.run();
 * ```
 *
 * The explicit form, in Python, with the messages as plain values:
 *
 * ```python
 * import gi
 * gi.require_version('Snodo', '1')
 * from gi.repository import GLib, Snodo
 *
 * server = Snodo.Server.new('my-app', '1.0')
 *
 * review = Snodo.Prompt.new('review', 'Reviews a change')
 * review.add_argument('change', 'The change to review', True)
 *
 * def fill_in(invocation):
 *     change = invocation.get_arguments()['change']
 *     messages = [{'role': 'user', 'content': {'type': 'text', 'text': 'Please review ' + change}}]
 *     invocation.return_prompt('A review', messages)
 *
 * server.add_prompt(review, fill_in)
 *
 * transport = Snodo.StdioTransport.new_for_stdio(server)
 * loop = GLib.MainLoop()
 * transport.connect('closed', lambda *_: loop.quit())
 * transport.start()
 * loop.run()
 * ```
 *
 * In JavaScript:
 *
 * ```js
 * import GLib from 'gi://GLib';
 * import Snodo from 'gi://Snodo?version=1';
 *
 * const server = Snodo.Server.new('my-app', '1.0');
 *
 * const review = Snodo.Prompt.new('review', 'Reviews a change');
 * review.add_argument('change', 'The change to review', true);
 * server.add_prompt(review, invocation => {
 *     const {change} = invocation.get_arguments();
 *     const messages = [{role: 'user', content: {type: 'text', text: `Please review ${change}`}}];
 *     invocation.return_prompt('A review', messages);
 * });
 *
 * const transport = Snodo.StdioTransport.new_for_stdio(server);
 * const loop = new GLib.MainLoop(null, false);
 * transport.connect('closed', () => loop.quit());
 * transport.start();
 * loop.run();
 * ```
 *
 * Since: 0.1
 */

struct _SnodoPrompt
{
  SnodoDescription  parent_instance;

  /* Sealed JSON array of {name, description?, required?} objects, as
   * prompts/list writes them; never NULL. Replaced by a new array on each
   * added argument. */
  JsonNode         *arguments;
};

G_DEFINE_FINAL_TYPE (SnodoPrompt, snodo_prompt, SNODO_TYPE_DESCRIPTION)

static gboolean
snodo_prompt_has_argument (SnodoPrompt *self,
                           const char  *name)
{
  JsonArray *arguments = json_node_get_array (self->arguments);

  for (guint i = 0; i < json_array_get_length (arguments); i++)
    {
      JsonObject *argument = json_array_get_object_element (arguments, i);

      if (g_str_equal (json_object_get_string_member (argument, "name"), name))
        return TRUE;
    }
  return FALSE;
}

static void
snodo_prompt_finalize (GObject *object)
{
  SnodoPrompt *self = SNODO_PROMPT (object);

  g_clear_pointer (&self->arguments, json_node_unref);

  G_OBJECT_CLASS (snodo_prompt_parent_class)->finalize (object);
}

static void
snodo_prompt_class_init (SnodoPromptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = snodo_prompt_finalize;
}

static void
snodo_prompt_init (SnodoPrompt *self)
{
  self->arguments = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (self->arguments, json_array_new ());
  json_node_seal (self->arguments);
}

/**
 * snodo_prompt_new:
 * @name: the prompt's name
 * @description: (nullable): what the prompt is for
 *
 * Makes the description of a prompt without arguments.
 *
 * Returns: (transfer full): a new prompt
 *
 * Since: 0.1
 */
SnodoPrompt *
snodo_prompt_new (const char *name,
                  const char *description)
{
  g_return_val_if_fail (name != NULL, NULL);

  return g_object_new (SNODO_TYPE_PROMPT,
                       "name", name,
                       "description", description,
                       NULL);
}

/**
 * snodo_prompt_get_name:
 * @self: a prompt
 *
 * Gets the prompt's name.
 *
 * Returns: (transfer none): the name
 *
 * Since: 0.1
 */
const char *
snodo_prompt_get_name (SnodoPrompt *self)
{
  g_return_val_if_fail (SNODO_IS_PROMPT (self), NULL);
  return snodo_description_get_name (SNODO_DESCRIPTION (self));
}

/**
 * snodo_prompt_get_title:
 * @self: a prompt
 *
 * Gets the prompt's human-readable title.
 *
 * Returns: (transfer none) (nullable): the title
 *
 * Since: 0.1
 */
const char *
snodo_prompt_get_title (SnodoPrompt *self)
{
  g_return_val_if_fail (SNODO_IS_PROMPT (self), NULL);
  return snodo_description_get_title (SNODO_DESCRIPTION (self));
}

/**
 * snodo_prompt_set_title:
 * @self: a prompt
 * @title: (nullable): the title
 *
 * Sets the prompt's human-readable title.
 *
 * Since: 0.1
 */
void
snodo_prompt_set_title (SnodoPrompt *self,
                        const char  *title)
{
  g_return_if_fail (SNODO_IS_PROMPT (self));

  snodo_description_set_title (SNODO_DESCRIPTION (self), title);
}

/**
 * snodo_prompt_get_description:
 * @self: a prompt
 *
 * Gets what the prompt is for.
 *
 * Returns: (transfer none) (nullable): the description
 *
 * Since: 0.1
 */
const char *
snodo_prompt_get_description (SnodoPrompt *self)
{
  g_return_val_if_fail (SNODO_IS_PROMPT (self), NULL);
  return snodo_description_get_description (SNODO_DESCRIPTION (self));
}

/**
 * snodo_prompt_set_description:
 * @self: a prompt
 * @description: (nullable): the description
 *
 * Sets what the prompt is for.
 *
 * Since: 0.1
 */
void
snodo_prompt_set_description (SnodoPrompt *self,
                              const char  *description)
{
  g_return_if_fail (SNODO_IS_PROMPT (self));

  snodo_description_set_description (SNODO_DESCRIPTION (self), description);
}

/**
 * snodo_prompt_get_icons:
 * @self: a prompt
 *
 * Gets the prompt's icons.
 *
 * Returns: (transfer none) (nullable): the icons, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_prompt_get_icons (SnodoPrompt *self)
{
  g_return_val_if_fail (SNODO_IS_PROMPT (self), NULL);
  return snodo_description_get_icons (SNODO_DESCRIPTION (self));
}

/**
 * snodo_prompt_set_icons:
 * @self: a prompt
 * @icons: (nullable): a JSON array of icon objects, or %NULL
 *
 * Sets the prompt's icons (see [property@Snodo.Description:icons]). A copy is
 * kept.
 *
 * Since: 0.1
 */
void
snodo_prompt_set_icons (SnodoPrompt *self,
                        JsonNode    *icons)
{
  g_return_if_fail (SNODO_IS_PROMPT (self));

  snodo_description_set_icons (SNODO_DESCRIPTION (self), icons);
}

/**
 * snodo_prompt_add_argument:
 * @self: a prompt
 * @name: the argument's name, not yet used by another argument
 * @description: (nullable): what the argument means
 * @required: whether `prompts/get` must give the argument
 *
 * Adds a string argument to the prompt. Arguments are listed in the order
 * they were added. A `prompts/get` request that lacks a required argument is
 * refused before the handler runs.
 *
 * Since: 0.1
 */
void
snodo_prompt_add_argument (SnodoPrompt *self,
                           const char  *name,
                           const char  *description,
                           gboolean     required)
{
  g_autoptr(JsonNode) copy = NULL;
  JsonArray *old;
  JsonObject *argument;

  g_return_if_fail (SNODO_IS_PROMPT (self));
  g_return_if_fail (name != NULL && *name != '\0');
  g_return_if_fail (!snodo_prompt_has_argument (self, name));

  argument = json_object_new ();
  json_object_set_string_member (argument, "name", name);
  if (description != NULL)
    json_object_set_string_member (argument, "description", description);
  if (required)
    json_object_set_boolean_member (argument, "required", TRUE);

  /* The array is sealed; the new one replaces it whole. */
  old = json_node_get_array (self->arguments);
  copy = json_node_new (JSON_NODE_ARRAY);
  json_node_take_array (copy, json_array_new ());
  for (guint i = 0; i < json_array_get_length (old); i++)
    json_array_add_element (json_node_get_array (copy),
                            json_node_copy (json_array_get_element (old, i)));
  json_array_add_object_element (json_node_get_array (copy), argument);
  json_node_seal (copy);

  g_clear_pointer (&self->arguments, json_node_unref);
  self->arguments = g_steal_pointer (&copy);
}

/**
 * snodo_prompt_get_arguments:
 * @self: a prompt
 *
 * Gets the prompt's arguments, as `prompts/list` describes them: a JSON
 * array of objects with `name`, and `description` and `required: true` when
 * they apply.
 *
 * Returns: (transfer none): the arguments, a sealed JSON array
 *
 * Since: 0.1
 */
JsonNode *
snodo_prompt_get_arguments (SnodoPrompt *self)
{
  g_return_val_if_fail (SNODO_IS_PROMPT (self), NULL);
  return self->arguments;
}
