#!/usr/bin/env node
// An MCP client written from the specification alone (no SDK, no npm packages: Node's
// fetch, net and child_process), for tasks in both eras:
//   2025-11-25: docs/specification/2025-11-25/basic/utilities/tasks.mdx ("legacy" below);
//   2026-07-28: the tasks extension io.modelcontextprotocol/tasks, ext-tasks
//               specification/draft/tasks.md ("ext" below).
// Every assertion quotes the sentence of the specification it checks. Where the
// specification leaves a choice to the server, the check says whose reading it applies
// (docs/spec.md or docs/mcp.md of this repository).
//
// Connections (each one principal; the first is the owner of the tasks, the others must
// see none of them):
//   --http URL [--token NAME=TOKEN ...] [--anonymous]   Streamable HTTP, bearer tokens
//   --fd NAME=IN,OUT ...                                 newline-delimited JSON-RPC on
//                                                        inherited file descriptors
//   --spawn '["cmd","arg",...]'                          one stdio server the script starts
// --era legacy|modern|both (default both).
// Output: one line per check ("ok" or "FAIL" with the quote, what was sent, what was
// expected and what came back); exit 1 when any check failed, 2 when the client broke.

import { spawn } from 'node:child_process';
import net from 'node:net';

const LEGACY = '2025-11-25';
const MODERN = '2026-07-28';
const EXT = 'io.modelcontextprotocol/tasks';
const RELATED = 'io.modelcontextprotocol/related-task';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

// ---- checks ----------------------------------------------------------------------

let failures = 0;
let passes = 0;
const distinct = new Set(); // check ids: polling repeats some checks

class Abort extends Error {}

// check records one assertion; a failed one aborts the flow it is in (later steps
// depend on it) unless soft is set.
function check(ok, id, quote, detail, soft = false) {
  distinct.add(id);
  if (ok) {
    passes++;
    console.log(`ok   ${id}`);
    return true;
  }
  failures++;
  console.log(`FAIL ${id}\n     spec: ${quote}\n     ${detail}`);
  if (!soft) throw new Abort(id);
  return false;
}

const show = (v) => JSON.stringify(v)?.slice(0, 600);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const isTime = (s) => typeof s === 'string' && !Number.isNaN(Date.parse(s));

// ---- transports ------------------------------------------------------------------

// A connection sends JSON-RPC requests and returns {result} or {error}; requests the
// server sends to the client (elicitation/create inside tasks/result) go to onRequest.
class HttpConn {
  constructor(name, url, token) {
    this.name = name;
    this.url = url;
    this.token = token;
    this.nextId = 1;
    this.session = null;
    this.version = null;
    this.onRequest = null;
    this.anonymous = !token;
  }

  headers(extra) {
    const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...extra };
    if (this.token) h.Authorization = `Bearer ${this.token}`;
    if (this.session) h['Mcp-Session-Id'] = this.session;
    if (this.version) h['MCP-Protocol-Version'] = this.version;
    return h;
  }

  async post(body, extra = {}) {
    return fetch(this.url, { method: 'POST', headers: this.headers(extra), body: JSON.stringify(body) });
  }

  async request(method, params, extraHeaders = {}) {
    const id = this.nextId++;
    const res = await this.post({ jsonrpc: '2.0', id, method, params }, extraHeaders);
    const sid = res.headers.get('mcp-session-id');
    if (sid && method === 'initialize') this.session = sid;
    const type = res.headers.get('content-type') || '';
    if (type.startsWith('text/event-stream')) return this.readStream(res, id);
    const text = await res.text();
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return { httpStatus: res.status, error: { code: null, message: `HTTP ${res.status}: ${text.slice(0, 200)}` } };
    }
    return { httpStatus: res.status, result: msg.result, error: msg.error };
  }

  // readStream reads an SSE answer: server requests are answered (by POST, as the
  // transport asks), the message with our id ends it.
  async readStream(res, id) {
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return { error: { code: null, message: 'SSE stream ended without the answer' } };
      buf += dec.decode(value, { stream: true });
      let cut;
      while ((cut = buf.indexOf('\n\n')) >= 0) {
        const event = buf.slice(0, cut);
        buf = buf.slice(cut + 2);
        const data = event.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
        if (!data) continue;
        const msg = JSON.parse(data);
        if (msg.id === id && !msg.method) {
          reader.cancel().catch(() => {});
          return { result: msg.result, error: msg.error };
        }
        if (msg.method && msg.id !== undefined) await this.answerServer(msg);
      }
    }
  }

  async answerServer(msg) {
    const result = this.onRequest ? await this.onRequest(msg) : undefined;
    const body = result === undefined
      ? { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `client does not serve ${msg.method}` } }
      : { jsonrpc: '2.0', id: msg.id, result };
    const res = await this.post(body);
    this.answerStatus = res.status;
    await res.text();
  }

  async notify(method, params) {
    const res = await this.post({ jsonrpc: '2.0', method, params });
    await res.text();
  }

  // listen opens a request whose answer is a long SSE stream (subscriptions/listen): every
  // message it carries goes to messages until stop.
  // With no method it opens the session's GET stream.
  listen(method, params, extraHeaders = {}) {
    const ctl = new AbortController();
    const messages = [];
    const init = method
      ? { method: 'POST', headers: this.headers(extraHeaders), body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }) }
      : { method: 'GET', headers: { ...this.headers(extraHeaders), Accept: 'text/event-stream' } };
    const done = (async () => {
      try {
        const res = await fetch(this.url, { ...init, signal: ctl.signal });
        if (!method && !res.ok) {
          messages.push({ httpStatus: res.status });
          return;
        }
        if (!(res.headers.get('content-type') || '').startsWith('text/event-stream')) {
          messages.push(JSON.parse(await res.text()));
          return;
        }
        const reader = res.body.getReader();
        const dec = new TextDecoder();
        let buf = '';
        for (;;) {
          const { value, done: end } = await reader.read();
          if (end) return;
          buf += dec.decode(value, { stream: true });
          let cut;
          while ((cut = buf.indexOf('\n\n')) >= 0) {
            const data = buf.slice(0, cut).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
            buf = buf.slice(cut + 2);
            if (data) messages.push(JSON.parse(data));
          }
        }
      } catch (e) {
        if (e.name !== 'AbortError') messages.push({ broken: String(e) });
      }
    })();
    return { messages, stop: async () => { ctl.abort(); await done; } };
  }

  // raw sends text as the body and returns the HTTP status and the body, parsed when JSON.
  async raw(text) {
    const res = await fetch(this.url, { method: 'POST', headers: this.headers({}), body: text });
    const body = await res.text();
    let msg = null;
    try {
      msg = body ? JSON.parse(body) : null;
    } catch { /* the body may be omitted or not JSON */ }
    return { httpStatus: res.status, msg };
  }

  close() {}
}

