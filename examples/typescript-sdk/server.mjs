// The TypeScript SDK's own MCP server with tasks (@modelcontextprotocol/sdk, pinned in
// package-lock.json), written as its example simpleStreamableHttp.js is: McpServer over
// StreamableHTTPServerTransport, one transport per session, the SDK's InMemoryTaskStore,
// a task tool registered with server.experimental.tasks.registerToolTask. It is the
// subject of storecheck probe in TestProbeTypeScriptServer; nothing here is storecheck's
// own task logic. Usage: node server.mjs PORT (binds 127.0.0.1).
import { randomUUID } from 'node:crypto';
import * as z from 'zod/v4';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
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
