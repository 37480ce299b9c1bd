#!/usr/bin/env node
// Drives one prompt turn of `gemini --acp` (Agent Client Protocol: JSON-RPC 2.0
// over stdio) for @troupe/adapter-gemini, so the core can treat ACP like any
// one-message CLI: the message arrives on this script's stdin (closed after
// it), and the agent's JSON-RPC lines come out on stdout.
//
// Usage: node gemini-acp-driver.mjs [--permission ask|auto-edit|full-auto] [--install-hint TEXT] -- COMMAND [ARGS…]
//   COMMAND ARGS     the agent, e.g. `gemini --acp --skip-trust -m gemini-2.5-flash` (spawned without a shell)
//   --permission     how `session/request_permission` is answered: `ask` rejects (nobody can approve
//                    in a headless turn), `auto-edit` allows edits only, `full-auto` allows everything;
//                    always "once", never "for this session"
//   --install-hint   printed when COMMAND is not found
//
// Requests it sends, in order (ids fixed, as in the recorded fixtures):
//   0 initialize → 1 session/new {cwd, mcpServers: []} → 2 session/prompt
// initialize and session/new go out at once, so the agent boots while the
// message is still on its way. stdout gets every agent line except the
// session/update notifications that come before the prompt (the command list).
// After the prompt response (or any error response) it closes the agent's
// stdin, waits for it to exit and exits 0 (1 after an error response); if the
// agent exits first, it exits with the agent's code.
// No session/load: in Gemini CLI 0.61.0 it re-initializes the session's chat
// record before reading it, and fails with "No previous sessions found".
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
let sessionId;
let installHint;
let permission = 'ask';
let command;
let commandArgs = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--permission') permission = args[++i];
  else if (arg === '--install-hint') installHint = args[++i];
  else if (arg === '--') {
    command = args[i + 1];
    commandArgs = args.slice(i + 2);
    break;
  }
}
if (!command || !['ask', 'auto-edit', 'full-auto'].includes(permission)) {
  process.stderr.write('gemini-acp-driver: usage: gemini-acp-driver.mjs [--permission ask|auto-edit|full-auto] [--install-hint TEXT] -- COMMAND [ARGS…]\n');
  process.exit(2);
}

const PROMPT_ID = 2;
let promptSent = false;
let finished = false;
let failed = false;
let message;
let sessionReady = false;

const agent = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
agent.on('error', (error) => {
  const hint = error.code === 'ENOENT' && installHint ? ` Install it with \`${installHint}\` or give its absolute path.` : '';
  process.stderr.write(`gemini-acp-driver: cannot start "${command}": ${error.message}.${hint}\n`);
  process.exit(error.code === 'ENOENT' ? 127 : 1);
});
agent.stdin.on('error', () => {
  // EPIPE when the agent exits early: its exit code tells the story.
});
agent.on('exit', (code, signal) => {
  process.stdout.write('', () => process.exit(finished ? (failed ? 1 : 0) : (code ?? (signal ? 128 : 1))));
});

const send = (payload) => agent.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...payload })}\n`);
const emit = (value) => process.stdout.write(`${typeof value === 'string' ? value : JSON.stringify(value)}\n`);

function finish(isError) {
  finished = true;
  failed = isError;
  agent.stdin.end();
}

function maybePrompt() {
  if (promptSent || !sessionReady || message === undefined) return;
  promptSent = true;
  send({ id: PROMPT_ID, method: 'session/prompt', params: { sessionId, prompt: [{ type: 'text', text: message }] } });
}

function answerPermission(request) {
  const options = Array.isArray(request.params?.options) ? request.params.options : [];
  const kind = request.params?.toolCall?.kind;
  const allow = permission === 'full-auto' || (permission === 'auto-edit' && kind === 'edit');
  // Once, never "for this session": each tool call is judged on its own.
  const pick = (kinds) => kinds.map((wanted) => options.find((option) => option.kind === wanted)).find(Boolean);
  const option = allow ? pick(['allow_once', 'allow_always']) : pick(['reject_once', 'reject_always']);
  const outcome = option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
  send({ id: request.id, result: { outcome } });
}

function onAgentLine(line) {
  let json;
  try {
    json = JSON.parse(line);
  } catch {
    emit(line);
    return;
  }
  const isResponse = json && json.id !== undefined && json.method === undefined;
  if (isResponse && json.error !== undefined) {
    emit(json);
    finish(true);
    return;
  }
  if (isResponse && json.id === 0) {
    emit(json);
    send({ id: 1, method: 'session/new', params: { cwd: process.cwd(), mcpServers: [] } });
    return;
  }
  if (isResponse && json.id === 1) {
    sessionId = json.result?.sessionId;
    emit(json);
    sessionReady = true;
    maybePrompt();
    return;
  }
  if (isResponse && json.id === PROMPT_ID) {
    emit(json);
    finish(false);
    return;
  }
  if (json?.method === 'session/request_permission' && json.id !== undefined) {
    emit(json);
    answerPermission(json);
    return;
  }
  if (json?.method !== undefined && json.id !== undefined) {
    // Another client method (fs/*, terminal/*): this client offers none.
    send({ id: json.id, error: { code: -32601, message: `gemini-acp-driver does not implement ${json.method}` } });
    return;
  }
  if (json?.method === 'session/update' && !promptSent) return; // the command list
  emit(json);
}

let buffer = '';
agent.stdout.setEncoding('utf8');
agent.stdout.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    if (line.trim() !== '') onAgentLine(line);
  }
});

send({ id: 0, method: 'initialize', params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false } } } });

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  message = Buffer.concat(chunks).toString('utf8').replace(/\n$/, '');
  maybePrompt();
});
process.stdin.on('error', () => {});