// StdioConn speaks newline-delimited JSON-RPC over a readable and a writable stream.
class StdioConn {
  constructor(name, input, output, child) {
    this.name = name;
    this.out = output;
    this.child = child;
    this.nextId = 1;
    this.pending = new Map();
    this.onRequest = null;
    this.stderr = '';
    let buf = '';
    input.setEncoding('utf8');
    input.on('data', (chunk) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) this.receive(JSON.parse(line));
      }
    });
    input.on('close', () => {
      for (const p of this.pending.values()) p({ error: { code: null, message: `connection closed ${this.stderr}` } });
      this.pending.clear();
    });
  }

  receive(msg) {
    if (msg.method && msg.id !== undefined) {
      Promise.resolve(this.onRequest ? this.onRequest(msg) : undefined).then((result) => {
        this.write(result === undefined
          ? { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `client does not serve ${msg.method}` } }
          : { jsonrpc: '2.0', id: msg.id, result });
      });
      return;
    }
    if (msg.method) return; // a notification: nothing here relies on them ("MUST NOT rely")
    if (msg.id === null && this.orphan) {
      const o = this.orphan;
      this.orphan = null;
      o(msg);
      return;
    }
    const p = this.pending.get(msg.id);
    if (p) {
      this.pending.delete(msg.id);
      p({ result: msg.result, error: msg.error });
    }
  }

  write(msg) {
    this.out.write(JSON.stringify(msg) + '\n');
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  async notify(method, params) {
    this.write({ jsonrpc: '2.0', method, params });
  }

  // raw writes text as one line and returns the next answer with a null id (2 s at most).
  raw(text) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.orphan = null; resolve({ msg: null }); }, 2000);
      this.orphan = (msg) => { clearTimeout(timer); resolve({ msg }); };
      this.out.write(text + '\n');
    });
  }

  close() {
    this.out.end();
    if (this.child) this.child.kill();
  }
}

// ---- the 2025-11-25 era ------------------------------------------------------------

// Legacy wraps a connection in the 2025-11-25 session it opens with initialize.
class Legacy {
  constructor(conn) {
    this.conn = conn;
    this.name = conn.name;
  }

  async initialize({ elicitation = true } = {}) {
    const capabilities = { tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } } };
    if (elicitation) capabilities.elicitation = {};
    const r = await this.conn.request('initialize', {
      protocolVersion: LEGACY,
      capabilities,
      clientInfo: { name: 'storecheck-specclient', version: '1' },
    });
    if (this.conn instanceof HttpConn) this.conn.version = LEGACY;
    if (r.result) await this.conn.notify('notifications/initialized', {});
    return r;
  }

  call(method, params) {
    return this.conn.request(method, params);
  }
}

// errorLike returns the error of an answer with the task id replaced, for comparing an
// answer about another's task with one about a task never issued.
const errorLike = (r, id) => r.error && { code: r.error.code, message: String(r.error.message).split(id).join('<id>') };

async function pollLegacy(c, id, until, deadlineMs = 20000) {
  const seen = [];
  const end = Date.now() + deadlineMs;
  let prev = 'working';
  for (;;) {
    const r = await c.call('tasks/get', { taskId: id });
    check(r.result && r.result.taskId === id, `legacy.get.${c.name}`,
      'Requestors poll for task completion by sending tasks/get requests.',
      `tasks/get ${id}: want the task, got ${show(r)}`);
    const t = r.result;
    check('ttl' in t && (t.ttl === null || typeof t.ttl === 'number'), 'legacy.get.ttl',
      'Receivers MUST include the actual `ttl` duration (or `null` for unlimited) in `tasks/get` responses.',
      `got ${show(t)}`);
    check(isTime(t.createdAt) && isTime(t.lastUpdatedAt), 'legacy.get.timestamps',
      'Receivers MUST include a `createdAt` ... timestamp in all task responses ... Receivers MUST include a `lastUpdatedAt` ... timestamp',
      `got ${show(t)}`);
    check(!TERMINAL.has(prev) || t.status === prev, 'legacy.get.terminal-stays',
      'Tasks with a `completed`, `failed`, or `cancelled` status are in a terminal state and MUST NOT transition to any other status',
      `task ${id} was ${prev}, then ${t.status}`);
    prev = t.status;
    seen.push(t.status);
    if (until(t)) return t;
    check(Date.now() < end, 'legacy.get.progress', 'Requestors SHOULD continue polling until the task reaches a terminal status',
      `task ${id} still ${t.status} after ${deadlineMs} ms (seen ${seen.join(',')})`);
    const interval = typeof t.pollInterval === 'number' ? t.pollInterval : 200;
    // "Requestors SHOULD respect the pollInterval provided in responses"; capped so that
    // a server suggesting minutes cannot stall the run.
    await sleep(Math.min(Math.max(interval, 20), 1000));
  }
}

const terminal = (t) => TERMINAL.has(t.status);

// createLegacy makes a task with a task-augmented tools/call and checks the
// CreateTaskResult.
async function createLegacy(c, name, args, ttl = 60000) {
  const r = await c.call('tools/call', { name, arguments: args, task: { ttl } });
  const t = r.result?.task;
  check(t && typeof t.taskId === 'string' && t.taskId !== '', `legacy.create.${name}`,
    'Task-augmented requests: The server accepts the request and immediately returns a `CreateTaskResult` containing task data.',
    `tools/call ${name} with task: got ${show(r)}`);
  check(r.result.content === undefined, 'legacy.create.no-result',
    'The response does not include the actual operation result.', `got ${show(r.result)}`, true);
  check(t.status === 'working', 'legacy.create.working', 'Tasks MUST begin in the `working` status when created.',
    `got ${show(t)}`, true);
  return t.taskId;
}

