#!/usr/bin/env node
// Stands in for `claude -p --output-format stream-json --verbose …` in
// bench/adapter-claude.bench.ts: prints a recorded Claude Code stream and
// stamps its last line (the `result`) with the cross-process time it was
// written, `performance.timeOrigin + performance.now()` (ms since the Unix
// epoch), as `troupe_written_at_ms`. The field is appended, so `type` stays in
// the middle of the object as in the real CLI.
//
// Usage: node timed-claude-cli.mjs --fixture FILE [--exit-delay MS | --hold] [claude args…]
//   --fixture FILE     the .stdout.jsonl to print
//   --exit-delay MS    exit this long after the result (Claude Code 2.1.330: 32–79 ms; default 50)
//   --hold             never exit after the result (a CLI that stays up, as the seed assumed)
// Other arguments (the adapter's claude flags) are ignored. The message is
// read from stdin to its end before anything is printed, as the CLI does.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let fixture;
let exitDelay = 50;
let hold = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--fixture') fixture = args[++i];
  else if (args[i] === '--exit-delay') exitDelay = Number(args[++i]);
  else if (args[i] === '--hold') hold = true;
}
if (!fixture) {
  process.stderr.write('timed-claude-cli: --fixture FILE is required\n');
  process.exit(2);
}
const lines = readFileSync(fixture, 'utf8').split('\n').filter((line) => line.trim() !== '');
const result = lines.at(-1).trimEnd();
if (!result.endsWith('}') || !result.includes('"type":"result"')) {
  process.stderr.write('timed-claude-cli: the fixture must end with a result line\n');
  process.exit(2);
}
const resultOpen = result.slice(0, -1);

process.stdin.resume();
process.stdin.on('end', () => {
  const head = lines.slice(0, -1).map((line) => `${line}\n`).join('');
  process.stdout.write(head, () => {
    // Stamp as late as possible: the only work after it is the write itself.
    const stamped = `${resultOpen},"troupe_written_at_ms":${performance.timeOrigin + performance.now()}}\n`;
    process.stdout.write(stamped);
    if (hold) setInterval(() => {}, 1 << 30);
    else setTimeout(() => process.exit(0), exitDelay);
  });
});
