#!/usr/bin/env node
// Drives one turn of `codex app-server` (JSON-RPC over stdio, Codex 0.169.0) for @troupe/adapter-codex when a
// permission callback is set: the message arrives on this script's stdin (closed after it), every line Codex prints
// is passed on to stdout unchanged, and Codex's approval requests are asked of the Troupe host over a Unix socket.
//
// Usage: node codex-app-server-driver.mjs --permission-socket PATH --thread FILE -- COMMAND [ARGS…]
//   --permission-socket  the host's socket: one line {"id":n,"request":{"method","params","item"}} per approval,
//                        answered {"id":n,"outcome":{"decision":"accept"|"decline","steer"?:TEXT}}
//   --thread             a JSON file: {"start":{…thread/start params}} or {"resume":{…thread/resume params}}
//                        or {"fork":{…thread/fork params}}; the turn's params ride in {"turn":{…}} (no input)
//
// stdout lines: every line of Codex (responses, notifications, requests), plus
//   {"type":"troupe.thread","threadId":…,"model":…}                 the thread the turn runs on (new, resumed or forked)
//   {"type":"troupe.approval","requestId":…,"method":…,"itemId":…,"decision":…,"elapsedMs":…}
//                                                                     how an approval was answered; elapsedMs is from
//                                                                     Codex's request line read to the answer written
//   {"type":"troupe.error","message":…}                              a request of the handshake failed: the turn failed
//   {"type":"troupe.codex-exited","code":…,"signal":…}               Codex died before the turn ended
// MCP tool calls: with an MCP server's approval mode `prompt` (set by the adapter), Codex asks before each call with an
// `mcpServer/elicitation/request` whose `_meta.codex_approval_kind` is `mcp_tool_call`; it is forwarded like the other
// approvals (with the `mcpToolCall` item it belongs to) and answered `{"action":"accept"|"decline"}`.
// Requests this driver does not forward (other MCP elicitations, permission grants, user input, dynamic tools) are
// refused: nothing runs that the host was not asked about. After `turn/completed` stdin of Codex is closed
// (app-server then exits by itself, in about 60 ms) and the driver exits 0; 1 after a troupe.error; Codex's code
// when it died first (127 when COMMAND is not found).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { createJsonLineRpcClient, LineSplitter, parseJsonLine } from '@troupe/core/util';

const argv = process.argv.slice(2);
const options = { socket: undefined, thread: undefined };
let command;
let commandArgs = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '--permission-socket') options.socket = argv[++i];
  else if (arg === '--thread') options.thread = argv[++i];
  else if (arg === '--') {
    command = argv[i + 1];
    commandArgs = argv.slice(i + 2);
    break;
  }
}
if (!command || !options.socket || !options.thread) {
  process.stderr.write('codex-app-server-driver: usage: codex-app-server-driver.mjs --permission-socket PATH --thread FILE -- COMMAND [ARGS…]\n');
  process.exit(2);
}
const thread = JSON.parse(readFileSync(options.thread, 'utf8'));

const emit = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const finish = (code) => process.stdout.write('', () => process.exit(code));

const message = new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (chunk) => chunks.push(chunk));
  process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/\n$/, '')));
  process.stdin.on('error', () => resolve(''));
});

const codex = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
const codexExited = new Promise((resolve) => codex.once('exit', (code, signal) => resolve({ code, signal })));
let turnEnded = false;
codex.once('error', (error) => {
  process.stderr.write(`codex-app-server-driver: cannot start "${command}": ${error.message}\n`);
  emit({ type: 'troupe.codex-exited', message: `cannot start "${command}": ${error.message}`, code: error.code });
  finish(error.code === 'ENOENT' ? 127 : 1);
});
codex.stdin.on('error', () => {
  // EPIPE when Codex exits early: its exit code tells the story.
});
void codexExited.then(({ code, signal }) => {
  if (turnEnded) return;
  emit({ type: 'troupe.codex-exited', code, signal });
  finish(code ?? 1);
});
// The driver is ended (SIGTERM from the runner): Codex goes with it.
for (const name of ['SIGTERM', 'SIGINT']) {
  process.once(name, () => {
    codex.kill('SIGTERM');
    finish(143);
  });
}