async function legacyFlow(owner, others, log) {
  const a = new Legacy(owner);
  const init = await a.initialize();
  check(init.result?.protocolVersion === LEGACY, 'legacy.initialize',
    'Servers and clients that support task-augmented requests MUST declare a `tasks` capability during initialization.',
    `initialize ${LEGACY}: got ${show(init)}`);
  const tcap = init.result.capabilities?.tasks;
  check(tcap?.requests?.tools?.call !== undefined, 'legacy.capability.tools-call',
    'Servers and clients that support task-augmented requests MUST declare a `tasks` capability during initialization.',
    `capabilities: ${show(init.result.capabilities)}`);
  check(tcap.list !== undefined && tcap.cancel !== undefined, 'legacy.capability.list-cancel',
    '`capabilities.tasks.list` controls if the `tasks/list` operation is supported by the party.',
    `capabilities.tasks: ${show(tcap)}`);

  // tools/list, every page: the fixtures and their taskSupport.
  const tools = {};
  let cursor;
  do {
    const r = await a.call('tools/list', cursor ? { cursor } : {});
    check(Array.isArray(r.result?.tools), 'legacy.tools-list', 'tools declare support for tasks via `execution.taskSupport`', `got ${show(r)}`);
    for (const t of r.result.tools) tools[t.name] = t.execution?.taskSupport ?? 'forbidden';
    cursor = r.result.nextCursor;
  } while (cursor);
  for (const n of ['slow_compute', 'long_job', 'failing_job', 'protocol_error_job']) {
    check(tools[n] === 'optional' || tools[n] === 'required', `legacy.tool.${n}`,
      'If `execution.taskSupport` is `"optional"`, clients MAY invoke the tool as a task',
      `this client needs the reference server's tool ${n} as a task tool; tools/list: ${show(tools)}`);
  }
  const mine = [];

  // Create, poll to the end, read the result.
  const done = await createLegacy(a, 'slow_compute', { seconds: 0.3 });
  mine.push(done);
  const t1 = await pollLegacy(a, done, terminal);
  check(t1.status === 'completed', 'legacy.completed', 'completed: The request completed successfully and results are available.',
    `slow_compute's task ended ${show(t1)}`);
  const res1 = await a.call('tasks/result', { taskId: done });
  check(Array.isArray(res1.result?.content), 'legacy.result',
    'The result structure matches the original request type (e.g., `CallToolResult` for `tools/call`).', `tasks/result: ${show(res1)}`);
  check(res1.result._meta?.[RELATED]?.taskId === done, 'legacy.result.related-task',
    'The `tasks/result` operation MUST include this metadata in its response, as the result structure itself does not contain the task ID.',
    `tasks/result ${done}: _meta ${show(res1.result._meta)}`);

  // tasks/result of a working task blocks until the task is terminal.
  const slow = await createLegacy(a, 'slow_compute', { seconds: 1 });
  mine.push(slow);
  const res2 = await a.call('tasks/result', { taskId: slow });
  const after = await a.call('tasks/get', { taskId: slow });
  check(res2.result && TERMINAL.has(after.result?.status), 'legacy.result.blocks',
    'When a receiver receives a `tasks/result` request for a task in any other non-terminal status (`working` or `input_required`), it MUST block the response until the task reaches a terminal status.',
    `tasks/result answered ${show(res2)}; tasks/get right after: ${show(after)}`);

  // A tool result with isError ends the task failed; tasks/result answers that result.
  const plainRequired = await a.call('tools/call', { name: 'failing_job', arguments: {} });
  if (tools.failing_job === 'required') {
    check(plainRequired.error?.code === -32601, 'legacy.support.required',
      'If `execution.taskSupport` is `"required"`, clients MUST invoke the tool as a task. Servers MUST return a `-32601` (Method not found) error if a client does not attempt to do so.',
      `plain tools/call failing_job: got ${show(plainRequired)}`, true);
  }
  const failing = await createLegacy(a, 'failing_job', {});
  mine.push(failing);
  const t3 = await pollLegacy(a, failing, terminal);
  check(t3.status === 'failed', 'legacy.failed.isError',
    'failed: The associated request did not complete successfully. For tool calls specifically, this includes cases where the tool call result has `isError` set to true.',
    `failing_job's task ended ${show(t3)}`, true);
  const res3 = await a.call('tasks/result', { taskId: failing });
  check(res3.result?.isError === true, 'legacy.result.isError',
    'For tasks in a terminal status, receivers MUST return from `tasks/result` exactly what the underlying request would have returned',
    `tasks/result of failing_job: ${show(res3)}`, true);

  // A JSON-RPC error of the call is the JSON-RPC error of tasks/result.
  const plainErr = await a.call('tools/call', { name: 'protocol_error_job', arguments: { seconds: 0 } });
  check(plainErr.error && typeof plainErr.error.code === 'number', 'legacy.protocol-error.plain',
    'If the underlying request resulted in a JSON-RPC error, `tasks/result` MUST return that same JSON-RPC error.',
    `plain tools/call protocol_error_job (to learn the error): ${show(plainErr)}`);
  const perr = await createLegacy(a, 'protocol_error_job', { seconds: 0 });
  mine.push(perr);
  const t4 = await pollLegacy(a, perr, terminal);
  check(t4.status === 'failed', 'legacy.failed.rpc-error',
    'When the underlying request does not complete successfully, the task moves to the `failed` status. This includes JSON-RPC protocol errors during request execution',
    `protocol_error_job's task ended ${show(t4)}`, true);
  const res4 = await a.call('tasks/result', { taskId: perr });
  check(res4.error?.code === plainErr.error.code && res4.error?.message === plainErr.error.message, 'legacy.result.rpc-error',
    'If the underlying request resulted in a JSON-RPC error, `tasks/result` MUST return that same JSON-RPC error.',
    `plain call: ${show(plainErr.error)}; tasks/result: ${show(res4)}`, true);

  // A tool that forbids tasks.
  const forb = Object.keys(tools).find((n) => tools[n] === 'forbidden');
  if (forb) {
    const r = await a.call('tools/call', { name: forb, arguments: { name: 'x' }, task: {} });
    check(r.error?.code === -32601, 'legacy.support.forbidden',
      'If `execution.taskSupport` is not present or `"forbidden"`, clients MUST NOT attempt to invoke the tool as a task. Servers SHOULD return a `-32601` (Method not found) error if a client attempts to do so.',
      `tools/call ${forb} with task: ${show(r)}`, true);
  }

  // Cancel a working task; it stays cancelled; a second cancel and a cancel of a
  // completed task are refused.
  const long = await createLegacy(a, 'long_job', { seconds: 60 });
  mine.push(long);
  const c1 = await a.call('tasks/cancel', { taskId: long });
  check(c1.result?.taskId === long && c1.result.status === 'cancelled', 'legacy.cancel',
    'Upon receiving a valid cancellation request, receivers ... MUST transition the task to `cancelled` status before sending the response.',
    `tasks/cancel ${long}: ${show(c1)}`);
  await sleep(300);
  const g1 = await a.call('tasks/get', { taskId: long });
  check(g1.result?.status === 'cancelled', 'legacy.cancel.stays',
    'Once a task is cancelled, it MUST remain in `cancelled` status even if execution continues to completion or fails.',
    `tasks/get after cancel: ${show(g1)}`, true);
  const c2 = await a.call('tasks/cancel', { taskId: long });
  check(c2.error?.code === -32602, 'legacy.cancel.terminal',
    'Receivers MUST reject cancellation requests for tasks already in a terminal status (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params).',
    `second tasks/cancel of ${long}: ${show(c2)}`, true);
  const c3 = await a.call('tasks/cancel', { taskId: done });
  const g3 = await a.call('tasks/get', { taskId: done });
  check(c3.error?.code === -32602 && g3.result?.status === 'completed', 'legacy.cancel.completed',
    'Receivers MUST reject cancellation requests for tasks already in a terminal status (`completed`, `failed`, or `cancelled`) with error code `-32602` (Invalid params).',
    `tasks/cancel of completed ${done}: ${show(c3)}; then tasks/get: ${show(g3?.result?.status)}`, true);

  // Unknown ids and cursors.
  const ghost = 'never-issued-' + Math.random().toString(16).slice(2);
  const gGhost = await a.call('tasks/get', { taskId: ghost });
  check(gGhost.error?.code === -32602, 'legacy.get.unknown',
    'Invalid or nonexistent `taskId` in `tasks/get`, `tasks/result`, or `tasks/cancel`: `-32602` (Invalid params)',
    `tasks/get ${ghost}: ${show(gGhost)}`, true);
  const badCursor = await a.call('tasks/list', { cursor: 'not-a-cursor-this-server-issued' });
  check(badCursor.error?.code === -32602, 'legacy.list.bad-cursor',
    'Invalid or nonexistent cursor in `tasks/list`: `-32602` (Invalid params)', `tasks/list with a forged cursor: ${show(badCursor)}`, true);

  // tasks/list shows every task of the owner, each once.
  const listed = await listAll(a);
  const dup = listed.filter((id, i) => listed.indexOf(id) !== i);
  check(mine.every((id) => listed.includes(id)) && dup.length === 0, 'legacy.list.own',
    'If a task is retrievable via `tasks/get` for a requestor, it MUST be retrievable via `tasks/list` for that requestor.',
    `made ${show(mine)}; tasks/list (every page) gave ${show(listed)}${dup.length ? `; twice: ${show(dup)}` : ''}`, true);

  await badInput(a);

  // The others see nothing of the owner's tasks, and are answered as for an id never issued.
  for (const oc of others) {
    const b = new Legacy(oc);
    const bi = await b.initialize();
    check(bi.result?.protocolVersion === LEGACY, `legacy.initialize.${b.name}`, 'MUST declare a `tasks` capability during initialization.', `got ${show(bi)}`);
    const theirs = await listAll(b);
    const leaked = theirs.filter((id) => mine.includes(id));
    check(leaked.length === 0, `legacy.isolation.list.${b.name}`,
      "For `tasks/list` requests, receivers MUST ensure the returned task list includes only tasks associated with the requestor's authorization context.",
      `${b.name}'s tasks/list shows ${a.name}'s ${show(leaked)}`, true);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const r = await b.call(method, { taskId: done });
      const rGhost = await b.call(method, { taskId: ghost });
      check(r.error?.code === -32602, `legacy.isolation.${method}.${b.name}`,
        'If context-binding is available, receivers MUST reject `tasks/get`, `tasks/result`, and `tasks/cancel` requests for tasks that do not belong to the same authorization context as the requestor.',
        `${b.name}'s ${method} of ${a.name}'s task ${done}: want -32602 (Invalid or nonexistent taskId), got ${show(r)}`, true);
      // The spec asks a rejection; that it is the very answer a missing task gets (so
      // the answer does not tell that the task exists) is this repository's reading,
      // docs/spec.md V-DENY-1.
      check(show(errorLike(r, done)) === show(errorLike(rGhost, ghost)), `legacy.isolation.${method}.like-missing.${b.name}`,
        'reading V-DENY-1 (docs/spec.md): a task the caller may not see is answered exactly as a missing one',
        `${b.name}'s ${method}: another's task ${show(r.error)}, a task never issued ${show(rGhost.error)}`, true);
    }
    if (oc instanceof HttpConn && owner.session && !oc.anonymous) {
      // The owner's session id sent with another principal's token.
      const hijack = new HttpConn(oc.name, oc.url, oc.token);
      hijack.session = owner.session;
      hijack.version = LEGACY;
      const r = await hijack.request('tasks/list', {});
      check(r.httpStatus >= 400 && r.httpStatus < 500, `legacy.session.bound.${b.name}`,
        'MCP servers SHOULD bind session IDs to user-specific information. (security best practices; reading V-SESSION-1, docs/spec.md: such a request is HTTP 404)',
        `${b.name}'s tasks/list with ${a.name}'s Mcp-Session-Id: HTTP ${r.httpStatus} ${show(r.result ?? r.error)}`, true);
    }
    const still = await a.call('tasks/get', { taskId: done });
    check(still.result?.status === 'completed', `legacy.isolation.unchanged.${b.name}`,
      'receivers MUST reject ... `tasks/cancel` requests for tasks that do not belong to the same authorization context as the requestor.',
      `after ${b.name}'s tasks/cancel, ${a.name}'s task is ${show(still)}`, true);
    // A task made without credentials has no authorization context to be bound to
    // ("Context-binding is not practical for all applications ... receivers SHOULD
    // document this limitation clearly"; docs/mcp.md, Readings): only principals' own
    // tasks are checked the other way.
    if (oc.anonymous) continue;
    const own = await createLegacy(b, 'slow_compute', { seconds: 0 });
    const bList = await listAll(b);
    const aList = await listAll(a);
    check(bList.includes(own) && !aList.includes(own), `legacy.isolation.other-way.${b.name}`,
      "For `tasks/list` requests, receivers MUST ensure the returned task list includes only tasks associated with the requestor's authorization context.",
      `${b.name} made ${own}: ${b.name}'s list ${show(bList)}, ${a.name}'s list has it: ${aList.includes(own)}`, true);
  }

  if (owner instanceof HttpConn) await legacyNotifications(a, others, log);

  // Input while a task runs (2025-11-25): input_required, then the requests arrive on the
  // tasks/result stream and the client answers them.
  if (tools.confirm_delete === 'optional' || tools.confirm_delete === 'required') {
    await legacyInput(a, others, mine);
  } else {
    log('legacy: no input tool (confirm_delete) listed: the input_required flow is not offered, not exercised');
  }
}

