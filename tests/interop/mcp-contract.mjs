// SPDX-License-Identifier: LGPL-2.1-or-later
// Copyright 2026 The Snodo authors
//
// The snodo-demo stdio contract, checked through a real MCP SDK client.
//
// client-v1.mjs, client-v2-legacy.mjs, client-v2-auto.mjs and
// client-v2-modern.mjs each pass in an adapter that hides the differences
// between the SDK generations and protocol eras; everything else lives
// here. Output is TAP on stdout (one subtest per check); anything else the
// SDKs or the demo print goes to stderr. The process exits 1 if any check
// failed, and never reports a skip.

import { format } from 'node:util';
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';

// Both SDK generations print through console.*, and v2 uses console.debug
// for some notices. Keep stdout for TAP alone.
for (const name of ['log', 'info', 'debug', 'warn']) {
  console[name] = (...args) => process.stderr.write(format(...args) + '\n');
}

// Generous limits: the suite runs on loaded two-core machines.
const REQUEST_TIMEOUT_MS = 30000;   // any single request
const EXIT_WAIT_MS = 8000;          // after the SDK's own close() returned
const WATCHDOG_MS = 110000;         // whole script (meson gives 120 s)
const CONCURRENT_CALLS = 10;
const CONCURRENT_SLEEP_MS = 300;
const CONCURRENT_BOUND_MS = 2000;   // well under 10 x 300 ms run one by one

const EXPECTED_TOOLS = ['echo', 'add', 'sleep', 'fail', 'blob', 'progress', 'ask', 'log', 'toggle', 'touch', 'version',
  'chart'];
const LATEST_VERSION = '2025-11-25';
const MODERN_VERSION = '2026-07-28';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';
const PROGRESS_STEPS = 4;
const NOTIFICATION_WAIT_MS = 10000;
const SERVER_NAME = 'snodo-demo';

// Text that must survive the round trip byte for byte: non-ASCII in the
// Basic Multilingual Plane and beyond it, a newline, quotes, a backslash,
// a tab and a control character.
const ECHO_TEXT = 'h\u00e9llo w\u00f6rld \u2713 \u65e5\u672c\u8a9e \ud83d\udc27\n' +
  'second line with "double" and \'single\' quotes, a \\ backslash,\ta tab and \u0001';

class CheckFailed extends Error {}

function fail(message) {
  throw new CheckFailed(message);
}

function expect(cond, message) {
  if (!cond)
    fail(message);
}

function show(value) {
  const s = JSON.stringify(value);
  if (s === undefined)
    return String(value);
  return s.length > 300 ? s.slice(0, 300) + `... (${s.length} chars)` : s;
}

function describeError(e) {
  if (e instanceof CheckFailed)
    return e.message;
  const name = e?.constructor?.name ?? typeof e;
  const code = e?.code !== undefined ? ` code=${e.code}` : '';
  let message = String(e?.message ?? e).replace(/\s+/g, ' ');
  if (message.length > 400)
    message = message.slice(0, 400) + '...';
  return `${name}${code}: ${message}`;
}

export function demoPath() {
  const arg = process.argv[2];
  const env = process.env.SNODO_DEMO;
  const path = arg || env;
  if (!path) {
    process.stdout.write('Bail out! no demo given: set SNODO_DEMO or pass the path of snodo-demo as the first argument\n');
    process.exit(1);
  }
  const full = isAbsolute(path) ? path : resolve(path);
  if (!existsSync(full)) {
    process.stdout.write(`Bail out! ${full} does not exist (build it first: ninja -C _build)\n`);
    process.exit(1);
  }
  return full;
}

class Tap {
  constructor() {
    this.count = 0;
    this.failed = 0;
    process.stdout.write('TAP version 13\n');
  }

  diag(text) {
    for (const line of String(text).split('\n'))
      process.stdout.write(`# ${line}\n`);
  }

  ok(name) {
    this.count++;
    process.stdout.write(`ok ${this.count} - ${name}\n`);
  }

  notOk(name, why) {
    this.count++;
    this.failed++;
    process.stdout.write(`not ok ${this.count} - ${name}\n`);
    this.diag(why);
    process.stderr.write(`FAIL: ${name}: ${why}\n`);
  }

