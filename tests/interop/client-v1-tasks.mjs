// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The 2025-11-25 task flow (experimental core tasks) through the MCP
// TypeScript SDK v1 client's experimental.tasks, against
// snodo-demo --task-store=memory and its tool job.
//
//   node tests/interop/client-v1-tasks.mjs [path/to/snodo-demo]
//
// Without an argument the demo is taken from $SNODO_DEMO (meson sets it).

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, ElicitRequestSchema, TaskStatusNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { demoPath } from './mcp-contract.mjs';

const demo = demoPath();
let count = 0;
let failed = 0;

function ok(name) {
  process.stdout.write(`ok ${++count} - ${name}\n`);
}

function notOk(name, why) {
  failed++;
  process.stdout.write(`not ok ${++count} - ${name}\n# ${String(why).replace(/\n/g, '\n# ')}\n`);
  process.stderr.write(`FAIL: ${name}: ${why}\n`);
}

async function check(name, body) {
  try {
    await body();
    ok(name);
  } catch (e) {
    notOk(name, e?.stack ?? e);
  }
}

function expect(condition, what) {
  if (!condition)
    throw new Error(what);
}

process.stdout.write('TAP version 13\n');
const watchdog = setTimeout(() => {
  process.stdout.write('Bail out! gave up after 60 s\n');
  process.exit(1);
}, 60000);

const client = new Client({ name: 'snodo-interop-v1-tasks', version: '0.1.0' },
  { capabilities: { elicitation: {} } });
const questions = [];
const relatedTasks = [];
client.setRequestHandler(ElicitRequestSchema, (request) => {
  questions.push(request.params.message);
  relatedTasks.push(request.params._meta?.['io.modelcontextprotocol/related-task']?.taskId);
  return { action: 'accept', content: { continue: true } };
});
const statuses = [];
client.setNotificationHandler(TaskStatusNotificationSchema, (notification) => {
  statuses.push(notification.params);
});
const transport = new StdioClientTransport({ command: demo, args: ['--task-store=memory'], stderr: 'inherit' });
await client.connect(transport);

let jobId;

await check('initialize: the tasks capability, tools/call as a task request', async () => {
  const capabilities = client.getServerCapabilities();
  expect(capabilities?.tasks?.requests?.tools?.call !== undefined, `capabilities.tasks: ${JSON.stringify(capabilities?.tasks)}`);
  expect(capabilities?.tasks?.list !== undefined && capabilities?.tasks?.cancel !== undefined,
    `capabilities.tasks: ${JSON.stringify(capabilities?.tasks)}`);
});

await check('tools/list: job has execution.taskSupport optional, echo forbidden', async () => {
  const { tools } = await client.listTools();
  const job = tools.find((t) => t.name === 'job');
  const echo = tools.find((t) => t.name === 'echo');
  expect(job?.execution?.taskSupport === 'optional', `job: ${JSON.stringify(job?.execution)}`);
  expect(echo?.execution?.taskSupport === 'forbidden', `echo: ${JSON.stringify(echo?.execution)}`);
});

await check('callToolStream: a task, its progress, its question answered on the way, then the result', async () => {
  const seen = [];
  const progress = [];
  let result;
  for await (const message of client.experimental.tasks.callToolStream(
    { name: 'job', arguments: { steps: 4, step_ms: 100 } }, undefined,
    { task: { ttl: 60000 }, onprogress: (p) => progress.push(p.progress) })) {
    seen.push(message.type);
    if (message.type === 'taskCreated')
      jobId = message.task.taskId;
    else if (message.type === 'result')
      result = message.result;
    else if (message.type === 'error')
      throw message.error;
  }
  expect(seen[0] === 'taskCreated', `messages: ${seen.join(', ')}`);
  expect(/^[0-9a-f]{32}$/.test(jobId), `task id ${jobId}`);
  expect(result?.content?.[0]?.text === 'job done: 4 steps', `result: ${JSON.stringify(result)}`);
  expect(questions.length === 1 && /half done/.test(questions[0]), `questions: ${JSON.stringify(questions)}`);
  expect(relatedTasks[0] === jobId, `the question names its task: ${JSON.stringify(relatedTasks)}`);
  // Progress of the task reaches the client through its token.
  expect(progress.length >= 1 && progress.every((p, i) => i === 0 || p > progress[i - 1]),
    `progress: ${JSON.stringify(progress)}`);
});

await check('tasks/get and tasks/result after the end', async () => {
  const task = await client.experimental.tasks.getTask(jobId);
  expect(task.status === 'completed' && task.taskId === jobId, `task: ${JSON.stringify(task)}`);
  expect(task.ttl === 60000, `ttl: ${task.ttl}`);
  const result = await client.experimental.tasks.getTaskResult(jobId, CallToolResultSchema);
  expect(result.content?.[0]?.text === 'job done: 4 steps', `result: ${JSON.stringify(result)}`);
  expect(result._meta?.['io.modelcontextprotocol/related-task']?.taskId === jobId, `_meta: ${JSON.stringify(result._meta)}`);
});

await check('notifications/tasks/status: input_required, working, completed', async () => {
  const mine = statuses.filter((s) => s.taskId === jobId).map((s) => s.status);
  expect(JSON.stringify(mine) === JSON.stringify(['input_required', 'working', 'completed']),
    `statuses: ${JSON.stringify(mine)}`);
});

await check('tasks/cancel: the task ends cancelled; cancelling it again is refused', async () => {
  const stream = client.experimental.tasks.callToolStream(
    { name: 'job', arguments: { steps: 100, step_ms: 60000, ask: false } }, undefined, { task: {} });
  const first = await stream.next();
  expect(first.value?.type === 'taskCreated', `first: ${JSON.stringify(first.value)}`);
  const id = first.value.task.taskId;
  const cancelled = await client.experimental.tasks.cancelTask(id);
  expect(cancelled.status === 'cancelled', `cancel: ${JSON.stringify(cancelled)}`);
  const task = await client.experimental.tasks.getTask(id);
  expect(task.status === 'cancelled', `task: ${JSON.stringify(task)}`);
  await stream.return();
  let refused = false;
  try {
    await client.experimental.tasks.cancelTask(id);
  } catch (e) {
    refused = e.code === -32602;
  }
  expect(refused, 'cancelling an ended task must be refused with -32602');
});

await check('tasks/list: the tasks, newest first', async () => {
  const { tasks } = await client.experimental.tasks.listTasks();
  expect(tasks.length === 2 && tasks[1].taskId === jobId, `tasks: ${JSON.stringify(tasks)}`);
});

await check('a plain call of the same tool still works', async () => {
  const result = await client.callTool({ name: 'job', arguments: { steps: 1, step_ms: 1, ask: false } });
  expect(result.content?.[0]?.text === 'job done: 1 steps', `result: ${JSON.stringify(result)}`);
});

await client.close();
clearTimeout(watchdog);
process.stdout.write(`1..${count}\n`);
process.exit(failed > 0 ? 1 : 0);
