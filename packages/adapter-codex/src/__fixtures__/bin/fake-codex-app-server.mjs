#!/usr/bin/env node
// A stand-in for `codex app-server` (JSON-RPC lines on stdio) for the adapter's app-server client tests, shaped like Codex 0.169.0's
// recorded MCP approvals (app-server-mcp-approvals.jsonrpc-out.jsonl): it answers the handshake, then for `turn/start`
// announces two calls of one MCP tool (item/started), asks about them in the reverse order (mcpServer/elicitation/request
// marked mcp_tool_call), sends an elicitation that is not an approval and a legacy `execCommandApproval`, all in one
// write. Every line the client sends after the handshake (answers, turn/steer) is appended to the file named by the
// first argument; once the four requests are answered the turn completes. A second argument `die` makes it exit 3
// after turn/start instead; `no-thread` makes thread/start fail; `no-thread-id` answers it without a thread id.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const record = process.argv[2];
const mode = process.argv[3];
const threadId = 'thread-1';
const turnId = 'turn-1';
const send = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const item = (id, text) => ({ type: 'mcpToolCall', id, server: 'echo', tool: 'echo', status: 'inProgress', arguments: { text }, result: null, error: null });
const elicitation = (id, meta) => ({
  method: 'mcpServer/elicitation/request',
  id,
  params: { threadId, turnId, serverName: 'echo', mode: 'form', _meta: meta, message: 'Allow?', requestedSchema: { type: 'object', properties: {} } },
});
const approval = (id, text) => elicitation(id, { codex_approval_kind: 'mcp_tool_call', tool_name: 'echo', tool_params: { text } });

let answered = 0;
createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === 'initialize') send({ id: message.id, result: {} });
  else if (message.method === 'thread/start' && mode === 'no-thread') send({ id: message.id, error: { code: -32600, message: 'no rollout found' } });
  else if (message.method === 'thread/start' && mode === 'no-thread-id') send({ id: message.id, result: { thread: {}, model: 'gpt-5.5' } });
  else if (message.method === 'thread/start') send({ id: message.id, result: { thread: { id: threadId }, model: 'gpt-5.5' } });
  else if (message.method === 'turn/start') {
    send({ id: message.id, result: { turn: { id: turnId } } });
    if (mode === 'die') process.exit(3);
    send({ method: 'turn/started', params: { threadId, turn: { id: turnId } } });
    send({ method: 'item/started', params: { threadId, turnId, item: item('call_1', 'one') } });
    send({ method: 'item/started', params: { threadId, turnId, item: item('call_2', 'two') } });
    // One write, as Codex writes a burst: the requests arrive in one chunk.
    process.stdout.write(
      [approval(100, 'two'), approval(101, 'one'), elicitation(102, null), { method: 'execCommandApproval', id: 103, params: { command: ['true'] } }].map((frame) => `${JSON.stringify(frame)}\n`).join(''),
    );
  } else if (message.method !== 'initialized') {
    appendFileSync(record, `${line}\n`);
    if (message.method === 'turn/steer') send({ id: message.id, result: {} });
    else if (message.method === undefined && ++answered === 4) send({ method: 'turn/completed', params: { threadId, turn: { id: turnId, status: 'completed' } } });
  }
});
process.stdin.on('end', () => process.exit(0));
