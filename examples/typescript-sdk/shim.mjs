// storecheck wire shim (docs/wire.md, protocol 3, the SDK task-store profile) around the
// TypeScript MCP SDK's real InMemoryTaskStore.
//
//   storecheck run --exec "node examples/typescript-sdk/shim.mjs"
//
// The shim only maps: each sdk.* op is one call of the store's TaskStore method, with the
// store's answer translated to the wire's shape. It never checks, repairs or retries
// anything the store does. What it has to decide on its own is written down here:
//   - The store throws plain Errors: the shim classifies them by message into wire error
//     codes (errorCode below); a message it does not know is `internal`, with the text.
//   - getTask's null is `not_found`.
//   - Tasks and pages go out as the store returned them (the wire's SDK task is the MCP
//     Task object): no field is renamed, converted or dropped.
//   - Declared policy (hello): the store's own documentation says "Calls that pass no
//     sessionId are not restricted", so the shim declares sessionless access
//     "unrestricted"; ttl counts from creation (MCP 2025-11-25, and the TaskStore
//     interface's "cleanup ... after TTL expires, regardless of task status").
//   - sdk.mutate: the shim holds the objects the store returned or was given, as a caller
//     in the same process would, and mutates them when asked (aliasing is invisible
//     through JSON otherwise).
// Numbers stay exact (docs/wire.md, pitfalls) through lossless-json: a number that is not a
// safe integer is kept as its source text and written back verbatim. (Node 20's
// JSON.rawJSON under --harmony-json-parse-with-source corrupts values on a line that
// holds characters beyond Latin-1, so the shim does not use it.)
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { LosslessNumber, parse as parseLossless, stringify as stringifyLossless } from "lossless-json";
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
const sdkVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url)),
).version;

const PROTOCOL = 3;

// Safe integers (ids, ttl, pollInterval) become numbers; every other number stays exact.
const parseExact = (line) =>
  parseLossless(line, null, (text) => {
    const n = Number(text);
    return Number.isSafeInteger(n) && String(n) === text ? n : new LosslessNumber(text);
  });

class WireError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// errorCode classifies an Error the store threw (it has no codes: only messages).
function errorCode(e) {
  if (e instanceof WireError) return e.code;
  const m = String(e?.message ?? e);
  if (/not found/i.test(m)) return "not_found";
  if (/has no result stored/i.test(m)) return "no_result";
  if (/terminal status/i.test(m)) return "terminal";
  if (/invalid cursor/i.test(m)) return "invalid";
  return "internal";
}

let store = new InMemoryTaskStore();
// Objects a caller in the store's process would hold (sdk.mutate), per task id.
let held = new Map();

function hold(taskId, what, obj) {
  let h = held.get(taskId);
  if (!h) held.set(taskId, (h = {}));
  h[what] = obj;
}

function str(args, key) {
  const v = args[key];
  if (typeof v !== "string") throw new WireError("invalid", `${key} must be a string`);
  return v;
}

function optStr(args, key) {
  const v = args[key];
  if (v === null || v === undefined) return undefined;
  if (typeof v !== "string") throw new WireError("invalid", `${key} must be a string or null`);
  return v;
}

let requestCounter = 0;

