#!/usr/bin/env node
// The Gemini CLI hook command of @troupe/adapter-gemini (settings.json `hooks`, registered for BeforeTool, AfterTool
// and AfterAgent with no matcher, so it runs for every tool call, reads included): reads the event the CLI writes on
// stdin, asks the Troupe host over the Unix socket named by GEMINI_CLI_TROUPE_HOOK_SOCKET, and prints the host's
// answer as the hook's JSON output ({"decision":"allow"|"deny","reason"?,"hookSpecificOutput"?:{"tool_input"}}).
//
// Gemini CLI starts this script once per tool call, so it is kept cheap to start: it imports only node:net (node:fs
// only when tracing) and speaks the host's decision socket protocol itself (listenDecisionSocket in @troupe/core/util:
// one line `{"id":1,"request":event}` out, one line `{"id":1,"answer":{…}}` or `{"id":1,"error":"…"}` back).
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
import { createConnection } from 'node:net';

const DENY_UNASKED = 'The tool call was refused: the Troupe host could not be asked (fail closed).';

let event;
let readAt;
const print = (value) =>
  process.stdout.write(JSON.stringify(value), async () => {
    const trace = process.env.GEMINI_CLI_TROUPE_HOOK_TRACE;
    if (trace && readAt !== undefined) {
      const round = (ms) => Math.round(ms * 1000) / 1000;
      const line = { event: event?.hook_event_name, tool: event?.tool_name, decision: value.decision, elapsed_ms: round(performance.now() - readAt), uptime_ms: round(performance.now()) };
      try {
        const { appendFileSync } = await import('node:fs');
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

/** Sends the event as request 1 and resolves with the host's answer object; rejects on an error frame or a closed socket. */
function ask(socketPath, request) {
  return new Promise((resolve, reject) => {
    const socket = createConnection(socketPath);
    let buffer = '';
    const fail = (message) => {
      socket.destroy();
      reject(new Error(message));
    };
    socket.setEncoding('utf8');
    socket.on('error', (error) => fail(error.message));
    socket.on('close', () => fail('the host closed the socket without an answer'));
    socket.on('data', (chunk) => {
      buffer += chunk;
      let newline;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let frame;
        try {
          frame = JSON.parse(line);
        } catch {
          continue; // not a frame of ours
        }
        if (frame?.id !== 1) continue;
        const answer = frame.answer;
        if (answer !== null && typeof answer === 'object' && !Array.isArray(answer)) {
          socket.removeAllListeners('close');
          socket.end();
          resolve(answer);
        } else {
          fail(typeof frame.error === 'string' ? frame.error : 'no answer object');
        }
        return;
      }
    });
    socket.write(`${JSON.stringify({ id: 1, request })}\n`);
  });
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
  if (event === null || typeof event !== 'object' || Array.isArray(event)) return print({ decision: 'deny', reason: DENY_UNASKED });
  let answer;
  try {
    answer = await ask(socketPath, event);
  } catch (error) {
    process.stderr.write(`gemini-permission-hook: the host did not answer (${error?.message ?? error}); failing closed\n`);
    answer = undefined;
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
