// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// notes.js: an MCP server in JavaScript (GJS) that keeps notes, written as
// plain functions (see hello.js for the smallest one). The same server as
// notes.py:
//
//   add_note {title, text}   a note: its id, title, text and word count
//                            (structured content, with an output schema)
//   get_note {id}            a note, or a tool error if there is none
//   count_words {pause_ms?}  words per note, reporting progress and logging
//                            as it goes (a cancelled call stops it)
//   clear_notes {}           asks the user to confirm (elicitation) first
//   notes://{id}             a resource template: the text of a note
//   summarize {id}           a prompt asking to summarize a note
//
// Serves standard input and output, or Streamable HTTP with --http PORT.
// Uninstalled, from a build directory's environment:  meson devenv -C _build
// gjs -m examples/notes.js

import Snodo from 'gi://Snodo?version=1';

const server = Snodo.Server.new('notes-js', '1.0');
const notes = new Map();
const NOTE = {id: 'integer', title: 'string', text: 'string', words: 'integer'};

server.tool({
    name: 'add_note', description: 'Adds a note and gives it an id.',
    input: {title: 'string', text: {type: 'string', description: 'What the note says'}},
    output: NOTE,
}, ({title, text}) => {
    const note = {id: notes.size + 1, title, text, words: text.split(/\s+/).filter(w => w).length};
    notes.set(note.id, note);
    return note;
});

server.tool({
    name: 'get_note', description: 'Gives the note with this id.', annotations: {readOnlyHint: true},
    input: {id: 'integer'}, output: NOTE,
}, ({id}) => {
    if (!notes.has(id))
        throw new Snodo.ToolError(`There is no note ${id}`);
    return notes.get(id);
});

server.tool({
    name: 'count_words', description: 'Counts the words of every note, one note at a time.',
    annotations: {readOnlyHint: true},
    input: {pause_ms: {type: 'integer', description: 'How long to pause after each note, in milliseconds.',
        default: 0}},
    output: {notes: 'integer', words: 'integer'},
}, async ({pause_ms: pause = 0}, ctx) => {
    let words = 0;
    let done = 0;
    try {
        for (const note of [...notes.values()]) {
            words += note.words;
            ctx.reportProgress(++done, notes.size, `counted ${note.title}`);
            await ctx.sleep(pause);  // rejects with Snodo.Cancelled when the call is cancelled
        }
    } catch (error) {
        if (error instanceof Snodo.Cancelled)
            printerr(`notes.js: count_words cancelled after ${done - 1} notes`);
        throw error;
    }
    ctx.log('info', `${words} words in ${notes.size} notes`);
    return {notes: notes.size, words};
});

server.tool({
    name: 'clear_notes', description: 'Deletes every note, once the user confirms.',
    annotations: {destructiveHint: true},
}, async (_args, ctx) => {
    const answer = await ctx.elicit(`Delete all ${notes.size} notes?`,
        {sure: {type: 'boolean', description: 'Delete them all'}});
    if (answer.action !== 'accept' || !answer.content.sure)
        return 'Kept the notes';
    const count = notes.size;
    notes.clear();
    return `Deleted ${count} notes`;
});

server.resource('notes://{id}', {name: 'note_text', description: 'The text of a note.', mimeType: 'text/plain'},
    ({id}) => notes.get(Number(id))?.text ?? null);

server.prompt({name: 'summarize', description: 'Asks for a summary of a note.', arguments: {id: 'string'}},
    ({id}) => notes.has(Number(id))
        ? `Summarize this note in one sentence:\n\n${notes.get(Number(id)).text}` : `There is no note ${id}.`);

server.run();
