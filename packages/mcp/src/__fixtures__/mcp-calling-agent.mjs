#!/usr/bin/env node
// A stand-in agent CLI that is an MCP client (official SDK): it reads its MCP
// servers from TROUPE_TEST_MCP_SERVERS (JSON, as a Troupe adapter would write
// them), reads `{"server":…,"tool":…,"arguments":…}` from stdin, calls that
// tool over Streamable HTTP and prints `{"type":"result","result":<text>,"is_error":bool}`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const servers = JSON.parse(process.env.TROUPE_TEST_MCP_SERVERS ?? '{}');
let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const request = JSON.parse(input);
const server = servers[request.server];
if (!server) {
  process.stdout.write(`${JSON.stringify({ type: 'result', result: `no server ${request.server}`, is_error: true })}\n`);
  process.exit(0);
}
const client = new Client({ name: 'fake-agent', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: server.headers ?? {} } }));
const { tools } = await client.listTools();
process.stdout.write(`${JSON.stringify({ type: 'tools', names: tools.map((tool) => tool.name) })}\n`);
const result = await client.callTool({ name: request.tool, arguments: request.arguments ?? {} }, undefined, { timeout: 60_000 });
const text = result.content.map((block) => block.text ?? '').join('');
process.stdout.write(`${JSON.stringify({ type: 'result', result: text, is_error: result.isError === true })}\n`);
await client.close();