// badInput sends what is not a valid request and checks the JSON-RPC 2.0 answers, then
// that the server still serves.
async function badInput(a) {
  const http = a.conn instanceof HttpConn;
  const broken = await a.conn.raw('{"jsonrpc": "2.0", "id": 1, "method": "ping"');
  if (http) {
    // transports.mdx says this of a response or notification it cannot accept ("If the
    // server cannot accept the input, it MUST return an HTTP error status code (e.g., 400
    // Bad Request). The HTTP response body MAY comprise a JSON-RPC error response that has
    // no id."); a body that is not JSON is read the same way (reading V-BAD-1,
    // docs/spec.md).
    check(broken.httpStatus >= 400 && broken.httpStatus < 500 && (broken.msg === null || broken.msg.error?.code === -32700), 'bad.parse',
      'If the server cannot accept the input, it MUST return an HTTP error status code (e.g., 400 Bad Request).',
      `malformed JSON: HTTP ${broken.httpStatus}, body ${show(broken.msg)}`, true);
  } else {
    check(broken.msg?.error?.code === -32700 && broken.msg.id === null, 'bad.parse',
      'JSON-RPC 2.0: -32700 Parse error: Invalid JSON was received by the server. ... If there was an error in detecting the id in the Request object (e.g. Parse error/Invalid Request), it MUST be Null.',
      `malformed JSON line: ${show(broken.msg)}`, true);
  }
  const unknown = await a.call('no/such/method', {});
  check(unknown.error?.code === -32601, 'bad.method', 'JSON-RPC 2.0: -32601 Method not found: The method does not exist / is not available.',
    `no/such/method: ${show(unknown)}`, true);
  const params = await a.call('tasks/get', { taskId: 7 });
  check(params.error?.code === -32602, 'bad.params', 'JSON-RPC 2.0: -32602 Invalid params: Invalid method parameter(s).',
    `tasks/get with a number for taskId: ${show(params)}`, true);
  const ping = await a.call('ping', {});
  check(ping.result !== undefined, 'bad.still-serving', 'The receiver MUST respond promptly with an empty response (ping)',
    `ping after the bad input: ${show(ping)}`, true);
}