const ops = {
  hello(args) {
    const offered = args.protocol;
    if (!Number.isInteger(offered) || offered < PROTOCOL) {
      throw new WireError("unsupported", `this shim serves the SDK profile only, which needs protocol ${PROTOCOL}; offered ${offered}`);
    }
    return {
      protocol: PROTOCOL,
      name: `typescript-sdk InMemoryTaskStore ${sdkVersion}`,
      eras: [],
      profiles: ["sdk"],
      sdk: { sessionless: "unrestricted", ttl_from: "creation", delete: false, cleanup: false, wait: false, mutate: true },
      clock: false,
    };
  },
  reset() {
    store.cleanup(); // the store's own: clears its ttl timers and its tasks
    store = new InMemoryTaskStore();
    held = new Map();
    return null;
  },
  clock() {
    throw new WireError("unsupported", "InMemoryTaskStore reads the system clock and node's timers");
  },
  async "sdk.create"(args) {
    const p = args.params ?? {};
    if (typeof p !== "object") throw new WireError("invalid", "params must be an object");
    // CreateTaskOptions: the keys the battery sent, as sent (an absent ttl stays absent).
    const options = {};
    if ("ttl" in p) options.ttl = p.ttl;
    if ("pollInterval" in p) options.pollInterval = p.pollInterval;
    const requestId = p.requestId ?? ++requestCounter;
    const request = p.request ?? { method: "tools/call", params: { name: "storecheck" } };
    const t = await store.createTask(options, requestId, request, optStr(args, "session"));
    hold(t?.taskId, "created_task", t);
    return t;
  },
  async "sdk.get"(args) {
    const id = str(args, "task_id");
    const t = await store.getTask(id, optStr(args, "session"));
    if (t === null || t === undefined) throw new WireError("not_found", `Task with ID ${id} not found`);
    return t;
  },
  async "sdk.store_result"(args) {
    const id = str(args, "task_id");
    const result = args.result;
    await store.storeTaskResult(id, str(args, "status"), result, optStr(args, "session"));
    hold(id, "stored_result", result);
    return null;
  },
  async "sdk.get_result"(args) {
    const id = str(args, "task_id");
    const r = await store.getTaskResult(id, optStr(args, "session"));
    hold(id, "returned_result", r);
    return r;
  },
  async "sdk.update_status"(args) {
    const id = str(args, "task_id");
    await store.updateTaskStatus(id, str(args, "status"), optStr(args, "status_message"), optStr(args, "session"));
    return null;
  },
  async "sdk.list"(args) {
    return await store.listTasks(optStr(args, "cursor"), optStr(args, "session"));
  },
  "sdk.mutate"(args) {
    const id = str(args, "task_id");
    const what = str(args, "what");
    if (!["created_task", "stored_result", "returned_result"].includes(what)) {
      throw new WireError("invalid", `what must be created_task, stored_result or returned_result, got ${JSON.stringify(what)}`);
    }
    const obj = held.get(id)?.[what];
    if (obj === undefined || obj === null || typeof obj !== "object") {
      throw new WireError("not_found", `the shim holds no ${what} of task ${id}`);
    }
    if (what === "created_task") {
      obj.status = "failed";
      obj.statusMessage = "mutated by the caller";
    } else {
      obj.storecheck_mutated = true;
    }
    return null;
  },
};

function answer(id, ok, err) {
  const line = err
    ? JSON.stringify({ id, error: { code: errorCode(err), message: String(err?.message ?? err) } })
    : stringifyLossless({ id, ok: ok === undefined ? null : ok });
  process.stdout.write(line + "\n");
}

async function handle(line) {
  let req;
  try {
    req = parseExact(line);
  } catch (e) {
    console.error("shim: cannot answer a line that is not JSON:", line.slice(0, 200));
    return;
  }
  if (req === null || typeof req !== "object" || !Number.isSafeInteger(req.id)) {
    console.error("shim: cannot answer a request without an integer id:", line.slice(0, 200));
    return;
  }
  const f = ops[req.op];
  if (!f) {
    answer(req.id, null, new WireError("unsupported", `unknown op ${JSON.stringify(req.op)}`));
    return;
  }
  const args = req.args && typeof req.args === "object" ? req.args : {};
  try {
    answer(req.id, await f(args), null);
  } catch (e) {
    answer(req.id, null, e);
  }
}

// One request at a time, in the order read: each answer is written before the next request
// starts, so an sdk.mutate never lands before the answer it follows is written. Nothing
// is lost by it: no InMemoryTaskStore method awaits inside, so every call is atomic in
// the store's own process too (docs/wire.md allows a serial child).
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.length > 0) await handle(line);
}
store.cleanup(); // its ttl timers would keep node alive after stdin ends