const send = (value) => codex.stdin.write(`${JSON.stringify(value)}\n`);
let nextId = 0;
const pending = new Map();
/** A request to Codex; resolves with its result, rejects with its error. */
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject, method });
    send({ method, id, params });
  });

/** Longest line read from the host (an answer is a few hundred bytes, a steer message a few KiB). */
const MAX_HOST_LINE_LENGTH = 1024 * 1024;
let host;
function connectHost() {
  const socket = createConnection(options.socket);
  const giveUp = (why) => {
    process.stderr.write(`codex-app-server-driver: the host's permission socket ${why}; its open requests are declined\n`);
    socket.destroy();
  };
  return createJsonLineRpcClient(socket, {
    name: "the host's permission socket",
    maxLineLength: MAX_HOST_LINE_LENGTH,
    encodeRequest: (id, body) => ({ id, request: body }),
    readAnswer: (reply) => {
      if (!Number.isSafeInteger(reply?.id)) return undefined;
      const decision = reply.outcome?.decision;
      if (decision === 'accept' || decision === 'decline') return { id: reply.id, ok: true, result: reply.outcome };
      return { id: reply.id, ok: false, error: typeof reply.error === 'string' ? reply.error : 'no valid decision' };
    },
    onFrame: (reply) => {
      if (reply?.outcome?.decision !== 'accept' && reply?.outcome?.decision !== 'decline') giveUp('sent a frame that is not an answer');
    },
    onInvalid: (reason) => giveUp(`sent a line that is ${reason}`),
    log: (text) => process.stderr.write(`codex-app-server-driver: ${text}; its open requests are declined\n`),
  });
}
/** The host's answer; a decline (fail closed) when it refuses, garbles or never gives one. */
async function askHost(body) {
  host ??= connectHost();
  try {
    return await host.request(body);
  } catch (error) {
    process.stderr.write(`codex-app-server-driver: no answer from the host (${error?.message ?? error}); the request is declined\n`);
    return { decision: 'decline' };
  }
}

// The items Codex announced (item/started): a file-change approval names only its item, the host needs the changes.
const items = new Map();
let threadId;
let turnId;
const APPROVALS = new Set(['item/commandExecution/requestApproval', 'item/fileChange/requestApproval']);
const ELICITATION = 'mcpServer/elicitation/request';
/** Codex 0.169.0's question before an MCP tool call: an elicitation marked as an approval of that kind. */
const isMcpToolApproval = (frame) => frame.method === ELICITATION && frame.params?._meta?.codex_approval_kind === 'mcp_tool_call';
// The MCP calls Codex announced and has not asked about yet: its elicitation names the server, tool and arguments but
// not the item, so it is matched to the oldest open call with the same three.
const openMcpCalls = [];
function takeMcpItem(params) {
  const args = JSON.stringify(params._meta?.tool_params ?? {});
  const index = openMcpCalls.findIndex((item) => item.server === params.serverName && item.tool === params._meta?.tool_name && JSON.stringify(item.arguments ?? {}) === args);
  return index === -1 ? undefined : openMcpCalls.splice(index, 1)[0];
}

async function answerApproval(frame, readAt) {
  const mcp = frame.method === ELICITATION;
  const item = mcp ? takeMcpItem(frame.params) : items.get(frame.params?.itemId);
  const outcome = await askHost({ method: frame.method, params: frame.params, ...(item ? { item } : {}) });
  const decision = outcome.decision === 'accept' ? 'accept' : 'decline';
  // The app-server's answer carries no reason: the host's message reaches the model as input steered into this
  // turn. It is steered before the decline is sent, so it is pending when Codex builds its next model request
  // (steered after, it can land while that request streams, and Codex then drops that response).
  if (decision === 'decline' && typeof outcome.steer === 'string' && outcome.steer !== '' && threadId && turnId) {
    await request('turn/steer', { threadId, expectedTurnId: turnId, input: [{ type: 'text', text: outcome.steer, text_elements: [] }] }).catch((error) => {
      process.stderr.write(`codex-app-server-driver: could not tell the model why (${error?.message ?? error})\n`);
    });
  }
  send({ id: frame.id, result: mcp ? { action: decision, content: null, _meta: null } : { decision } });
  const elapsedMs = Number(process.hrtime.bigint() - readAt) / 1e6;
  emit({ type: 'troupe.approval', requestId: frame.id, method: frame.method, itemId: mcp ? item?.id : frame.params?.itemId, decision, elapsedMs });
}

