#!/usr/bin/env node
// A misbehaving ACP agent for the client's tests: it answers initialize and session/new, and on session/prompt
// writes the raw lines of its script (anything: garbage, malformed requests, real ones), records every message it
// receives, and once it has as many answers (responses to its own requests, or errors with id null) as the script
// expects (or the answer to its request `"until": ID`), ends the turn (`"then": "result"`) or exits with a code
// (`"then": {"exit": N}`).
// Usage: node scripted-acp-agent.mjs SCRIPT.json   where SCRIPT.json is
//   {"lines": ["…raw line…", …], "answers": N, "until": ID, "then": "result" | {"exit": N}, "record": "FILE"}
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const script = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
let promptId;
let answers = 0;

function end() {
  if (script.then === 'result') write({ jsonrpc: '2.0', id: promptId, result: { stopReason: 'end_turn' } });
  else process.exit(script.then.exit);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  appendFileSync(script.record, `${line}\n`);
  if (message.method === 'initialize') write({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: 1, agentCapabilities: {} } });
  else if (message.method === 'session/new') write({ jsonrpc: '2.0', id: message.id, result: { sessionId: 'scripted-1' } });
  else if (message.method === 'session/prompt') {
    promptId = message.id;
    process.stdout.write(script.lines.map((text) => `${text}\n`).join(''));
    if (script.answers === 0) end();
  } else if (message.method === undefined && (++answers === script.answers || (script.until !== undefined && message.id === script.until))) end();
});
process.stdin.on('end', () => process.exit(0));