  bailOut(why) {
    process.stdout.write(`Bail out! ${why.split('\n')[0]}\n`);
    process.stderr.write(`FAIL: ${why}\n`);
    process.exit(1);
  }

  finish() {
    process.stdout.write(`1..${this.count}\n`);
    if (this.failed > 0)
      process.stderr.write(`${this.failed} of ${this.count} checks failed\n`);
    process.exit(this.failed > 0 ? 1 : 0);
  }
}

// One connection to a freshly spawned demo.
class Session {
  constructor(adapter, demo, label, options = {}) {
    this.adapter = adapter;
    this.label = label;
    this.sdkErrors = [];
    this.sentMethods = [];
    this.rawStdout = '';
    this.exit = null;

    this.transport = new adapter.StdioClientTransport({
      command: demo,
      // The demo behind a proxy: its command line (proxy-contract.mjs).
      args: process.env.SNODO_DEMO_ARGS ? JSON.parse(process.env.SNODO_DEMO_ARGS) : [],
      env: { ...process.env },
      stderr: 'inherit',
    });

    // Record (and possibly rewrite) what the client sends. The hook sits on
    // the instance, which the client calls through.
    const send = this.transport.send.bind(this.transport);
    this.transport.send = (message, sendOptions) => {
      if (message?.method)
        this.sentMethods.push(message.method);
      if (options.requestVersion && message?.method === 'initialize')
        message = { ...message, params: { ...message.params, protocolVersion: options.requestVersion } };
      return send(message, sendOptions);
    };

    this.client = adapter.newClient(options);
    // What the client's elicitation handler was asked, in order. The handler
    // answers by the question: accept with confirm true, unless the question
    // says otherwise.
    this.elicitations = [];
    if (options.elicitation) {
      adapter.onElicit(this.client, async (params) => {
        this.elicitations.push(params);
        if (params?.message === 'decline?')
          return { action: 'decline' };
        return { action: 'accept', content: { confirm: true } };
      });
    }
    this.toolsChanged = 0;
    this.toolsChangedWaiters = [];
    adapter.onToolsChanged(this.client, () => {
      this.toolsChanged++;
      for (const w of this.toolsChangedWaiters.splice(0))
        w();
    });
    this.client.onerror = (e) => {
      this.sdkErrors.push(e);
      process.stderr.write(`[${label}] SDK reported: ${describeError(e)}\n`);
    };
    adapter.prepare?.(this);
  }

