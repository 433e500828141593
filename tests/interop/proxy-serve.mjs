// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// An SDK client of `snodo proxy --serve a=SNODO-DEMO --serve b=SNODO-DEMO`:
// it lists the tools of both, prefixed, calls one of each with progress,
// answers the elicitation of one, and sees the list change of the other.
//
//   node tests/interop/proxy-serve.mjs SNODO ADAPTER SNODO-DEMO
//
// ADAPTER is one of adapters.mjs: v1, v2Legacy, v2Modern. Output is TAP.

import * as adapters from './adapters.mjs';

const [snodo, adapterName, demo] = process.argv.slice(2);
const adapter = adapters[adapterName];
if (!snodo || !adapter || !demo) {
  process.stdout.write('Bail out! usage: proxy-serve.mjs SNODO v1|v2Legacy|v2Modern SNODO-DEMO\n');
  process.exit(1);
}

let count = 0;
let failed = 0;
process.stdout.write('TAP version 13\n');

async function check(name, body) {
  count++;
  try {
    const note = await body();
    process.stdout.write(`ok ${count} - ${adapter.sdk}: ${name}${note ? ` # ${note}` : ''}\n`);
  } catch (error) {
    failed++;
    process.stdout.write(`not ok ${count} - ${adapter.sdk}: ${name}\n# ${String(error?.stack ?? error).replace(/\n/g, '\n# ')}\n`);
  }
}

function text(result) {
  return (result?.content ?? []).map((block) => block.text ?? '').join('');
}

const client = adapter.newClient({ elicitation: { form: {} } });
const transport = new adapter.StdioClientTransport({
  command: snodo,
  args: ['proxy', '--serve', `a=${demo}`, '--serve', `b=${demo} --protocol-versions 2025-11-25`],
  stderr: 'inherit',
});
const session = { client, transport };
adapter.prepare?.(session);
let toolsChanged = 0;
adapter.onToolsChanged(client, () => { toolsChanged++; });
adapter.onElicit(client, async (params) => {
  if (params.message !== 'Through the proxy?')
    throw new Error(`unexpected elicitation ${JSON.stringify(params)}`);
  return { action: 'accept', content: { confirm: true } };
});

await check('connects to snodo proxy --serve', async () => {
  await client.connect(transport);
  return `era ${adapter.era}`;
});

await check('lists the tools of both servers, prefixed with their names', async () => {
  const { tools } = await client.listTools();
  const names = tools.map((tool) => tool.name);
  for (const name of ['a_echo', 'b_echo', 'a_ask', 'b_toggle'])
    if (!names.includes(name))
      throw new Error(`${name} missing from ${JSON.stringify(names)}`);
  if (names.includes('echo'))
    throw new Error(`an unprefixed tool: ${JSON.stringify(names)}`);
  return `${names.length} tools`;
});

await check('calls a tool of each server', async () => {
  const a = await adapter.callTool(client, { name: 'a_echo', arguments: { text: 'from a' } });
  const b = await adapter.callTool(client, { name: 'b_add', arguments: { a: 2, b: 40 } });
  if (text(a) !== 'from a' || b.structuredContent?.sum !== 42)
    throw new Error(`answers ${JSON.stringify([a, b])}`);
});

await check('progress of a call comes through', async () => {
  const seen = [];
  const result = await adapter.callTool(client, { name: 'b_progress', arguments: { steps: 3 } },
    { onprogress: (progress) => seen.push(progress.progress) });
  if (seen.join(',') !== '1,2,3' || !text(result).includes('3'))
    throw new Error(`progress ${JSON.stringify(seen)}, result ${JSON.stringify(result)}`);
});

await check('a server\'s elicitation reaches the client, and its answer goes back', async () => {
  const result = await adapter.callTool(client, { name: 'a_ask', arguments: { question: 'Through the proxy?' } });
  if (!text(result).includes('confirmed'))
    throw new Error(`result ${JSON.stringify(result)}`);
});

await check('a server\'s list change reaches the client', async () => {
  let subscription;
  if (adapter.era === 'modern')
    subscription = await adapter.listen(client, { toolsListChanged: true });
  const before = toolsChanged;
  await adapter.callTool(client, { name: 'b_toggle', arguments: {} });
  for (let i = 0; i < 100 && toolsChanged === before; i++)
    await new Promise((resolve) => setTimeout(resolve, 50));
  await subscription?.close?.();
  const { tools } = await client.listTools();
  if (toolsChanged === before || !tools.some((tool) => tool.name === 'b_extra'))
    throw new Error(`${toolsChanged - before} list changes, tools ${JSON.stringify(tools.map((t) => t.name))}`);
});

await client.close();
process.stdout.write(`1..${count}\n`);
process.exit(failed ? 1 : 0);
