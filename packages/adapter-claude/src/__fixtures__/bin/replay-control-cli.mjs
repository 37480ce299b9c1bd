#!/usr/bin/env node
// Stands in for Claude Code in the control protocol's tests: prints a recorded CLI stdout (REPLAY_FILE) line by line;
// after each `control_request` it waits for the `control_response` with that request id on stdin, and appends every
// answer it got to ANSWERS_FILE. Exits 0 after the last line once stdin is closed.
import { appendFileSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const lines = readFileSync(process.env.REPLAY_FILE, 'utf8').split('\n').filter(Boolean);
const waiting = new Map();
let stdinClosed;
const closed = new Promise((resolve) => (stdinClosed = resolve));
const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const message = JSON.parse(line);
  if (message.type !== 'control_response') return;
  appendFileSync(process.env.ANSWERS_FILE, `${line}\n`);
  waiting.get(message.response.request_id)?.();
});
input.on('close', () => stdinClosed());
for (const line of lines) {
  const message = JSON.parse(line);
  if (message.type === 'control_response') continue; // the recorded answer to the initialize request
  const answered = message.type === 'control_request' ? new Promise((resolve) => waiting.set(message.request_id, resolve)) : undefined;
  process.stdout.write(`${line}\n`);
  if (answered) await Promise.race([answered, closed]);
}
await closed;