/** One line of Codex (already passed on), acted on. */
function onCodexLine(line, readAt) {
  const frame = parseJsonLine(line);
  if (frame === null || typeof frame !== 'object') return;
  if (frame.method === undefined && frame.id !== undefined) {
    const waiter = pending.get(frame.id);
    pending.delete(frame.id);
    if (!waiter) return;
    if (frame.error !== undefined) waiter.reject(Object.assign(new Error(`${waiter.method}: ${frame.error?.message ?? JSON.stringify(frame.error)}`), { code: frame.error?.code }));
    else waiter.resolve(frame.result);
    return;
  }
  if (frame.id !== undefined && typeof frame.method === 'string') {
    if (APPROVALS.has(frame.method) || isMcpToolApproval(frame)) void answerApproval(frame, readAt);
    else if (frame.method === 'execCommandApproval' || frame.method === 'applyPatchApproval') send({ id: frame.id, result: { decision: 'denied' } });
    else send({ id: frame.id, error: { code: -32601, message: `Troupe does not answer ${frame.method}: refused` } });
    return;
  }
  if (frame.method === 'item/started' && frame.params?.item?.id) {
    items.set(frame.params.item.id, frame.params.item);
    if (frame.params.item.type === 'mcpToolCall') openMcpCalls.push(frame.params.item);
  } else if (frame.method === 'item/completed' && frame.params?.item?.id) {
    items.delete(frame.params.item.id);
    const open = openMcpCalls.findIndex((item) => item.id === frame.params.item.id);
    if (open !== -1) openMcpCalls.splice(open, 1);
  } else if (frame.method === 'turn/started') turnId = frame.params?.turn?.id;
  else if (frame.method === 'turn/completed') void endTurn();
}
const splitter = new LineSplitter({
  maxLineLength: 64 * 1024 * 1024,
  onLineTooLong: (length) => process.stderr.write(`codex-app-server-driver: Codex printed a line of ${length} characters; dropped\n`),
});
/**
 * The lines of a chunk: acted on first (an approval's question leaves for the host at once), then passed on as they
 * came (one write, no re-encoding). What the driver writes in reply to them comes later (it awaits an answer).
 */
function onCodexLines(lines) {
  const readAt = process.hrtime.bigint();
  const kept = lines.filter((line) => line.trim() !== '');
  if (kept.length === 0) return;
  for (const line of kept) onCodexLine(line, readAt);
  process.stdout.write(`${kept.join('\n')}\n`);
}
codex.stdout.on('data', (chunk) => onCodexLines(splitter.push(chunk)));
codex.stdout.on('end', () => onCodexLines(splitter.end()));

/** Ends the turn once: Codex's stdin is closed (app-server then exits by itself), it is killed after 5 s otherwise. */
async function endTurn(code = 0) {
  if (turnEnded) return;
  turnEnded = true;
  host?.close();
  codex.stdin.end();
  const exited = await Promise.race([codexExited, new Promise((resolve) => setTimeout(() => resolve(undefined), 5000).unref())]);
  if (exited === undefined) codex.kill('SIGKILL');
  finish(code);
}

try {
  await request('initialize', { clientInfo: { name: 'troupe', title: 'Troupe', version: '1' }, capabilities: null });
  send({ method: 'initialized' });
  const opened = thread.resume
    ? await request('thread/resume', thread.resume)
    : thread.fork
      ? await request('thread/fork', thread.fork)
      : await request('thread/start', thread.start ?? {});
  threadId = opened?.thread?.id;
  emit({ type: 'troupe.thread', threadId, model: opened?.model });
  const text = await message;
  const started = await request('turn/start', { ...thread.turn, threadId, input: [{ type: 'text', text, text_elements: [] }] });
  turnId ??= started?.turn?.id;
} catch (error) {
  if (!turnEnded) {
    emit({ type: 'troupe.error', message: error?.message ?? String(error), ...(error?.code !== undefined ? { code: error.code } : {}) });
    await endTurn(1);
  }
}
