#!/usr/bin/env node
// A minimal stdio MCP server (JSON-RPC lines, no SDK) with one tool, `echo`, for the permission suite: it appends
// each call's text to the file named by ECHO_LOG, so a test can tell whether a call ran. With ECHO_READ_ONLY=1 the tool
// is annotated read-only (`readOnlyHint`), which some CLIs take as leave to run it without asking.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const annotations = process.env.ECHO_READ_ONLY === '1' ? { annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } } : {};
const send = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  const { id, method, params } = message;
  if (id === undefined) return; // notifications
  if (method === 'initialize') {
    send({ jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'echo', version: '1.0.0' } } });
  } else if (method === 'tools/list') {
    send({ jsonrpc: '2.0', id, result: { tools: [{ name: 'echo', description: 'Echoes its text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }, ...annotations }] } });
  } else if (method === 'tools/call') {
    const text = String(params?.arguments?.text ?? '');
    if (process.env.ECHO_LOG) appendFileSync(process.env.ECHO_LOG, `${text}\n`);
    send({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `echo: ${text}` }] } });
  } else {
    send({ jsonrpc: '2.0', id, error: { code: -32601, message: `no method ${method}` } });
  }
});
