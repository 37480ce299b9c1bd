#!/usr/bin/env node
// Stands in for `codex exec --json` in bench/adapter-codex.bench.ts: prints a
// recorded Codex stream and stamps its last line (turn.completed) with the
// cross-process time it was written, `performance.timeOrigin + performance.now()`
// (ms since the Unix epoch), as `troupe_written_at_ms`.
//
// Usage: node timed-codex-cli.mjs --fixture FILE [--exit-delay MS | --hold] [codex args…]
//   --fixture FILE     the .stdout.jsonl to print
//   --exit-delay MS    exit this long after the last line (Codex: 14–49 ms; default 30)
//   --hold             never exit after the last line (a CLI that stays up, as the seed assumed)
// Other arguments (the adapter's codex flags and the prompt) are ignored. Like
// Codex, it reads stdin to its end before starting.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
let fixture;
let exitDelay = 30;
let hold = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--fixture') fixture = args[++i];
  else if (args[i] === '--exit-delay') exitDelay = Number(args[++i]);
  else if (args[i] === '--hold') hold = true;
}
if (!fixture) {
  process.stderr.write('timed-codex-cli: --fixture FILE is required\n');
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