// legacyNotifications: the owner's and the others' sessions keep their GET streams open
// while the owner's task runs to its end; what the others hear says nothing of it.
async function legacyNotifications(a, others, log) {
  const mineS = a.conn.listen();
  const theirs = others.map((oc) => ({ name: oc.name, sub: oc.listen() }));
  await sleep(100); // the streams are open before the task changes
  const id = await createLegacy(a, 'slow_compute', { seconds: 0.3 });
  await pollLegacy(a, id, terminal);
  await sleep(300);
  await mineS.stop();
  for (const t of theirs) await t.sub.stop();
  const notes = mineS.messages.filter((m) => m.method === 'notifications/tasks/status' && m.params?.taskId === id);
  if (notes.length === 0) {
    // "Requestors MUST NOT rely on receiving this notifications, as it is optional."
    log(`legacy: ${a.name} heard no notifications/tasks/status about its task: their isolation is not exercised`);
    return;
  }
  check(notes.every((m) => m.params.status && isTime(m.params.createdAt)), 'legacy.notify.task',
    'This notification includes the full task state.', `${a.name}'s notifications: ${show(notes)}`, true);
  for (const t of theirs) {
    const leaked = t.sub.messages.filter((m) => JSON.stringify(m).includes(id));
    check(leaked.length === 0, `legacy.notify.isolation.${t.name}`,
      'When an authorization context is provided, receivers MUST bind tasks to said context.',
      `${t.name}'s GET stream carried ${a.name}'s task ${id}: ${show(leaked)}`, true);
  }
}

async function legacyInput(a, others, mine) {
  const id = await createLegacy(a, 'confirm_delete', { item: 'report.txt' });
  mine.push(id);
  const t = await pollLegacy(a, id, (x) => x.status === 'input_required' || terminal(x));
  check(t.status === 'input_required', 'legacy.input.status',
    'When the task receiver has messages for the requestor that are necessary to complete the task, the receiver SHOULD move the task to the `input_required` status.',
    `confirm_delete's task: ${show(t)}`);
  for (const oc of others) {
    // Another principal's tasks/result must not deliver the owner's elicitation.
    let asked = false;
    oc.onRequest = async () => { asked = true; return { action: 'decline' }; };
    const r = await oc.request('tasks/result', { taskId: id });
    oc.onRequest = null;
    check(r.error?.code === -32602 && !asked, `legacy.input.isolation.${oc.name}`,
      'receivers MUST reject `tasks/get`, `tasks/result`, and `tasks/cancel` requests for tasks that do not belong to the same authorization context as the requestor.',
      `${oc.name}'s tasks/result of the owner's input_required task: ${show(r)}; elicitation delivered to it: ${asked}`, true);
  }
  const asked = [];
  a.conn.onRequest = async (msg) => {
    asked.push(msg);
    if (msg.method === 'elicitation/create') return { action: 'accept', content: { confirm: true } };
    return undefined;
  };
  const res = await a.call('tasks/result', { taskId: id });
  a.conn.onRequest = null;
  check(asked.length >= 1 && asked[0].method === 'elicitation/create', 'legacy.input.request',
    'When the requestor encounters the `input_required` status, it SHOULD preemptively call `tasks/result`.',
    `requests received on tasks/result: ${show(asked)}`);
  if (a.conn instanceof HttpConn) {
    check(a.conn.answerStatus === 202, 'legacy.input.accepted',
      'If the input is a JSON-RPC response or notification: If the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.',
      `the POST of the elicitation's response: HTTP ${a.conn.answerStatus}`, true);
  }
  check(asked.every((m) => m.params?._meta?.[RELATED]?.taskId === id), 'legacy.input.related-task',
    'The receiver MUST include the `io.modelcontextprotocol/related-task` metadata in the request to associate it with the task.',
    `requests: ${show(asked.map((m) => m.params?._meta))}`, true);
  check(Array.isArray(res.result?.content) && show(res.result.content).includes('Deleted'), 'legacy.input.result',
    'When the receiver receives all required input, the task SHOULD transition out of `input_required` status (typically back to `working`).',
    `tasks/result after answering accept: ${show(res)}`, true);
  const g = await a.call('tasks/get', { taskId: id });
  check(g.result?.status === 'completed', 'legacy.input.completed', 'completed: The request completed successfully and results are available.',
    `tasks/get: ${show(g)}`, true);

  // A client that declared no elicitation never gets an elicitation request: the call
  // is refused, or the task's tasks/result stream carries none (the owner's first
  // session cancels it after a while, which ends that stream).
  if (a.conn instanceof HttpConn) {
    const mute = new Legacy(new HttpConn(a.name, a.conn.url, a.conn.token));
    const mi = await mute.initialize({ elicitation: false });
    check(mi.result !== undefined, 'legacy.input.undeclared.initialize', 'initialize', `got ${show(mi)}`);
    const r = await mute.call('tools/call', { name: 'confirm_delete', arguments: { item: 'x' }, task: {} });
    const asked2 = [];
    if (r.result?.task?.taskId) {
      const tid = r.result.task.taskId;
      mine.push(tid);
      mute.conn.onRequest = async (msg) => { asked2.push(msg); return { action: 'decline' }; };
      const timer = setTimeout(() => { a.call('tasks/cancel', { taskId: tid }); }, 1000);
      await mute.call('tasks/result', { taskId: tid });
      clearTimeout(timer);
    }
    check(asked2.length === 0, 'legacy.input.undeclared',
      'Servers MUST NOT send elicitation requests with modes that are not supported by the client. (client/elicitation.mdx)',
      `a client without the elicitation capability: tools/call ${show(r)}; requests it received: ${show(asked2)}`, true);
  }
}

