#!/usr/bin/env node
// A stdio MCP server (official SDK) with one tool, `read_env`, that answers the
// value of an environment variable: proves how a CLI passes a server's `env`.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'env-probe', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: 'read_env',
      description: 'The value of an environment variable of this server',
      inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const name = String(request.params.arguments?.name ?? '');
  return { content: [{ type: 'text', text: `${name}=${process.env[name] ?? '(unset)'}` }] };
});
await server.connect(new StdioServerTransport());
