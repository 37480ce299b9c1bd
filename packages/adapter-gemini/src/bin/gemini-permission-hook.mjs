#!/usr/bin/env node
// The Gemini CLI hook command of @troupe/adapter-gemini (settings.json `hooks`, registered for BeforeTool, AfterTool
// and AfterAgent with no matcher, so it runs for every tool call, reads included): reads the event the CLI writes on
// stdin, asks the Troupe host over the Unix socket named by GEMINI_CLI_TROUPE_HOOK_SOCKET, and prints the host's
// answer as the hook's JSON output ({"decision":"allow"|"deny","reason"?,"hookSpecificOutput"?:{"tool_input"}}).
//
// The variable is GEMINI_CLI_-prefixed because the CLI passes only such variables to hooks when it sanitizes their
// environment (always under GitHub Actions). A turn without it is not a Troupe permission turn (another adapter sharing
// the home): the script answers {} and changes nothing.
// With GEMINI_CLI_TROUPE_HOOK_TRACE set to a file, one line per event is appended to it:
//   {"event":…,"tool":…,"decision":…,"elapsed_ms":…,"uptime_ms":…}
// elapsed_ms: from the event read on stdin to the answer written (socket round trip and the host's decision);
// uptime_ms: the whole hook process so far (Node's start included).
// Fail closed: when the host cannot be asked or answers nonsense, a BeforeTool call is denied (a JSON deny; the script
// always exits 0 once it printed, so the command line's fallback adds nothing). The command line in settings.json
// (`node script || { echo DENY; exit 2; }`) also denies when this script cannot start or dies before printing.
import { appendFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { connectDecisionSocket } from '@troupe/core/util';

const DENY_UNASKED = 'The tool call was refused: the Troupe host could not be asked (fail closed).';

let event;
let readAt;
const print = (value) =>
  process.stdout.write(JSON.stringify(value), () => {
    const trace = process.env.GEMINI_CLI_TROUPE_HOOK_TRACE;
    if (trace && readAt !== undefined) {
      const round = (ms) => Math.round(ms * 1000) / 1000;
      const line = { event: event?.hook_event_name, tool: event?.tool_name, decision: value.decision, elapsed_ms: round(performance.now() - readAt), uptime_ms: round(performance.now()) };
      try {
        appendFileSync(trace, `${JSON.stringify(line)}\n`);
      } catch {
        // tracing is best effort
      }
    }
    process.exit(0);
  });

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

async function main() {
  const socketPath = process.env.GEMINI_CLI_TROUPE_HOOK_SOCKET;
  try {
    const text = await readStdin();
    readAt = performance.now();
    event = JSON.parse(text);
  } catch {
    event = undefined;
  }
  const blocking = event?.hook_event_name === 'BeforeTool';
  if (!socketPath) return print({});
  if (event === null || typeof event !== 'object') return print({ decision: 'deny', reason: DENY_UNASKED });
  const client = connectDecisionSocket(socketPath, "the host's hook socket");
  let answer;
  try {
    answer = await client.request(event);
  } catch (error) {
    process.stderr.write(`gemini-permission-hook: the host did not answer (${error?.message ?? error}); failing closed\n`);
    answer = undefined;
  } finally {
    client.close();
  }
  if (!blocking) return print(answer ?? {});
  if (answer?.decision === 'allow') return print(answer);
  if (answer?.decision === 'deny' && typeof answer.reason === 'string') return print(answer);
  return print({ decision: 'deny', reason: DENY_UNASKED });
}

main().catch((error) => {
  process.stderr.write(`gemini-permission-hook: ${error?.message ?? error}; failing closed\n`);
  print({ decision: 'deny', reason: DENY_UNASKED });
});