async function listAll(c) {
  const ids = [];
  let cursor;
  for (let pages = 0; pages < 1000; pages++) {
    const r = await c.call('tasks/list', cursor ? { cursor } : {});
    check(Array.isArray(r.result?.tasks), `legacy.list.${c.name}`, 'This operation supports pagination.', `tasks/list: ${show(r)}`);
    for (const t of r.result.tasks) ids.push(t.taskId);
    cursor = r.result.nextCursor;
    if (!cursor) return ids;
  }
  check(false, 'legacy.list.ends', 'Receivers MUST include a `nextCursor` in the response if more tasks are available.', 'over 1000 pages');
}

// ---- the 2026-07-28 tasks extension ---------------------------------------------------

// Modern sends stateless requests: every request carries its protocol version and
// capabilities in _meta; over HTTP, the routing headers.
class Modern {
  constructor(conn) {
    this.conn = conn;
    this.name = conn.name;
  }

  meta(params, ext = true) {
    const caps = ext ? { extensions: { [EXT]: {} } } : {};
    return { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': caps } };
  }

  // listen opens subscriptions/listen (HTTP only here).
  listen(taskIds) {
    this.conn.version = MODERN;
    return this.conn.listen('subscriptions/listen', this.meta({ notifications: { taskIds } }), { 'Mcp-Method': 'subscriptions/listen' });
  }

  call(method, params = {}, { ext = true } = {}) {
    const p = this.meta(params, ext);
    if (this.conn instanceof HttpConn) {
      this.conn.version = MODERN;
      const h = { 'Mcp-Method': method };
      // "the client MUST set the `Mcp-Name` header to the value of `params.taskId`"
      if (['tasks/get', 'tasks/update', 'tasks/cancel'].includes(method)) h['Mcp-Name'] = params.taskId;
      return this.conn.request(method, p, h);
    }
    return this.conn.request(method, p);
  }
}

async function pollModern(c, id, until, deadlineMs = 20000) {
  const end = Date.now() + deadlineMs;
  let prev = 'working';
  for (;;) {
    const r = await c.call('tasks/get', { taskId: id });
    check(r.result?.taskId === id, `ext.get.${c.name}`, 'Clients poll for task completion by sending `tasks/get` requests.',
      `tasks/get ${id}: ${show(r)}`);
    const t = r.result;
    check(t.resultType === 'complete', 'ext.get.resultType',
      'The `resultType` field MUST be set to `"complete"` on this object as it is the standard result shape for the `tasks/get` request.',
      `tasks/get: ${show(t)}`, true);
    check('ttlMs' in t && (t.ttlMs === null || Number.isInteger(t.ttlMs)) && isTime(t.createdAt) && isTime(t.lastUpdatedAt), 'ext.get.fields',
      'ttlMs: number | null; createdAt: string (ISO 8601); lastUpdatedAt: string (ISO 8601)', `tasks/get: ${show(t)}`, true);
    check(!TERMINAL.has(prev) || t.status === prev, 'ext.get.terminal-stays', 'terminal --> [*] (Task Status State Diagram)',
      `task ${id} was ${prev}, then ${t.status}`);
    prev = t.status;
    if (until(t)) return t;
    check(Date.now() < end, 'ext.get.progress', 'Clients SHOULD continue polling until the task reaches a terminal status',
      `task ${id} still ${t.status} after ${deadlineMs} ms`);
    const interval = typeof t.pollIntervalMs === 'number' ? t.pollIntervalMs : 200;
    await sleep(Math.min(Math.max(interval, 20), 1000));
  }
}

async function createModern(c, name, args) {
  const r = await c.call('tools/call', { name, arguments: args });
  check(r.result?.resultType === 'task' && typeof r.result.taskId === 'string', `ext.create.${name}`,
    'Servers MUST set `resultType` to `"task"` when returning a `CreateTaskResult` so that clients can distinguish it from a standard result.',
    `tools/call ${name} declaring ${EXT}: ${show(r)} (this client needs the reference server to answer this tool with a task)`);
  check(['working', 'input_required', ...TERMINAL].includes(r.result.status) && 'ttlMs' in r.result, 'ext.create.task',
    'type CreateTaskResult = Result & Task;', `got ${show(r.result)}`, true);
  // "A server MUST NOT return CreateTaskResult until the task is durably created — that
  // is, until a tasks/get for the returned taskId would resolve."
  const g = await c.call('tasks/get', { taskId: r.result.taskId });
  check(g.result?.taskId === r.result.taskId, 'ext.create.durable',
    'A server MUST NOT return `CreateTaskResult` until the task is durably created — that is, until a `tasks/get` for the returned `taskId` would resolve.',
    `tasks/get right after creation: ${show(g)}`, true);
  return r.result.taskId;
}

// modernListen: the owner and the others listen for the owner's task while it runs to its
// end; what the owner hears is the task as tasks/get shows it, the others hear nothing of
// it.
async function modernListen(a, others, log) {
  const id = await createModern(a, 'slow_compute', { seconds: 0.5 });
  const mine = a.listen([id]);
  const theirs = others.map((oc) => ({ name: oc.name, sub: new Modern(oc).listen([id]) }));
  await pollModern(a, id, terminal);
  await sleep(300);
  await mine.stop();
  for (const t of theirs) await t.sub.stop();
  const refused = mine.messages.find((m) => m.error);
  if (refused?.error?.code === -32601) {
    log('ext: subscriptions/listen is not offered (-32601): notifications not exercised');
    return;
  }
  check(mine.messages.some((m) => m.method === 'notifications/subscriptions/acknowledged'), 'ext.listen.ack',
    'In its acknowledgement notification, the server includes the list of task IDs it has agreed to send task status notifications for, if any',
    `${a.name}'s subscriptions/listen stream: ${show(mine.messages)}`, true);
  const notes = mine.messages.filter((m) => m.method === 'notifications/tasks' && m.params?.taskId === id);
  if (notes.length === 0) {
    // "Servers MAY push status updates": nothing heard is no fault, but then silence
    // toward the others proves nothing.
    log(`ext: ${a.name} heard no notifications/tasks about its task: their isolation is not exercised`);
    return;
  }
  const last = notes[notes.length - 1].params;
  check(last.status !== 'completed' || Array.isArray(last.result?.content), 'ext.listen.detailed',
    'Each notification carries a complete `DetailedTask` for the current status, identical to what `tasks/get` would have returned at that moment.',
    `${a.name}'s notifications/tasks: ${show(notes)}`, true);
  for (const t of theirs) {
    const leaked = t.sub.messages.filter((m) => m.method === 'notifications/tasks' && m.params?.taskId === id);
    check(leaked.length === 0, `ext.listen.isolation.${t.name}`,
      'Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task.',
      `${t.name} listening for ${a.name}'s task ${id} heard: ${show(leaked)}`, true);
  }
}

async function modernFlow(owner, others, log) {
  const a = new Modern(owner);
  const d = await a.call('server/discover', {});
  check(d.result?.capabilities?.extensions?.[EXT] !== undefined, 'ext.discover',
    'The client and server declare support for the tasks extension in their respective capabilities objects',
    `server/discover: ${show(d)}`);
  const tl = await a.call('tools/list', {});
  const tools = Object.fromEntries((tl.result?.tools || []).map((t) => [t.name, t]));
  check(['slow_compute', 'long_job', 'failing_job', 'protocol_error_job'].every((n) => tools[n]), 'ext.tools',
    'The following methods currently support task-augmented execution: `tools/call`',
    `this client needs the reference server's fixtures; tools/list: ${show(Object.keys(tools))}`);

  // A task, polled to the end; the result is in the task.
  const done = await createModern(a, 'slow_compute', { seconds: 0.3 });
  const t1 = await pollModern(a, done, terminal);
  check(t1.status === 'completed' && Array.isArray(t1.result?.content), 'ext.completed.result',
    'If the status is `completed`, the server MUST return a `Task` object with status `completed` and a `result` field containing the final result of the task.',
    `slow_compute's task ended ${show(t1)}`);

  // Without the extension: never a CreateTaskResult; the task methods are -32021.
  const plain = await a.call('tools/call', { name: 'slow_compute', arguments: { seconds: 0 } }, { ext: false });
  check(plain.result?.resultType !== 'task' && (plain.result || plain.error?.code === -32021), 'ext.undeclared.call',
    'A server MUST NOT return `CreateTaskResult` to a client that did not include the extension capability on its request, regardless of prior declarations.',
    `tools/call slow_compute without the extension: ${show(plain)}`, true);
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const r = await a.call(method, method === 'tasks/update' ? { taskId: done, inputResponses: {} } : { taskId: done }, { ext: false });
    check(r.error?.code === -32021, `ext.undeclared.${method}`,
      'Servers MUST return this error for non-declaring clients issuing `tasks/get`, `tasks/update`, and `tasks/cancel` requests.',
      `${method} without the extension: want -32021, got ${show(r)}`, true);
  }

