#!/usr/bin/env node
// Stands in for `gemini -o stream-json … -p <message>` in bench/adapter-gemini.bench.ts:
// prints a recorded Gemini CLI stream and stamps its last line (the `result`
// event) with the cross-process time it was written,
// `performance.timeOrigin + performance.now()` (ms since the Unix epoch), as
// `troupe_written_at_ms`.
//
// Usage: node timed-gemini-cli.mjs --fixture FILE [--exit-delay MS | --hold] [gemini args…]
//   --fixture FILE     the .stdout.jsonl to print
//   --exit-delay MS    exit this long after the last line (Gemini CLI 0.61.0: 23–162 ms; default 50)
//   --hold             never exit after the last line (a CLI that stays up, as the seed assumed)
// Other arguments (the adapter's gemini flags, `-p` and the message) are ignored.
// It waits for stdin to close first (the core closes it right after spawning).
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
  process.stderr.write('timed-gemini-cli: --fixture FILE is required\n');
  process.exit(2);
}
const lines = readFileSync(fixture, 'utf8').split('\n').filter((line) => line.trim() !== '');

process.stdin.resume();
process.stdin.on('end', () => {
  const head = lines.slice(0, -1).map((line) => `${line}\n`).join('');
  process.stdout.write(head, () => {
    const last = JSON.parse(lines.at(-1));
    last.troupe_written_at_ms = performance.timeOrigin + performance.now();
    process.stdout.write(`${JSON.stringify(last)}\n`);
    if (hold) setInterval(() => {}, 1 << 30);
    else setTimeout(() => process.exit(0), exitDelay);
  });
});
