#!/usr/bin/env node
// Drives one turn of Claude Code over its stream-json control protocol for @troupe/adapter-claude, so that every
// tool call is decided by the Troupe host before it runs: the CLI asks over stdio (a `PreToolUse` hook callback for
// every call, `can_use_tool` when its own permission check wants to ask), this script asks the host over a Unix
// socket, and writes the host's answer back to the CLI's stdin. Everything else the CLI prints is passed on as is.
//
// Usage: node claude-control-driver.mjs --permission-socket PATH [--hooks post,stop,subagent] -- COMMAND [ARGS…]
//   --permission-socket  the host's socket (one JSON line per request: {"id":n,"request":{…}} → {"id":n,"answer":{…}})
//   --hooks              more hook events to register besides PreToolUse: post (PostToolUse), stop (Stop),
//                        subagent (SubagentStart and SubagentStop)
// COMMAND ARGS must make the CLI speak stream-json both ways with `--permission-prompt-tool stdio`.
//
// stdin: the host's user message lines (stdin is closed after them); they are passed on, and the CLI's stdin stays
// open until its `result` line (the CLI waits for answers on it), then is closed so the CLI exits.
// stdout: the CLI's lines, minus the `control_response` lines answering this script's own requests, plus one
//   {"type":"troupe_control","subtype":…,"request_id":…,"tool_use_id":…,"behavior":…,"elapsed_ms":…}
// line per answered request. elapsed_ms is Troupe's own time for it: from the moment the chunk of the CLI's stdout
// that completes the request line was read (every request of a burst read in one chunk starts its clock then, so
// the time spent on the requests before it in that chunk counts) to the moment the answer line has been written to
// the CLI's stdin (the host's socket round trip and its decision included).
// Fail closed: when the host cannot be asked or answers nonsense, a tool call is denied.
// Exit code: the CLI's (127 when COMMAND is not found).
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { coalescedWriter, connectDecisionSocket, LineSplitter } from '@troupe/core/util';

const argv = process.argv.slice(2);
const options = { socket: undefined, hooks: [] };
let command;
let commandArgs = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '--permission-socket') options.socket = argv[++i];
  else if (arg === '--hooks') options.hooks = (argv[++i] ?? '').split(',').filter(Boolean);
  else if (arg === '--') {
    command = argv[i + 1];
    commandArgs = argv.slice(i + 2);
    break;
  }
}
if (!command || !options.socket) {
  process.stderr.write('claude-control-driver: usage: claude-control-driver.mjs --permission-socket PATH [--hooks post,stop,subagent] -- COMMAND [ARGS…]\n');
  process.exit(2);
}

// Lines written in one turn of the event loop (the copies of a burst of requests, the burst's answers) leave in one
// write per stream.
const toHost = coalescedWriter(process.stdout);
const emit = (value) => toHost(`${JSON.stringify(value)}\n`);