  // Tool errors complete the task; JSON-RPC errors fail it.
  const failing = await createModern(a, 'failing_job', {});
  const t2 = await pollModern(a, failing, terminal);
  check(t2.status === 'completed' && t2.result?.isError === true, 'ext.isError.completed',
    'The `failed` status MUST NOT be used to represent non-JSON-RPC errors, such as a tool result that completed with `isError: true`.',
    `failing_job's task ended ${show(t2)}`, true);
  const plainErr = await a.call('tools/call', { name: 'protocol_error_job', arguments: { seconds: 0 } }, { ext: false });
  const perr = await createModern(a, 'protocol_error_job', { seconds: 0 });
  const t3 = await pollModern(a, perr, terminal);
  check(t3.status === 'failed' && typeof t3.error?.code === 'number', 'ext.failed.error',
    'The `tasks/get` response ... MUST include the `error` field with the JSON-RPC error.',
    `protocol_error_job's task ended ${show(t3)}`, true);
  if (plainErr.error) {
    check(t3.error?.code === plainErr.error.code, 'ext.failed.same-error',
      'If the underlying request resulted in a JSON-RPC error, the task uses `failed` status and the `error` field MUST contain that JSON-RPC error.',
      `plain call: ${show(plainErr.error)}; task's error: ${show(t3.error)}`, true);
  }

  // The removed methods.
  for (const method of ['tasks/list', 'tasks/result']) {
    const r = await a.call(method, {});
    check(r.error?.code === -32601, `ext.removed.${method}`,
      'The extension introduces three methods: `tasks/get`, `tasks/update`, and `tasks/cancel`',
      `${method}: want -32601 (Method not found), got ${show(r)}`, true);
  }

  // Cancel: an acknowledgement; a terminal task stays as it is.
  const long = await createModern(a, 'long_job', { seconds: 60 });
  const c1 = await a.call('tasks/cancel', { taskId: long });
  check(c1.result?.resultType === 'complete' && Object.keys(c1.result).every((k) => k === 'resultType' || k === '_meta'), 'ext.cancel.ack',
    'On success, the server MUST acknowledge the request with an empty result. ... The `resultType` field MUST be set to `"complete"` on `CancelTaskResult`',
    `tasks/cancel ${long}: ${show(c1)}`, true);
  const t4 = await pollModern(a, long, terminal, 10000);
  // The extension lets a server ignore a cancel ("Eventual transition to cancelled is not
  // guaranteed"); the reference server documents that a cancel stops long_job
  // (docs/mcp.md), and long_job cannot have finished on its own.
  check(t4.status === 'cancelled', 'ext.cancel.honoured',
    'docs/mcp.md: long_job "works `seconds` seconds (default 60) unless cancelled"',
    `long_job's task after tasks/cancel: ${show(t4)}`, true);
  const c2 = await a.call('tasks/cancel', { taskId: done });
  const g2 = await a.call('tasks/get', { taskId: done });
  check(c2.result?.resultType === 'complete' && g2.result?.status === 'completed', 'ext.cancel.terminal',
    'Cancellation processing is eventually consistent — ... MAY ultimately reach a terminal status other than `cancelled` if the work finished before cancellation could take effect.',
    `tasks/cancel of the completed ${done}: ${show(c2)}; then: ${show(g2.result?.status)}`, true);