  // Called from the transport's start(), as soon as the child exists.
  watchChild(child) {
    if (!child || typeof child.once !== 'function')
      fail('cannot reach the spawned demo process through the SDK transport (SDK internals changed?)');
    this.child = child;
    this.exited = new Promise((resolveExit) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        resolveExit(this.exit);
      });
    });
    child.stdout?.on('data', (chunk) => { this.rawStdout += chunk.toString('utf8'); });
  }

  async connect() {
    const start = this.transport.start.bind(this.transport);
    this.transport.start = async () => {
      await start();
      this.watchChild(this.transport._process);
    };
    try {
      await this.client.connect(this.transport, { timeout: REQUEST_TIMEOUT_MS });
    } catch (e) {
      if (this.exit)
        fail(`${describeError(e)}; snodo-demo had exited ` +
             (this.exit.signal ? `on signal ${this.exit.signal}` : `with status ${this.exit.code}`) +
             ` before answering initialize; its stdout was ${show(this.rawStdout)}`);
      throw e;
    }
  }

  callTool(name, args, options = {}) {
    return this.adapter.callTool(this.client, { name, arguments: args },
      { timeout: REQUEST_TIMEOUT_MS, ...options });
  }

  ping() {
    return this.client.ping({ timeout: REQUEST_TIMEOUT_MS });
  }

  // Resolves once the tools list_changed count exceeds @count.
  async waitToolsChanged(count, what) {
    if (this.toolsChanged > count)
      return;
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new CheckFailed(
        `no notifications/tools/list_changed within ${NOTIFICATION_WAIT_MS} ms ${what}`)), NOTIFICATION_WAIT_MS);
    });
    const arrived = new Promise((r) => this.toolsChangedWaiters.push(r));
    try {
      await Promise.race([arrived, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  // Closes stdin (the SDK waits up to 2 s, then sends SIGTERM) and checks
  // that the demo exited by itself with status 0.
  async closeAndCheckExit(what) {
    const t0 = Date.now();
    await this.client.close();
    const timer = new Promise((r) => setTimeout(() => r(null), EXIT_WAIT_MS).unref());
    const exit = await Promise.race([this.exited, timer]);
    const ms = Date.now() - t0;
    if (exit === null) {
      try { this.child.kill('SIGKILL'); } catch { /* already gone */ }
      fail(`snodo-demo still running ${ms} ms after stdin EOF (${what})`);
    }
    if (exit.signal)
      fail(`snodo-demo did not exit by itself after stdin EOF (${what}): killed by ${exit.signal} after ${ms} ms ` +
           '(the SDK sends SIGTERM when the server is still running 2 s after closing its stdin)');
    expect(exit.code === 0, `snodo-demo exited with status ${exit.code} after stdin EOF (${what}), expected 0`);
    return ms;
  }

  // Leave no process behind whatever happened.
  kill() {
    try {
      if (this.child && this.child.exitCode === null && this.child.signalCode === null)
        this.child.kill('SIGKILL');
    } catch { /* already gone */ }
  }
}

function textOf(result, what) {
  expect(result && Array.isArray(result.content), `${what}: result has no content array: ${show(result)}`);
  expect(result.content.length === 1, `${what}: expected exactly one content block, got ${result.content.length}: ${show(result.content)}`);
  const block = result.content[0];
  expect(block.type === 'text', `${what}: expected a text block, got type ${show(block.type)}`);
  expect(typeof block.text === 'string', `${what}: text block has no string text: ${show(block)}`);
  return block.text;
}

function expectSuccess(result, what) {
  expect(!result?.isError, `${what}: unexpected isError: true: ${show(result)}`);
}

// The run of one script: TAP output, the sessions to clean up, and a
// watchdog over the whole.
class Run {
  constructor(title) {
    this.demo = demoPath();
    this.tap = new Tap();
    this.sessions = [];
    this.watchdog = setTimeout(() => {
      for (const s of this.sessions)
        s.kill();
      this.tap.bailOut(`gave up after ${WATCHDOG_MS / 1000} s: snodo-demo stopped answering`);
    }, WATCHDOG_MS);
    this.watchdog.unref();
    this.tap.diag(`${title} driving ${this.demo}`);
  }

  finish() {
    clearTimeout(this.watchdog);
    for (const s of this.sessions)
      s.kill();
    this.tap.finish();
  }
}

// The checks' building blocks for one adapter within a run.
function harness(run, adapter) {
  const { demo, tap, sessions } = run;

  async function check(name, fn) {
    try {
      const note = await fn();
      tap.ok(name);
      if (note)
        tap.diag(note);
      return true;
    } catch (e) {
      tap.notOk(name, describeError(e));
      return false;
    }
  }

  function open(label, options) {
    const s = new Session(adapter, demo, label, options);
    sessions.push(s);
    return s;
  }

  const modern = adapter.era === 'modern';
  const expectedVersion = modern ? MODERN_VERSION : LATEST_VERSION;

  async function connectOrBail(s, expectVersion) {
    const how = modern ? 'no initialize, every request enveloped' : 'initialize + notifications/initialized';
    const ok = await check(`${s.label}: connect (${how})`, async () => {
      await s.connect();
      const info = s.client.getServerVersion();
      expect(info?.name === SERVER_NAME, `server name is ${show(info?.name)}, expected "${SERVER_NAME}"`);
      expect(typeof info?.version === 'string' && info.version.length > 0,
        `serverInfo.version missing: ${show(info)}`);
      const version = adapter.negotiatedVersion(s);
      expect(version === expectVersion, `negotiated protocol version ${show(version)}, expected ${expectVersion}`);
      if (modern) {
        // The server/discover probe ran in a sibling process (stdio); this
        // connection itself never speaks the initialize era.
        expect(!s.sentMethods.includes('initialize'), `the client sent initialize: ${show(s.sentMethods)}`);
      } else {
        expect(s.sentMethods[0] === 'initialize',
          `the client's first request was ${show(s.sentMethods[0])}, expected initialize`);
        expect(!s.sentMethods.includes('server/discover'), 'the client probed with server/discover');
      }
      const caps = s.client.getServerCapabilities();
      expect(caps && typeof caps.tools === 'object', `server capabilities lack "tools": ${show(caps)}`);
      return `server ${show(info)}, protocol ${version}`;
    });
    if (!ok) {
      for (const x of sessions)
        x.kill();
      tap.bailOut(`${s.label}: could not connect to ${demo}; nothing else can be checked`);
    }
  }

  async function checkNoSdkErrors(s) {
    await check(`${s.label}: every line from the demo was a valid JSON-RPC message for a live request`, () => {
      expect(s.sdkErrors.length === 0,
        `the SDK reported ${s.sdkErrors.length} error(s); first: ${describeError(s.sdkErrors[0])}`);
    });
  }

  return { check, open, connectOrBail, checkNoSdkErrors, modern, expectedVersion };
}

// Runs the contract against the demo through one SDK.
//
// adapter = {
//   sdk: 'human readable name',
//   StdioClientTransport,
//   prepare?(session),                        // hook before connect
//   era: 'legacy' | 'modern',                 // what the client must end up speaking
//   newClient(options): Client,               // options.elicitation: the client's elicitation capability
//   negotiatedVersion(session): string,
//   callTool(client, params, options): Promise<CallToolResult>,
//   onElicit(client, handler),                // handler(params) answers elicitation/create
//   onToolsChanged(client, handler),          // handler() on notifications/tools/list_changed
//   listen?(client, filter),                  // modern: subscriptions/listen
//   isRpcError(e): boolean,                   // the SDK's JSON-RPC error class
//   extraChecks?(check, session),             // SDK-specific checks, main session
// }
export async function runContract(adapter) {
  const run = new Run(adapter.sdk);
  const { check, open, connectOrBail, checkNoSdkErrors, modern, expectedVersion } = harness(run, adapter);

  // --- Main session: every tool, ping, concurrency, clean exit. ---
  const main = open('main', { elicitation: {} });
  await connectOrBail(main, expectedVersion);

  await check(`tools/list lists ${EXPECTED_TOOLS.join(', ')} with object input schemas`, async () => {
    const { tools } = await main.client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
    expect(Array.isArray(tools), `tools/list gave no tools array: ${show(tools)}`);
    const names = tools.map((t) => t.name);
    expect(new Set(names).size === names.length, `duplicate tool names: ${show(names)}`);
    for (const want of EXPECTED_TOOLS) {
      const tool = tools.find((t) => t.name === want);
      expect(tool, `tool "${want}" missing; listed: ${show(names)}`);
      expect(tool.inputSchema && tool.inputSchema.type === 'object',
        `tool "${want}" inputSchema.type is ${show(tool.inputSchema?.type)}, expected "object"`);
    }
    return `tools: ${names.join(', ')}`;
  });

  await check('echo returns non-ASCII text, newline, quotes and backslash unchanged', async () => {
    const r = await main.callTool('echo', { text: ECHO_TEXT });
    expectSuccess(r, 'echo');
    const text = textOf(r, 'echo');
    expect(text === ECHO_TEXT, `echo changed the text: sent ${show(ECHO_TEXT)}, got ${show(text)}`);
  });

  await check('echo of an empty string returns an empty string', async () => {
    const r = await main.callTool('echo', { text: '' });
    expectSuccess(r, 'echo ""');
    const text = textOf(r, 'echo ""');
    expect(text === '', `got ${show(text)}`);
  });

  for (const [a, b] of [[2, 40], [1.5, 2.25], [-7, 0.5]]) {
    const sum = a + b;
    await check(`add ${a} + ${b} gives text ${sum} and structuredContent.sum ${sum}`, async () => {
      const r = await main.callTool('add', { a, b });
      expectSuccess(r, 'add');
      const text = textOf(r, 'add');
      expect(text.trim() !== '' && Number(text) === sum, `text is ${show(text)}, expected the number ${sum}`);
      expect(r.structuredContent && typeof r.structuredContent === 'object',
        `no structuredContent object: ${show(r)}`);
      expect(r.structuredContent.sum === sum,
        `structuredContent is ${show(r.structuredContent)}, expected {"sum":${sum}}`);
      return `text ${show(text)}`;
    });
  }

  await check('fail returns a tool result with isError: true', async () => {
    const r = await main.callTool('fail', {});
    expect(r?.isError === true, `isError is ${show(r?.isError)}: ${show(r)}`);
    expect(Array.isArray(r.content), `no content array: ${show(r)}`);
  });

  for (const bytes of [100000, 0]) {
    await check(`blob of ${bytes} gives one text of exactly ${bytes} characters`, async () => {
      const r = await main.callTool('blob', { bytes });
      expectSuccess(r, 'blob');
      const text = textOf(r, 'blob');
      expect(text.length === bytes, `text length ${text.length}, expected ${bytes}`);
    });
  }

  await check('sleep 50 waits at least 50 ms and answers "slept 50"', async () => {
    const t0 = Date.now();
    const r = await main.callTool('sleep', { ms: 50 });
    const ms = Date.now() - t0;
    expectSuccess(r, 'sleep');
    const text = textOf(r, 'sleep');
    expect(text === 'slept 50', `text ${show(text)}, expected "slept 50"`);
    expect(ms >= 45, `answered after ${ms} ms, before the 50 ms were up`);
    return `${ms} ms`;
  });

  await check('an unknown tool is a JSON-RPC error -32602', async () => {
    let r;
    try {
      r = await main.callTool('no-such-tool', {});
    } catch (e) {
      expect(adapter.isRpcError(e), `rejected with ${describeError(e)}, expected the SDK's JSON-RPC error class`);
      expect(e.code === -32602, `error code ${e.code}, expected -32602 (${e.message})`);
      return `rejected with ${describeError(e)}`;
    }
    fail(`the call resolved instead of failing: ${show(r)}`);
  });

  if (modern) {
    await check('every result carries serverInfo in _meta (2026-07-28)', async () => {
      const r = await main.callTool('echo', { text: 'meta' });
      const info = r?._meta?.[SERVER_INFO_KEY];
      expect(info?.name === SERVER_NAME, `result _meta is ${show(r?._meta)}, expected ${SERVER_INFO_KEY}.name "${SERVER_NAME}"`);
    });

    await check('the tools are served under 2026-07-28', async () => {
      const r = await main.callTool('version', {});
      expect(textOf(r, 'version') === MODERN_VERSION, `version answered ${show(textOf(r, 'version'))}`);
    });
  } else {
    await check('ping answers with an empty result', async () => {
      const r = await main.ping();
      expect(r && typeof r === 'object' && !Array.isArray(r), `ping result ${show(r)}`);
      const keys = Object.keys(r).filter((k) => k !== '_meta');
      expect(keys.length === 0, `ping result has members: ${show(r)}`);
    });
  }

  await check(`progress ${PROGRESS_STEPS}: onprogress sees ${PROGRESS_STEPS} reports in order, all before the result`, async () => {
    const seen = [];
    let resolved = false;
    const r = await main.callTool('progress', { steps: PROGRESS_STEPS }, {
      onprogress: (p) => seen.push({ ...p, afterResult: resolved }),
    });
    resolved = true;
    expectSuccess(r, 'progress');
    expect(textOf(r, 'progress') === `done ${PROGRESS_STEPS} steps`, `text ${show(textOf(r, 'progress'))}`);
    expect(seen.length === PROGRESS_STEPS, `${seen.length} progress reports, expected ${PROGRESS_STEPS}: ${show(seen)}`);
    seen.forEach((p, i) => {
      expect(p.progress === i + 1, `report #${i} has progress ${show(p.progress)}, expected ${i + 1}: ${show(seen)}`);
      expect(p.total === PROGRESS_STEPS, `report #${i} has total ${show(p.total)}: ${show(p)}`);
      expect(p.message === `step ${i + 1} of ${PROGRESS_STEPS}`, `report #${i} message ${show(p.message)}`);
      expect(!p.afterResult, `report #${i} arrived after the result`);
    });
  });

  await check('progress without onprogress (no progressToken) answers "done 2 steps"', async () => {
    const r = await main.callTool('progress', { steps: 2 });
    expectSuccess(r, 'progress');
    expect(textOf(r, 'progress') === 'done 2 steps', `text ${show(textOf(r, 'progress'))}`);
  });

  await check(`ask: the client's elicitation handler is asked and accepts, the tool answers "confirmed"`, async () => {
    const before = main.elicitations.length;
    const r = await main.callTool('ask', { question: 'Proceed?' });
    expectSuccess(r, 'ask');
    const asked = main.elicitations.slice(before);
    expect(asked.length === 1, `the elicitation handler was called ${asked.length} times: ${show(asked)}`);
    expect(asked[0]?.message === 'Proceed?', `elicitation message ${show(asked[0]?.message)}`);
    const schema = asked[0]?.requestedSchema;
    expect(schema?.type === 'object' && schema?.properties?.confirm?.type === 'boolean',
      `requestedSchema ${show(schema)}, expected an object with a boolean "confirm"`);
    expect(textOf(r, 'ask') === 'confirmed', `ask answered ${show(textOf(r, 'ask'))}`);
    return modern ? 'through input_required and a retry' : 'through elicitation/create';
  });

  await check('ask: a declined elicitation makes the tool answer "declined"', async () => {
    const r = await main.callTool('ask', { question: 'decline?' });
    expectSuccess(r, 'ask');
    expect(textOf(r, 'ask') === 'declined', `ask answered ${show(textOf(r, 'ask'))}`);
  });

  if (modern) {
    await check('subscriptions/listen: toggle is announced with notifications/tools/list_changed', async () => {
      const sub = await adapter.listen(main.client, { toolsListChanged: true });
      expect(sub.honoredFilter?.toolsListChanged === true && Object.keys(sub.honoredFilter).length === 1,
        `honoured filter ${show(sub.honoredFilter)}, expected {"toolsListChanged":true}`);
      const count = main.toolsChanged;
      const r = await main.callTool('toggle', {});
      expect(textOf(r, 'toggle') === 'added extra', `toggle answered ${show(textOf(r, 'toggle'))}`);
      await main.waitToolsChanged(count, 'after toggle');
      await sub.close();
      const back = await main.callTool('toggle', {});
      expect(textOf(back, 'toggle') === 'removed extra', `toggle answered ${show(textOf(back, 'toggle'))}`);
    });
  } else {
    await check('toggle is announced with notifications/tools/list_changed', async () => {
      const count = main.toolsChanged;
      const r = await main.callTool('toggle', {});
      expect(textOf(r, 'toggle') === 'added extra', `toggle answered ${show(textOf(r, 'toggle'))}`);
      await main.waitToolsChanged(count, 'after toggle');
      const { tools } = await main.client.listTools(undefined, { timeout: REQUEST_TIMEOUT_MS });
      expect(tools.some((t) => t.name === 'extra'), `extra not listed after toggle: ${show(tools.map((t) => t.name))}`);
      const back = await main.callTool('toggle', {});
      expect(textOf(back, 'toggle') === 'removed extra', `toggle answered ${show(textOf(back, 'toggle'))}`);
      await main.waitToolsChanged(count + 1, 'after the second toggle');
    });
  }

  // --- The catalog: a resource, a template, a prompt, completion. ---
  const opts = { timeout: REQUEST_TIMEOUT_MS };

  await check('resources/list and resources/templates/list name demo://readme and demo://echo/{text}', async () => {
    const { resources } = await main.client.listResources(undefined, opts);
    expect(resources?.some((r) => r.uri === 'demo://readme' && r.mimeType === 'text/markdown'),
      `resources/list gave ${show(resources)}`);
    const { resourceTemplates } = await main.client.listResourceTemplates(undefined, opts);
    expect(resourceTemplates?.some((t) => t.uriTemplate === 'demo://echo/{text}'),
      `resources/templates/list gave ${show(resourceTemplates)}`);
  });

  await check('resources/read demo://readme gives the readme as text/markdown', async () => {
    const { contents } = await main.client.readResource({ uri: 'demo://readme' }, opts);
    expect(Array.isArray(contents) && contents.length === 1, `contents ${show(contents)}`);
    expect(contents[0].uri === 'demo://readme' && contents[0].mimeType === 'text/markdown',
      `content ${show(contents[0])}`);
    expect(typeof contents[0].text === 'string' && contents[0].text.startsWith('# snodo-demo'),
      `text ${show(contents[0].text)}`);
  });

  await check('chart is an MCP App: its _meta.ui names ui://snodo-demo/chart, read as text/html;profile=mcp-app',
    async () => {
      const { tools } = await main.client.listTools(undefined, opts);
      const chart = tools.find((t) => t.name === 'chart');
      expect(chart?._meta?.ui?.resourceUri === 'ui://snodo-demo/chart', `chart ${show(chart)}`);
      const { contents } = await main.client.readResource({ uri: 'ui://snodo-demo/chart' }, opts);
      expect(contents?.length === 1 && contents[0].mimeType === 'text/html;profile=mcp-app' &&
        contents[0].text.startsWith('<!DOCTYPE html>') && contents[0]._meta?.ui?.prefersBorder === true,
      `contents ${show(contents)}`);
      const r = await main.callTool('chart', { values: [1, 2.5] });
      expect(textOf(r, 'chart') === '2 values, total 3.5' && r.structuredContent?.total === 3.5,
        `chart answered ${show(r)}`);
    });

  await check('resources/read of the template demo://echo/{text} gives the decoded text', async () => {
    const uri = 'demo://echo/h%C3%A9llo%20w%C3%B6rld';
    const { contents } = await main.client.readResource({ uri }, opts);
    expect(contents?.[0]?.uri === uri && contents[0].text === 'h\u00e9llo w\u00f6rld', `contents ${show(contents)}`);
  });

  await check(`resources/read of a resource that does not exist is error ${modern ? -32602 : -32002}`, async () => {
    let r;
    try {
      r = await main.client.readResource({ uri: 'demo://nothing' }, opts);
    } catch (e) {
      expect(adapter.isRpcError(e), `rejected with ${describeError(e)}, expected the SDK's JSON-RPC error class`);
      expect(e.code === (modern ? -32602 : -32002), `error code ${e.code} (${e.message})`);
      return `rejected with ${describeError(e)}`;
    }
    fail(`the read resolved: ${show(r)}`);
  });

  await check('prompts/list names greet; prompts/get greet {name: Ada} gives one user message', async () => {
    const { prompts } = await main.client.listPrompts(undefined, opts);
    expect(prompts?.some((p) => p.name === 'greet' && p.arguments?.some((a) => a.name === 'name' && a.required)),
      `prompts/list gave ${show(prompts)}`);
    const r = await main.client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } }, opts);
    expect(r?.messages?.length === 1, `messages ${show(r?.messages)}`);
    const m = r.messages[0];
    expect(m.role === 'user' && m.content?.type === 'text' && m.content.text === 'Please greet Ada warmly.',
      `message ${show(m)}`);
  });

  await check('completion/complete of greet\'s name "a" gives Ada and Alan', async () => {
    const r = await main.client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' } }, opts);
    expect(JSON.stringify(r?.completion?.values) === '["Ada","Alan"]', `completion ${show(r?.completion)}`);
  });

  await check(`${CONCURRENT_CALLS} concurrent sleeps of ${CONCURRENT_SLEEP_MS} ms finish in under ${CONCURRENT_BOUND_MS} ms`, async () => {
    const t0 = Date.now();
    const results = await Promise.all(Array.from({ length: CONCURRENT_CALLS },
      () => main.callTool('sleep', { ms: CONCURRENT_SLEEP_MS })));
    const ms = Date.now() - t0;
    results.forEach((r, i) => {
      expectSuccess(r, `sleep #${i}`);
      const text = textOf(r, `sleep #${i}`);
      expect(text === `slept ${CONCURRENT_SLEEP_MS}`, `sleep #${i} answered ${show(text)}`);
    });
    expect(ms >= CONCURRENT_SLEEP_MS - 5, `all answered after ${ms} ms, before ${CONCURRENT_SLEEP_MS} ms were up`);
    expect(ms < CONCURRENT_BOUND_MS,
      `took ${ms} ms (one by one would be ${CONCURRENT_CALLS * CONCURRENT_SLEEP_MS} ms): the calls did not run concurrently`);
    return `${ms} ms`;
  });

  if (adapter.extraChecks)
    await adapter.extraChecks(check, main);

  await checkNoSdkErrors(main);
  await check('main: closing stdin makes snodo-demo exit with status 0', async () => {
    const ms = await main.closeAndCheckExit('main session');
    return `exited ${ms} ms after close`;
  });

  // --- Version negotiation (initialize era): an older supported version and an unknown one. ---
  for (const [requested, expected] of modern ? [] : [['2025-06-18', '2025-06-18'], ['1999-01-01', LATEST_VERSION]]) {
    const s = open(`initialize ${requested}`, { requestVersion: requested });
    await connectOrBail(s, expected);
    await check(`${s.label}: echo works on the negotiated connection`, async () => {
      const r = await s.callTool('echo', { text: requested });
      expectSuccess(r, 'echo');
      expect(textOf(r, 'echo') === requested, 'echo text differs');
    });
    await checkNoSdkErrors(s);
    await check(`${s.label}: snodo-demo exits with status 0 on stdin EOF`, async () => {
      await s.closeAndCheckExit(s.label);
    });
  }

  // --- Cancellation and EOF draining. ---
  const c = open('cancel');
  await connectOrBail(c, expectedVersion);

  await check('cancel: aborting a sleep of 30 s rejects it at once and the demo keeps serving', async () => {
    const ac = new AbortController();
    const t0 = Date.now();
    const call = c.callTool('sleep', { ms: 30000 }, { signal: ac.signal });
    setTimeout(() => ac.abort(new Error('cancelled by the test')), 200);
    let settled;
    try {
      settled = await call;
    } catch (e) {
      settled = e;
    }
    const ms = Date.now() - t0;
    expect(settled instanceof Error, `the aborted call resolved: ${show(settled)}`);
    expect(ms < 5000, `the aborted call took ${ms} ms to settle`);
    expect(c.sentMethods.includes('notifications/cancelled'), 'the client sent no notifications/cancelled');
    if (!modern)
      await c.ping();
    const r = await c.callTool('sleep', { ms: 50 });
    expect(textOf(r, 'sleep') === 'slept 50', 'sleep after the cancellation failed');
    return `aborted after ${ms} ms`;
  });

  await check('cancel: stdin EOF with a sleep of 700 ms in flight: its answer is written, then exit status 0', async () => {
    const pending = c.callTool('sleep', { ms: 700 });
    pending.catch(() => { /* the SDK may drop it at close; the raw stream is checked */ });
    await new Promise((r) => setTimeout(r, 100));
    const before = c.rawStdout.length;
    const ms = await c.closeAndCheckExit('a sleep of 700 ms in flight; a cancelled sleep of 30 s earlier');
    const after = c.rawStdout.slice(before);
    expect(after.includes('slept 700'), `no answer for the sleep in flight was written before exit; ` +
      `stdout after EOF: ${show(after)}`);
    return `exited ${ms} ms after close`;
  });

  // Late answers to the cancelled request would show up as SDK errors.
  await checkNoSdkErrors(c);

  run.finish();
}

