// Direct probes of the SDK's InMemoryTaskStore, without storecheck: each prints what the
// store did, so the expected verdicts pinned in verdicts_test.go (pinnedVerdicts) rest on observed facts.
//
//   node probes.mjs            all probes
//   node probes.mjs paging     only the paging timings (slow: up to 16k tasks)
import { InMemoryTaskStore } from "@modelcontextprotocol/sdk/experimental/tasks";
import { readFileSync } from "node:fs";

const sdkVersion = JSON.parse(
  readFileSync(new URL("./node_modules/@modelcontextprotocol/sdk/package.json", import.meta.url)),
).version;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const req = { method: "tools/call", params: { name: "probe" } };
const attempt = async (f) => {
  try {
    return { ok: await f() };
  } catch (e) {
    return { threw: e.message };
  }
};
const out = (name, observed) => console.log(JSON.stringify({ probe: name, ...observed }));

async function sessions() {
  const s = new InMemoryTaskStore();
  const t = await s.createTask({ ttl: null }, 1, req, "session-A");
  const open = await s.createTask({ ttl: null }, 2, req, undefined);
  out("sessionless-get-other-session", { got: (await s.getTask(t.taskId)) !== null });
  out("other-session-get", { got: (await s.getTask(t.taskId, "session-B")) !== null });
  out("sessionless-list", {
    ids: (await s.listTasks(undefined, undefined)).tasks.length,
    includesSessionA: (await s.listTasks()).tasks.some((x) => x.taskId === t.taskId),
  });
  out("other-session-sees-sessionless-task", {
    got: (await s.getTask(open.taskId, "session-B")) !== null,
  });
  out("other-session-cancel", {
    result: await attempt(() => s.updateTaskStatus(t.taskId, "cancelled", "by B", "session-B")),
  });
  out("sessionless-cancel-other-session", {
    result: await attempt(() => s.updateTaskStatus(t.taskId, "cancelled", "by nobody")),
    statusNow: (await s.getTask(t.taskId, "session-A")).status,
  });
  s.cleanup();
}

async function aliasing() {
  const s = new InMemoryTaskStore();
  const t = await s.createTask({ ttl: null }, 1, req, "A");
  t.status = "completed";
  t.statusMessage = "mutated by the caller";
  const after = await s.getTask(t.taskId, "A");
  out("createTask-returns-stored-object", { statusAfterCallerMutation: after.status, msg: after.statusMessage });
  const got = await s.getTask(t.taskId, "A");
  got.status = "failed";
  out("getTask-returns-copy", { status: (await s.getTask(t.taskId, "A")).status });

  const u = await s.createTask({ ttl: null }, 2, req, "A");
  const result = { content: [{ type: "text", text: "original" }] };
  await s.storeTaskResult(u.taskId, "completed", result, "A");
  result.content[0].text = "changed after storeTaskResult";
  const r1 = await s.getTaskResult(u.taskId, "A");
  out("storeTaskResult-keeps-caller-object", { text: r1.content[0].text });
  r1.content[0].text = "changed through getTaskResult";
  r1.extra = 1;
  const r2 = await s.getTaskResult(u.taskId, "A");
  out("getTaskResult-returns-stored-object", { text: r2.content[0].text, extra: r2.extra });
  s.cleanup();
}

async function cursorExpiry() {
  const s = new InMemoryTaskStore();
  const ids = [];
  for (let i = 0; i < 25; i++) {
    // the 10th task (the first page's cursor) expires after 100 ms, the others never
    const t = await s.createTask({ ttl: i === 9 ? 100 : null }, i, req, "A");
    ids.push(t.taskId);
  }
  const p1 = await s.listTasks(undefined, "A");
  out("page1", { n: p1.tasks.length, cursorIsTenthTask: p1.nextCursor === ids[9] });
  await sleep(200);
  out("page2-after-cursor-task-expired", { result: await attempt(() => s.listTasks(p1.nextCursor, "A")) });
  out("unknown-cursor", { result: await attempt(() => s.listTasks("no-such-task", "A")) });
  s.cleanup();
}