  // Input while the task runs: input_required with inputRequests, answered by tasks/update.
  let input;
  if (tools.confirm_delete) {
    input = await createModern(a, 'confirm_delete', { item: 'report.txt' });
    const t5 = await pollModern(a, input, (x) => x.status === 'input_required' || terminal(x));
    const reqs = t5.inputRequests || {};
    const keys = Object.keys(reqs);
    check(t5.status === 'input_required' && keys.length > 0 && keys.every((k) => typeof reqs[k]?.method === 'string'), 'ext.input.requests',
      'If the status is `input_required`, the server MUST return a `Task` object with status `input_required` and an `inputRequests` field',
      `confirm_delete's task: ${show(t5)}`);
    // Another principal's answer must not reach the task.
    for (const oc of others) {
      const b = new Modern(oc);
      const u = await b.call('tasks/update', { taskId: input, inputResponses: Object.fromEntries(keys.map((k) => [k, { action: 'decline' }])) });
      const still = await a.call('tasks/get', { taskId: input });
      check(u.error?.code === -32602 && still.result?.status === 'input_required', `ext.input.isolation.${b.name}`,
        'Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task.',
        `${b.name}'s tasks/update of the owner's task: ${show(u)}; the task then: ${show(still.result?.status)}`, true);
    }
    const answers = Object.fromEntries(keys.map((k) => [k, { action: 'accept', content: { confirm: true } }]));
    const u = await a.call('tasks/update', { taskId: input, inputResponses: answers });
    check(u.result?.resultType === 'complete', 'ext.update.ack',
      'On success, the server MUST acknowledge the request with an empty result. ... The `resultType` field MUST be set to `"complete"` on `UpdateTaskResult`',
      `tasks/update: ${show(u)}`, true);
    const t6 = await pollModern(a, input, terminal);
    check(t6.status === 'completed' && show(t6.result).includes('Deleted'), 'ext.input.completed',
      'the client should provide responses via the `inputResponses` field in subsequent `tasks/update` requests.',
      `confirm_delete's task after accept: ${show(t6)}`, true);
  } else {
    log('ext: no input tool (confirm_delete) listed: the input_required flow is not exercised');
  }

  if (owner instanceof HttpConn) await modernListen(a, others, log);

  // The others: every task method on the owner's task is answered as for a missing one.
  const ghost = 'never-issued-' + Math.random().toString(16).slice(2);
  for (const oc of others) {
    const b = new Modern(oc);
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = (id) => (method === 'tasks/update' ? { taskId: id, inputResponses: {} } : { taskId: id });
      const r = await b.call(method, params(done));
      const rGhost = await b.call(method, params(ghost));
      check(r.error?.code === -32602, `ext.isolation.${method}.${b.name}`,
        'Invalid or nonexistent `taskId`: `-32602` (Invalid params) — Servers MUST return this error for `tasks/get`. Servers SHOULD return this error for `tasks/update` and `tasks/cancel`. / Servers MUST perform authentication and authorization checks on each task-related request',
        `${b.name}'s ${method} of ${a.name}'s task ${done}: ${show(r)}`, true);
      check(show(errorLike(r, done)) === show(errorLike(rGhost, ghost)), `ext.isolation.${method}.like-missing.${b.name}`,
        'reading V-DENY-1 (docs/spec.md): a task the caller may not see is answered exactly as a missing one',
        `${b.name}'s ${method}: another's task ${show(r.error)}, a task never issued ${show(rGhost.error)}`, true);
    }
    const bl = await b.call('tasks/cancel', { taskId: long });
    const still = await a.call('tasks/get', { taskId: done });
    check(bl.error && still.result?.status === 'completed', `ext.isolation.unchanged.${b.name}`,
      'Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task.',
      `after ${b.name}'s tasks/cancel, ${a.name}'s task is ${show(still.result?.status)}`, true);
    if (oc.anonymous) continue; // as in the 2025-11-25 flow: no context to bind to
    const own = await createModern(b, 'slow_compute', { seconds: 0 });
    const ag = await a.call('tasks/get', { taskId: own });
    check(ag.error?.code === -32602, `ext.isolation.other-way.${b.name}`,
      'Servers MUST perform authentication and authorization checks on each task-related request to ensure that the client has permission to access a task.',
      `${a.name}'s tasks/get of ${b.name}'s task: ${show(ag)}`, true);
  }
}

// ---- main ------------------------------------------------------------------------

function parseArgs(argv) {
  const o = { tokens: [], fds: [], era: 'both' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const v = () => argv[++i];
    if (a === '--http') o.http = v();
    else if (a === '--token') o.tokens.push(v());
    else if (a === '--anonymous') o.anonymous = true;
    else if (a === '--fd') o.fds.push(v());
    else if (a === '--spawn') o.spawn = JSON.parse(v());
    else if (a === '--era') o.era = v();
    else throw new Error(`unknown argument ${a}`);
  }
  return o;
}

// connections returns a fresh set of connections (the first owns the tasks).
function connections(o) {
  if (o.http) {
    const cs = o.tokens.map((nt) => {
      const [name, token] = nt.split('=');
      return new HttpConn(name, o.http, token);
    });
    if (o.anonymous || cs.length === 0) cs.push(new HttpConn('anonymous', o.http, null));
    return cs;
  }
  if (o.fds.length) {
    return o.fds.map((spec) => {
      const [name, fds] = spec.split('=');
      const [inFd, outFd] = fds.split(',').map(Number);
      const input = new net.Socket({ fd: inFd, readable: true, writable: false });
      const output = new net.Socket({ fd: outFd, readable: false, writable: true });
      return new StdioConn(name, input, output);
    });
  }
  if (o.spawn) {
    const child = spawn(o.spawn[0], o.spawn.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    const c = new StdioConn('stdio', child.stdout, child.stdin, child);
    child.stderr.on('data', (b) => { c.stderr += b; });
    return [c];
  }
  throw new Error('give --http URL, --fd NAME=IN,OUT or --spawn JSON');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const log = (s) => console.log(`note ${s}`);
  const flows = [];
  if (o.era === 'legacy' || o.era === 'both') flows.push(['2025-11-25', legacyFlow]);
  if (o.era === 'modern' || o.era === 'both') flows.push(['2026-07-28', modernFlow]);
  // Inherited descriptors can be opened once: a run over them is of one era (a stdio
  // connection that made a 2025-11-25 session speaks that era from then on).
  if (o.fds.length && flows.length > 1) throw new Error('--fd needs --era legacy or --era modern');
  for (const [era, flow] of flows) {
    console.log(`== ${era}`);
    const cs = connections(o);
    const [owner, ...others] = cs;
    if (others.length === 0) log(`${era}: one connection: the checks between principals are not exercised`);
    try {
      await flow(owner, others, log);
    } catch (e) {
      if (!(e instanceof Abort)) throw e;
      console.log(`note ${era}: stopped after ${e.message}`);
    }
    for (const c of cs) c.close();
  }
  console.log(`${failures ? 'FAIL' : 'PASS'}: ${passes} checks passed, ${failures} failed (${distinct.size} distinct checks)`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.log(`BROKEN: ${e.stack || e}`);
  process.exit(2);
});
