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
  // The SDK's examples end a task whose work went wrong with storeTaskResult(..., 'failed',
  // a result with isError): its task store keeps a Result, so a JSON-RPC error has no
  // other place to go.
  const failWith = (error) => ['failed', { content: [{ type: 'text', text: `Error: ${error}` }], isError: true }];
  // Each tool is a task tool as the SDK's examples write one: createTask makes the task
  // and answers at once while run works in the background and gives the task's final
  // status and result (a throw ends it with failWith); getTask and getTaskResult read the
  // store. A store that refuses the result means the task was cancelled meanwhile.
  const taskTool = (name, description, inputSchema, run) => server.experimental.tasks.registerToolTask(name, {
    description, inputSchema,
  }, {
    async createTask(args, extra) {
      const store = extra.taskStore;
      const task = await store.createTask({ ttl: extra.taskRequestedTtl });
      (async () => {
        let end;
        try {
          end = await run(args, extra, store, task.taskId);
        } catch (error) {
          end = failWith(error);
        }
        try {
          await store.storeTaskResult(task.taskId, ...end);
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
  const sleep = (seconds) => new Promise((r) => setTimeout(r, seconds * 1000));
  taskTool('slow_compute', 'Works `seconds` seconds, then answers.', { seconds: z.number().default(1) }, async ({ seconds }) => {
    await sleep(seconds);
    return ['completed', { content: [{ type: 'text', text: `Computed in ${seconds} seconds` }] }];
  });
  taskTool('failing_job', 'Ends with a tool error (isError).', { seconds: z.number().default(0) }, async ({ seconds }) => {
    await sleep(seconds);
    return ['failed', { content: [{ type: 'text', text: 'The job failed: nothing to do' }], isError: true }];
  });
  taskTool('protocol_error_job', 'Its run ends with a JSON-RPC error.', { seconds: z.number().default(1) }, async ({ seconds }) => {
    await sleep(seconds);
    throw new McpError(ErrorCode.InternalError, 'protocol_error_job: internal error');
  });
  // Input while the task runs: the request goes through the handler's sendRequest with
  // the task as relatedTask, the path on which the SDK itself moves the task to
  // input_required and queues the request for tasks/result; once answered, the task
  // goes back to working, as simpleTaskInteractive.js does.
  taskTool('confirm_delete', 'Asks the client to confirm, then answers.', { item: z.string().default('') }, async ({ item }, extra, store, taskId) => {
    const answer = await extra.sendRequest({ method: 'elicitation/create', params: {
      mode: 'form', message: `Delete ${JSON.stringify(item)}?`,
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
    } }, ElicitResultSchema, { relatedTask: { taskId } });
    await store.updateTaskStatus(taskId, 'working');
    const deleted = answer.action === 'accept' && answer.content?.confirm === true;
    return ['completed', { content: [{ type: 'text', text: `${deleted ? 'Deleted' : 'Kept'} ${JSON.stringify(item)}` }] }];
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