// A client that declared only URL-mode elicitation cannot answer the
// demo's form: ask must not put the form to it, and fails as a tool
// (initialize era) or with -32021 (2026-07-28). Through every adapter.
export async function runUrlOnlyElicitation(adapters) {
  const run = new Run('url-only elicitation clients');

  for (const adapter of adapters) {
    const { check, open, connectOrBail, checkNoSdkErrors, modern, expectedVersion } = harness(run, adapter);
    const u = open(`${adapter.sdk}, elicitation {url} only`, { elicitation: { url: {} } });

    await connectOrBail(u, expectedVersion);
    await check(`${u.label}: ask is not put to the client`, async () => {
      let r;
      try {
        r = await u.callTool('ask', {});
      } catch (e) {
        if (modern && adapter.isRpcError(e) && e.code === -32021)
          return `rejected with ${describeError(e)}`;
        fail(`ask was rejected with ${describeError(e)}, expected ` +
             (modern ? 'error -32021' : 'a tool result with isError: true'));
      }
      expect(u.elicitations.length === 0, `the client's handler was asked: ${show(u.elicitations)}`);
      expect(!modern, `ask resolved with ${show(r)}, expected error -32021`);
      expect(r?.isError === true, `ask resolved without isError: ${show(r)}`);
    });
    await checkNoSdkErrors(u);
    await check(`${u.label}: snodo-demo exits with status 0 on stdin EOF`, async () => {
      await u.closeAndCheckExit(u.label);
    });
  }

  run.finish();
}
