#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright 2026 The Snodo authors
#
# notes.py: an MCP server in Python that keeps notes, written as plain
# functions (see hello.py for the smallest one).
#
#   add_note {title, text}   a Note: its id, title, text and word count
#                            (a dataclass: structured content and its
#                            output schema)
#   get_note {id}            a Note, or a tool error if there is none
#   count_words {pause_ms?}  words per note, reporting progress and logging
#                            as it goes (async; a cancelled call stops it)
#   clear_notes {}           asks the user to confirm (elicitation) first
#   notes://{id}             a resource template: the text of a note
#   summarize {id}           a prompt asking to summarize a note
#
# Serves standard input and output, or Streamable HTTP with --http PORT.
# Uninstalled, from a build directory's environment:  meson devenv -C _build
# /usr/bin/python3 examples/notes.py

import dataclasses
import sys
from typing import Annotated

import gi

gi.require_version('Snodo', '1')
from gi.repository import Snodo  # noqa: E402

server = Snodo.Server.new('notes-py', '1.0')
notes = {}


@dataclasses.dataclass
class Note:
    id: int
    title: str
    text: str
    words: int


@dataclasses.dataclass
class WordCount:
    notes: int
    words: int


@dataclasses.dataclass
class Confirm:
    sure: Annotated[bool, 'Delete them all']


@server.tool()
def add_note(title: str, text: Annotated[str, 'What the note says']) -> Note:
    """Adds a note and gives it an id."""
    note = Note(len(notes) + 1, title, text, len(text.split()))
    notes[note.id] = note
    return note


@server.tool(annotations={'readOnlyHint': True})
def get_note(id: int) -> Note:
    """Gives the note with this id."""
    if id not in notes:
        raise Snodo.ToolError(f'There is no note {id}')
    return notes[id]


@server.tool(annotations={'readOnlyHint': True})
async def count_words(ctx: Snodo.Context, pause_ms: int = 0) -> WordCount:
    """Counts the words of every note, one note at a time.

    Args:
        pause_ms: How long to pause after each note, in milliseconds.
    """
    words = 0
    try:
        for done, note in enumerate(list(notes.values()), 1):
            words += note.words
            ctx.report_progress(done, len(notes), f'counted {note.title}')
            await Snodo.sleep(pause_ms)
    except Snodo.Cancelled:
        print(f'notes.py: count_words cancelled after {done - 1} notes', file=sys.stderr)
        raise
    ctx.log('info', f'{words} words in {len(notes)} notes')
    return WordCount(len(notes), words)


@server.tool(annotations={'destructiveHint': True})
async def clear_notes(ctx: Snodo.Context) -> str:
    """Deletes every note, once the user confirms."""
    answer = await ctx.elicit(f'Delete all {len(notes)} notes?', Confirm)
    if answer.action != 'accept' or not answer.data.sure:
        return 'Kept the notes'
    count = len(notes)
    notes.clear()
    return f'Deleted {count} notes'


@server.resource('notes://{id}', mime_type='text/plain')
def note_text(id: int) -> str:
    """The text of a note."""
    return notes[id].text if id in notes else None


@server.prompt()
def summarize(id: int) -> str:
    """Asks for a summary of a note."""
    return f'Summarize this note in one sentence:\n\n{notes[id].text}' if id in notes else f'There is no note {id}.'


server.run()
