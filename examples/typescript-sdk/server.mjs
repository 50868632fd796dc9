// The TypeScript SDK's own MCP server with tasks (@modelcontextprotocol/sdk, pinned in
// package-lock.json), written as its example simpleStreamableHttp.js is: McpServer over
// StreamableHTTPServerTransport, one transport per session, the SDK's InMemoryTaskStore,
// task tools registered with server.experimental.tasks.registerToolTask. It is the
// subject of storecheck probe in TestProbeTypeScriptServer; nothing here is storecheck's
// own task logic: each tool does what the SDK's own examples do (simpleStreamableHttp.js,
// simpleTaskInteractive.js), with the calls the SDK offers a task's work. The tools are
// those the probe drives by default: slow_compute, failing_job (a result with isError),
// protocol_error_job (its run ends with a JSON-RPC error), confirm_delete (asks for a
// form elicitation while its task runs). Usage: node server.mjs PORT (binds 127.0.0.1).
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest, ElicitResultSchema, McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTaskStore, InMemoryTaskMessageQueue } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';

const taskStore = new InMemoryTaskStore();
const queue = new InMemoryTaskMessageQueue();

function newServer() {
  const server = new McpServer({ name: 'typescript-sdk-tasks', version: '1.0.0' }, {
    capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    taskStore,
    taskMessageQueue: queue,
  });
  server.experimental.tasks.registerToolTask('slow_compute', {
    description: 'Works `seconds` seconds, then answers.',
    inputSchema: { seconds: z.number().default(1) },
  }, {
    async createTask({ seconds }, { taskStore: store, taskRequestedTtl }) {
      const task = await store.createTask({ ttl: taskRequestedTtl });
      (async () => {
        await new Promise((r) => setTimeout(r, seconds * 1000));
        try {
          await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `Computed in ${seconds} seconds` }] });
        } catch { /* cancelled meanwhile */ }
      })();
      return { task };
    },
    async getTask(_args, { taskId, taskStore: store }) {
      return await store.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore: store }) {
      return await store.getTaskResult(taskId);
    },
  });
  // The SDK's examples end a task whose work went wrong with storeTaskResult(..., 'failed',
  // a result with isError): its task store keeps a Result, so a JSON-RPC error has no
  // other place to go.
  const failWith = (store, taskId, error) => store.storeTaskResult(taskId, 'failed', {
    content: [{ type: 'text', text: `Error: ${error}` }], isError: true });
  server.experimental.tasks.registerToolTask('failing_job', {
    description: 'Ends with a tool error (isError).',
    inputSchema: { seconds: z.number().default(0) },
  }, {
    async createTask({ seconds }, { taskStore: store, taskRequestedTtl }) {
      const task = await store.createTask({ ttl: taskRequestedTtl });
      (async () => {
        await new Promise((r) => setTimeout(r, seconds * 1000));
        try {
          await store.storeTaskResult(task.taskId, 'failed', { content: [{ type: 'text', text: 'The job failed: nothing to do' }], isError: true });
        } catch { /* cancelled meanwhile */ }
      })();
      return { task };
    },
    async getTask(_args, { taskId, taskStore: store }) {
      return await store.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore: store }) {
      return await store.getTaskResult(taskId);
    },
  });
  server.experimental.tasks.registerToolTask('protocol_error_job', {
    description: 'Its run ends with a JSON-RPC error.',
    inputSchema: { seconds: z.number().default(1) },
  }, {
    async createTask({ seconds }, { taskStore: store, taskRequestedTtl }) {
      const task = await store.createTask({ ttl: taskRequestedTtl });
      (async () => {
        await new Promise((r) => setTimeout(r, seconds * 1000));
        try {
          throw new McpError(ErrorCode.InternalError, 'protocol_error_job: internal error');
        } catch (error) {
          try { await failWith(store, task.taskId, error); } catch { /* cancelled meanwhile */ }
        }
      })();
      return { task };
    },
    async getTask(_args, { taskId, taskStore: store }) {
      return await store.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore: store }) {
      return await store.getTaskResult(taskId);
    },
  });
  // Input while the task runs: the request goes through the handler's sendRequest with
  // the task as relatedTask, the path on which the SDK itself moves the task to
  // input_required and queues the request for tasks/result; once answered, the task
  // goes back to working, as simpleTaskInteractive.js does.
  server.experimental.tasks.registerToolTask('confirm_delete', {
    description: 'Asks the client to confirm, then answers.',
    inputSchema: { item: z.string().default('') },
  }, {
    async createTask({ item }, extra) {
      const store = extra.taskStore;
      const task = await store.createTask({ ttl: extra.taskRequestedTtl });
      (async () => {
        try {
          const answer = await extra.sendRequest({ method: 'elicitation/create', params: {
            mode: 'form', message: `Delete ${JSON.stringify(item)}?`,
            requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
          } }, ElicitResultSchema, { relatedTask: { taskId: task.taskId } });
          await store.updateTaskStatus(task.taskId, 'working');
          const deleted = answer.action === 'accept' && answer.content?.confirm === true;
          await store.storeTaskResult(task.taskId, 'completed', { content: [{ type: 'text', text: `${deleted ? 'Deleted' : 'Kept'} ${JSON.stringify(item)}` }] });
        } catch (error) {
          try { await failWith(store, task.taskId, error); } catch { /* cancelled meanwhile */ }
        }
      })();
      return { task };
    },
    async getTask(_args, { taskId, taskStore: store }) {
      return await store.getTask(taskId);
    },
    async getTaskResult(_args, { taskId, taskStore: store }) {
      return await store.getTaskResult(taskId);
    },
  });
  return server;
}

const sessions = new Map();
const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const sid = req.headers['mcp-session-id'];
  let transport = sid ? sessions.get(sid) : undefined;
  if (!transport) {
    if (sid || !isInitializeRequest(req.body)) {
      res.status(sid ? 404 : 400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'no session' }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, transport),
    });
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});
const other = async (req, res) => {
  const transport = sessions.get(req.headers['mcp-session-id']);
  if (!transport) {
    res.status(404).send('no session');
    return;
  }
  await transport.handleRequest(req, res);
};
app.get('/mcp', other);
app.delete('/mcp', other);
const server = app.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