async function ttl() {
  const s = new InMemoryTaskStore();
  const w = await s.createTask({ ttl: 100 }, 1, req, "A");
  await sleep(200);
  out("ttl-deletes-working-task", { stillThere: (await s.getTask(w.taskId, "A")) !== null });

  const c = await s.createTask({ ttl: 300 }, 2, req, "A");
  await sleep(200);
  await s.storeTaskResult(c.taskId, "completed", { content: [] }, "A");
  await sleep(200); // 400 ms after creation, 200 ms after completion
  out("ttl-restarts-at-completion", {
    msSinceCreation: 400,
    ttl: 300,
    stillThere: (await s.getTask(c.taskId, "A")) !== null,
  });
  await sleep(200); // 600 ms after creation, 400 after completion
  out("ttl-restarted-expires-later", { stillThere: (await s.getTask(c.taskId, "A")) !== null });

  const z = await s.createTask({ ttl: 0 }, 3, req, "A");
  out("ttl-0-reported", { ttl: z.ttl });
  await sleep(100);
  out("ttl-0-expires", { stillThere: (await s.getTask(z.taskId, "A")) !== null });
  const n = await s.createTask({ ttl: null }, 4, req, "A");
  const d = await s.createTask({}, 5, req, "A");
  out("ttl-null-and-absent", { nullTtl: n.ttl, absentTtl: d.ttl });
  s.cleanup();
}

async function statuses() {
  const s = new InMemoryTaskStore();
  const t = await s.createTask({ ttl: null }, 1, req, "A");
  out("unknown-status-update", {
    result: await attempt(() => s.updateTaskStatus(t.taskId, "bogus", undefined, "A")),
    statusNow: (await s.getTask(t.taskId, "A")).status,
  });
  const u = await s.createTask({ ttl: null }, 2, req, "A");
  out("unknown-status-storeTaskResult", {
    result: await attempt(() => s.storeTaskResult(u.taskId, "bogus", { content: [] }, "A")),
    statusNow: (await s.getTask(u.taskId, "A")).status,
  });
  const w = await s.createTask({ ttl: null }, 3, req, "A");
  out("storeTaskResult-working", {
    result: await attempt(() => s.storeTaskResult(w.taskId, "working", { content: [] }, "A")),
    statusNow: (await s.getTask(w.taskId, "A")).status,
    resultReadable: await attempt(() => s.getTaskResult(w.taskId, "A")),
  });
  const c = await s.createTask({ ttl: null }, 4, req, "A");
  await s.updateTaskStatus(c.taskId, "completed", undefined, "A");
  out("completed-through-updateTaskStatus", {
    status: (await s.getTask(c.taskId, "A")).status,
    getTaskResult: await attempt(() => s.getTaskResult(c.taskId, "A")),
    storeAfterwards: await attempt(() => s.storeTaskResult(c.taskId, "completed", { content: [] }, "A")),
  });
  const f = await s.createTask({ ttl: null }, 5, req, "A");
  await s.storeTaskResult(f.taskId, "completed", { content: [] }, "A");
  out("terminal-refuses", {
    update: await attempt(() => s.updateTaskStatus(f.taskId, "working", undefined, "A")),
    store: await attempt(() => s.storeTaskResult(f.taskId, "failed", { content: [] }, "A")),
  });
  const r = await s.createTask({ ttl: null }, 6, req, "A");
  const race = await Promise.allSettled([
    s.storeTaskResult(r.taskId, "completed", { content: [] }, "A"),
    s.updateTaskStatus(r.taskId, "cancelled", undefined, "A"),
    s.storeTaskResult(r.taskId, "failed", { content: [] }, "A"),
  ]);
  out("finality-race", { outcomes: race.map((x) => x.status), final: (await s.getTask(r.taskId, "A")).status });
  const ids = new Set();
  const made = await Promise.all(Array.from({ length: 1000 }, (_, i) => s.createTask({ ttl: null }, i, req, "A")));
  for (const m of made) ids.add(m.taskId);
  out("concurrent-create-ids", { created: made.length, distinct: ids.size, sample: made[0].taskId, createdAt: made[0].createdAt });
  s.cleanup();
}

async function paging() {
  for (const n of [1000, 2000, 4000, 8000, 16000]) {
    const s = new InMemoryTaskStore();
    for (let i = 0; i < n; i++) await s.createTask({ ttl: null }, i, req, "A");
    const start = process.hrtime.bigint();
    let cursor, seen = 0, pages = 0;
    do {
      const p = await s.listTasks(cursor, "A");
      seen += p.tasks.length;
      pages++;
      cursor = p.nextCursor;
    } while (cursor);
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    out("paging", { n, seen, pages, ms: Math.round(ms) });
    s.cleanup();
  }
}

console.log(JSON.stringify({ sdk: sdkVersion, node: process.version }));
if (process.argv[2] === "paging") {
  await paging();
} else {
  await sessions();
  await aliasing();
  await cursorExpiry();
  await ttl();
  await statuses();
}