const cli = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
cli.once('error', (error) => {
  process.stderr.write(`claude-control-driver: cannot start "${command}": ${error.message}\n`);
  process.stdout.write('', () => process.exit(error.code === 'ENOENT' ? 127 : 1));
});
cli.once('exit', (code, signal) => {
  host?.close();
  process.stdout.write('', () => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
cli.stdin.on('error', () => {
  // EPIPE when the CLI exits early: its exit code tells the story.
});
let cliStdinOpen = true;
const writeToCli = coalescedWriter(cli.stdin);
const toCli = (value) => {
  if (cliStdinOpen) writeToCli(`${JSON.stringify(value)}\n`);
};

// The hooks: PreToolUse for every call (the decision), the others only when the host has a hook for them.
const hookConfig = { PreToolUse: [{ matcher: null, hookCallbackIds: ['troupe_pre_tool_use'] }] };
if (options.hooks.includes('post')) hookConfig.PostToolUse = [{ matcher: null, hookCallbackIds: ['troupe_post_tool_use'] }];
if (options.hooks.includes('stop')) hookConfig.Stop = [{ hookCallbackIds: ['troupe_stop'] }];
if (options.hooks.includes('subagent')) {
  hookConfig.SubagentStart = [{ hookCallbackIds: ['troupe_subagent_start'] }];
  hookConfig.SubagentStop = [{ hookCallbackIds: ['troupe_subagent_stop'] }];
}
const INIT_REQUEST_ID = 'troupe_initialize';
toCli({ type: 'control_request', request_id: INIT_REQUEST_ID, request: { subtype: 'initialize', hooks: hookConfig } });

// The host's message lines go on to the CLI; its stdin stays open for the answers.
let messages = 0;
const fromHost = createInterface({ input: process.stdin, crlfDelay: Infinity });
fromHost.on('line', (line) => {
  if (line.trim() === '' || !cliStdinOpen) return;
  messages++;
  writeToCli(`${line}\n`);
});
fromHost.on('close', () => {
  // No message came: nothing will end the turn, so let the CLI exit now.
  if (messages === 0 && cliStdinOpen) {
    cliStdinOpen = false;
    cli.stdin.end();
  }
});

let host;
function connectHost() {
  return connectDecisionSocket(options.socket, "the host's permission socket", { log: (message) => process.stderr.write(`claude-control-driver: ${message}\n`) });
}

const DENY_UNASKED = 'The tool call was refused: the Troupe host could not be asked (fail closed).';
/** What to answer when the host cannot: a tool call is denied, other hooks are answered empty. */
function failClosed(request) {
  if (request.subtype === 'can_use_tool') return { behavior: 'deny', message: DENY_UNASKED };
  if (request.callback_id === 'troupe_pre_tool_use') {
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: DENY_UNASKED } };
  }
  return {};
}
/** A host answer the CLI accepts for this request, or the fail-closed one. */
function checked(request, answer) {
  if (request.subtype === 'can_use_tool') {
    if (answer?.behavior === 'allow' && answer.updatedInput !== null && typeof answer.updatedInput === 'object') return answer;
    if (answer?.behavior === 'deny' && typeof answer.message === 'string') return answer;
    return failClosed(request);
  }
  if (request.callback_id === 'troupe_pre_tool_use') {
    const decision = answer?.hookSpecificOutput?.permissionDecision;
    return decision === 'allow' || decision === 'deny' ? answer : failClosed(request);
  }
  return answer ?? {};
}

const inFlight = new Map();
async function answerControlRequest(message, readAt) {
  const { request_id: requestId, request } = message;
  const controller = new AbortController();
  inFlight.set(requestId, controller);
  let answer;
  try {
    host ??= connectHost();
    answer = checked(request, await host.request(request, { abortSignal: controller.signal }));
  } catch (error) {
    if (!controller.signal.aborted) process.stderr.write(`claude-control-driver: the host did not answer (${error?.message ?? error}); failing closed\n`);
    answer = failClosed(request);
  } finally {
    inFlight.delete(requestId);
  }
  if (controller.signal.aborted) return; // the CLI cancelled the request: it wants no answer
  toCli({ type: 'control_response', response: { subtype: 'success', request_id: requestId, response: answer } });
  // The clock stops once the answer has left: after the coalesced write to the CLI's stdin is flushed (that flush
  // was scheduled by the first write of this turn of the event loop, so this tick runs after it).
  await new Promise((resolve) => process.nextTick(resolve));
  const elapsed = performance.now() - readAt;
  const behavior = answer.behavior ?? answer.hookSpecificOutput?.permissionDecision;
  emit({
    type: 'troupe_control',
    subtype: request.subtype,
    ...(request.callback_id !== undefined ? { callback_id: request.callback_id } : {}),
    request_id: requestId,
    ...(request.tool_use_id !== undefined ? { tool_use_id: request.tool_use_id } : {}),
    ...(behavior !== undefined ? { behavior } : {}),
    elapsed_ms: Math.round(elapsed * 1000) / 1000,
  });
}

/** Lines that can only be passed on: no control message or `result` has neither word (the CLI writes plain JSON). */
const mayMatter = (line) => line.includes('control_') || line.includes('"result"');

function onCliLine(line, readAt) {
  if (!mayMatter(line)) {
    toHost(`${line}\n`);
    return;
  }
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    toHost(`${line}\n`);
    return;
  }
  if (message?.type === 'control_request' && message.request && typeof message.request.subtype === 'string') {
    // The question goes to the host's socket first; the copy for the host's stream parser after it.
    void answerControlRequest(message, readAt);
    toHost(`${line}\n`);
    return;
  }
  if (message?.type === 'control_cancel_request') {
    inFlight.get(message.request_id)?.abort();
    toHost(`${line}\n`);
    return;
  }
  if (message?.type === 'control_response') {
    if (message.response?.subtype === 'error') process.stderr.write(`claude-control-driver: the CLI refused request ${message.response.request_id}: ${message.response.error}\n`);
    return; // answers to this script's own requests (initialize): nothing for the host
  }
  toHost(`${line}\n`);
  if (message?.type === 'result' && cliStdinOpen) {
    // The turn is over: close the CLI's stdin so it exits.
    cliStdinOpen = false;
    cli.stdin.end();
  }
}

// The CLI's stdout, framed here (not by readline) so that a request's clock starts when its chunk is read.
const fromCli = new LineSplitter();
cli.stdout.on('data', (chunk) => {
  const readAt = performance.now();
  for (const line of fromCli.push(chunk)) onCliLine(line, readAt);
});
cli.stdout.on('end', () => {
  const readAt = performance.now();
  for (const line of fromCli.end()) onCliLine(line, readAt);
});
