#!/usr/bin/env node
// Drives one prompt turn of an Agent Client Protocol agent for @troupe/adapter-acp,
// on the official @agentclientprotocol/sdk (JSON-RPC framing, requests, responses
// and errors are the SDK's): the message arrives on this script's stdin (closed
// after it), and what the agent says comes out on stdout, one JSON line each.
//
// Usage: node acp-driver.mjs [--permission allow|deny] [--permission-socket PATH] [--client-fs]
//          [--mcp-config FILE] [--resume SESSION_ID] [--install-hint TEXT] -- COMMAND [ARGS…]
//   --permission         answers session/request_permission here: allow (once) or deny (once); default deny
//   --permission-socket  asks the Troupe host instead, over this Unix socket (one JSON line per request)
//   --client-fs          advertises clientCapabilities.fs (readTextFile, writeTextFile): the agent reads and writes
//                        files through this client, and each fs/read_text_file and fs/write_text_file is asked of the
//                        host first (needs --permission-socket); the host's answer says which path (and content) to use
//   --mcp-config         a JSON file with the ACP `mcpServers` array for session/new (or session/load)
//   --resume             load this session (session/load) when the agent can, instead of a new one
//
// stdout lines:
//   {"type":"acp.initialized","protocolVersion":…,"agentInfo":…,"agentCapabilities":…}
//   {"type":"acp.session","sessionId":…,"loaded":bool}
//   {"jsonrpc":"2.0","method":"session/update","params":…}              every update, as the agent sent it
//   {"jsonrpc":"2.0","method":"session/request_permission","params":…}  every permission request
//   {"type":"acp.permission","toolCallId":…,"outcome":…}                 how it was answered
//   {"type":"acp.fs","method":…,"path":…,"toolCallId":…,"outcome":…}      a file access through the client, and how it was answered
//   {"type":"acp.prompt-result","response":…}                            the session/prompt response: the turn ended
//   {"type":"acp.error","message":…,"code":…,"data":…}                   a failed request: the turn failed
//   {"type":"acp.agent-exited","message":…,"code":…}                     the agent could not start or died: the driver exits with its code
// With TROUPE_ACP_DRIVER_TRACE set to a file, one line per question the host answered is appended to it (as the
// driver exits, so tracing costs the answers nothing):
//   {"method":…,"toolCallId":…,"decision":…,"elapsed_ms":…}
// elapsed_ms is Troupe's own time for the question: from the moment the chunk of the agent's stdout that completes
// the request line was read (every request of a burst read in one chunk starts its clock then) to the moment the
// response line was handed to the write to the agent's stdin — the SDK's parsing and dispatch, the socket round trip,
// the host's decision and, for a file access, its own reading or writing included.
// initialize and session/new go out at once, so the agent boots while the message
// is still on its way. Exit code: 0 after a prompt result, 1 after an error,
// the agent's own code when it died first (127 when COMMAND is not found).
import { spawn } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createConnection } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import { client, methods, ndJsonStream, PROTOCOL_VERSION, RequestError } from '@agentclientprotocol/sdk';
import { coalescedWriter, createJsonLineRpcClient, LineSplitter } from '@troupe/core/util';

const argv = process.argv.slice(2);
const options = { permission: 'deny', socket: undefined, clientFs: false, mcpConfig: undefined, resume: undefined, installHint: undefined };
let command;
let commandArgs = [];
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i];
  if (arg === '--permission') options.permission = argv[++i];
  else if (arg === '--permission-socket') options.socket = argv[++i];
  else if (arg === '--client-fs') options.clientFs = true;
  else if (arg === '--mcp-config') options.mcpConfig = argv[++i];
  else if (arg === '--resume') options.resume = argv[++i];
  else if (arg === '--install-hint') options.installHint = argv[++i];
  else if (arg === '--') {
    command = argv[i + 1];
    commandArgs = argv.slice(i + 2);
    break;
  }
}
if (!command || !['allow', 'deny'].includes(options.permission) || (options.clientFs && !options.socket)) {
  process.stderr.write('acp-driver: usage: acp-driver.mjs [--permission allow|deny] [--permission-socket PATH [--client-fs]] [--mcp-config FILE] [--resume ID] -- COMMAND [ARGS…]\n');
  process.exit(2);
}

// Lines written in one turn of the event loop (a burst of updates, of permission answers) leave in one write.
const emit = ((write) => (value) => write(`${JSON.stringify(value)}\n`))(coalescedWriter(process.stdout));
const traceFile = process.env.TROUPE_ACP_DRIVER_TRACE;
/** When each traced request's line was read (by JSON-RPC id), and the answers waiting for their response to be written. */
const readAt = new Map();
const answered = new Map();
let traceLines = [];
/** Notes how a traced request was answered; its line is written once the response leaves (see `watchAgentIo`). */
function trace(requestId, method, toolCallId, decision) {
  if (traceFile && readAt.has(String(requestId))) answered.set(String(requestId), { method, toolCallId, decision });
}
/** Appends the trace lines kept so far (best effort): when the turn ends, and as the driver exits. */
function flushTrace() {
  if (traceLines.length === 0) return;
  try {
    appendFileSync(traceFile, traceLines.join(''));
  } catch {
    // tracing is best effort
  }
  traceLines = [];
}
if (traceFile) process.on('exit', flushTrace);
/** The JSON-RPC id at the head of a message line (the SDK writes {"jsonrpc":"2.0","id":…} first), as a string. */
function requestIdOf(line) {
  return /^\{"jsonrpc":"2\.0","id":(\d+|"[^"]*")/.exec(line)?.[1]?.replace(/^"|"$/g, '');
}
/**
 * With tracing on: stamps each permission or file request of the agent when the chunk completing its line is read
 * (before the SDK parses it), and stops its clock when the SDK hands the response line to the agent's stdin.
 */
function watchAgentIo(agent) {
  const traced = /"method":"(session\/request_permission|fs\/read_text_file|fs\/write_text_file)"/;
  const lines = new LineSplitter();
  agent.stdout.on('data', (chunk) => {
    const at = performance.now();
    // Only chunks that hold a traced request are split (the SDK frames the stream itself).
    if (lines.pendingLength === 0 && chunk.indexOf('"method":"session/request_permission"') === -1 && chunk.indexOf('"method":"fs/') === -1) {
      if (chunk[chunk.length - 1] !== 0x0a) lines.push(chunk);
      return;
    }
    for (const line of lines.push(chunk)) {
      if (!traced.test(line)) continue;
      const id = requestIdOf(line);
      if (id !== undefined) readAt.set(id, at);
    }
  });
  const write = agent.stdin.write;
  agent.stdin.write = function (chunk, ...rest) {
    const written = write.call(this, chunk, ...rest);
    if (answered.size > 0) {
      const id = requestIdOf(typeof chunk === 'string' ? chunk.slice(0, 64) : Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.byteLength, 64)).toString('utf8'));
      if (id !== undefined) {
        const how = answered.get(id);
        if (how) {
          traceLines.push(`${JSON.stringify({ ...how, elapsed_ms: Math.round((performance.now() - readAt.get(id)) * 1000) / 1000 })}\n`);
          answered.delete(id);
          readAt.delete(id);
        }
      }
    }
    return written;
  };
}
/**
 * Writes out now what `emit` holds back for this tick (a pipe's writes are synchronous on Linux): the host reads the
 * lines that came before a question before the question itself reaches its socket.
 */
const flushStdout = () => process.stdout.uncork();
const finish = (code) => process.stdout.write('', () => process.exit(code));

const mcpServers = options.mcpConfig ? JSON.parse(readFileSync(options.mcpConfig, 'utf8')) : [];
const message = new Promise((resolve) => {
  const chunks = [];
  process.stdin.on('data', (chunk) => chunks.push(chunk));
  process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8').replace(/\n$/, '')));
  process.stdin.on('error', () => resolve(''));
});

const agent = spawn(command, commandArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
const agentExited = new Promise((resolve) => agent.once('exit', (code, signal) => resolve({ code, signal })));
agent.once('error', (error) => {
  const hint = error.code === 'ENOENT' && options.installHint ? ` Install it with \`${options.installHint}\` or give its absolute path.` : '';
  const text = `cannot start "${command}": ${error.message}.${hint}`;
  process.stderr.write(`acp-driver: ${text}\n`);
  emit({ type: 'acp.agent-exited', message: text, code: error.code });
  finish(error.code === 'ENOENT' ? 127 : 1);
});
agent.stdin.on('error', () => {
  // EPIPE when the agent exits early: its exit code tells the story.
});

/** Longest answer line read from the host (an outcome is a few dozen bytes). */
const MAX_HOST_LINE_LENGTH = 64 * 1024;
/** The connection to the host's permission socket, opened on the first request (core's JSON-lines protocol helper). */
let host;
/**
 * The ACP outcome in a host answer, or undefined when the answer is malformed (the request is then cancelled).
 * A plain-object `_meta` (where the host puts a deny reason, `troupe/reason`) is passed on with it.
 */
function hostOutcome(reply) {
  const outcome = reply?.outcome;
  const meta = outcome?._meta;
  const withMeta = (answer) => (meta !== null && typeof meta === 'object' && !Array.isArray(meta) ? { ...answer, _meta: meta } : answer);
  if (outcome?.outcome === 'cancelled') return withMeta({ outcome: 'cancelled' });
  if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string') return withMeta({ outcome: 'selected', optionId: outcome.optionId });
  // A file access answer (--client-fs): the path (and content) to use, or the deny message.
  if (outcome?.outcome === 'allow' && typeof outcome.path === 'string' && (outcome.content === undefined || typeof outcome.content === 'string')) {
    return { outcome: 'allow', path: outcome.path, ...(outcome.content !== undefined ? { content: outcome.content } : {}) };
  }
  if (outcome?.outcome === 'deny' && typeof outcome.message === 'string') return { outcome: 'deny', message: outcome.message };
  return undefined;
}
/** An answer frame `{"id","outcome"}`: a malformed outcome or an error frame is the host refusing that request. */
function readHostAnswer(reply) {
  if (!Number.isSafeInteger(reply?.id)) return undefined;
  const outcome = hostOutcome(reply);
  if (outcome !== undefined) return { id: reply.id, ok: true, result: outcome };
  return { id: reply.id, ok: false, error: typeof reply.error === 'string' ? reply.error : 'no valid outcome' };
}
function connectHost() {
  const socket = createConnection(options.socket);
  // A host that sends something other than answers is broken: its open requests are cancelled and it is not asked again.
  const giveUp = (why) => {
    process.stderr.write(`acp-driver: the host's permission socket ${why}; its open requests are cancelled\n`);
    socket.destroy();
  };
  return createJsonLineRpcClient(socket, {
    name: "the host's permission socket",
    maxLineLength: MAX_HOST_LINE_LENGTH,
    encodeRequest: (id, { method, params }) => (method === undefined ? { id, request: params } : { id, method, request: params }),
    readAnswer: readHostAnswer,
    // A late answer (the request was aborted) is fine; any other frame is not.
    onFrame: (reply) => {
      if (hostOutcome(reply) === undefined) giveUp(`sent a frame that is not an answer (${typeof reply?.error === 'string' ? reply.error : 'no id or outcome'})`);
    },
    onInvalid: (reason) => giveUp(`sent a line that is ${reason}`),
    log: (message) => process.stderr.write(`acp-driver: ${message}; its open requests are cancelled\n`),
  });
}
/** The host's answer to one permission request; cancelled when it refuses, garbles or never gives one. */
async function askHost(params, signal) {
  host ??= connectHost();
  try {
    const outcome = await host.request({ params }, { abortSignal: signal });
    // A file access answer to a permission request is the host confused: cancel.
    return outcome.outcome === 'selected' || outcome.outcome === 'cancelled' ? outcome : { outcome: 'cancelled' };
  } catch (error) {
    if (error?.failure === 'refused') process.stderr.write(`acp-driver: the host refused or garbled a permission answer (${error.message}); the request is cancelled\n`);
    return { outcome: 'cancelled' };
  }
}

/**
 * The tool call a file access belongs to (what the host's rules see): the oldest unfinished one naming that path,
 * of the matching ACP kind (read for a read, edit for a write) when there is one.
 */
function callForPath(path, kind) {
  let found;
  for (const [toolCallId, call] of knownCalls) {
    if (call.status === 'completed' || call.status === 'failed') continue;
    const input = call.rawInput;
    const named = (input && typeof input === 'object' && (input.file_path === path || input.path === path)) || (Array.isArray(call.locations) && call.locations.some((location) => location?.path === path));
    if (!named) continue;
    if (call.kind === kind) return { toolCallId, ...call };
    found ??= { toolCallId, ...call };
  }
  return found;
}

/**
 * Serves fs/read_text_file and fs/write_text_file (--client-fs): the host decides first (with the tool call that
 * asked, when known) and answers the path and content to use — a changed input is what runs; a refusal is a
 * JSON-RPC error whose message the agent reports to its model. The host confines paths to the session's folder.
 */
async function fileAccess(method, params, signal, requestId) {
  host ??= connectHost();
  flushStdout();
  const toolCall = callForPath(params?.path, method === methods.client.fs.writeTextFile ? 'edit' : 'read');
  const { content: _content, ...call } = toolCall ?? {};
  let outcome;
  try {
    outcome = await host.request({ method, params: { ...params, ...(toolCall ? { toolCall: call } : {}) } }, { abortSignal: signal });
  } catch (error) {
    outcome = { outcome: 'deny', message: `Troupe could not decide this file access (${error?.message ?? error})` };
  }
  if (outcome.outcome !== 'allow') outcome = { outcome: 'deny', message: outcome.outcome === 'deny' ? outcome.message : 'Troupe sent no file access answer' };
  trace(requestId, method, toolCall?.toolCallId, outcome.outcome);
  emit({ type: 'acp.fs', method, path: params?.path, toolCallId: toolCall?.toolCallId, outcome: outcome.outcome === 'allow' ? { outcome: 'allow', path: outcome.path } : outcome });
  if (outcome.outcome === 'deny') throw new RequestError(-32001, `Permission denied: ${outcome.message}`);
  if (method === methods.client.fs.writeTextFile) {
    await mkdir(dirname(outcome.path), { recursive: true });
    await writeFile(outcome.path, outcome.content ?? params.content, 'utf8');
    return {};
  }
  let content;
  try {
    content = await readFile(outcome.path, 'utf8');
  } catch (error) {
    if (error?.code === 'ENOENT') {
      // The read of an edit call that is running (Gemini CLI's write_file reads the file it is about to create, and
      // fails on "Resource not found"): the file is empty so far. Any other read: ACP's "Resource not found".
      if (toolCall?.kind === 'edit' && toolCall.status === 'in_progress') return { content: '' };
      throw RequestError.resourceNotFound(outcome.path);
    }
    throw new RequestError(-32603, `Cannot read ${outcome.path}: ${error?.message ?? error}`);
  }
  if (params.line != null || params.limit != null) {
    const lines = content.split('\n');
    const start = Math.max(0, (params.line ?? 1) - 1);
    content = lines.slice(start, params.limit != null ? start + params.limit : undefined).join('\n');
  }
  return { content };
}

function fixedAnswer(params) {
  const wanted = options.permission === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  const option = wanted.map((kind) => params.options?.find((candidate) => candidate.kind === kind)).find(Boolean);
  return option ? { outcome: 'selected', optionId: option.optionId } : { outcome: 'cancelled' };
}

// What the tool_call updates said of each call (kind, locations…): some agents (claude-code-acp) leave it out of
// the permission request, and the host's callback should not have to guess.
const knownCalls = new Map();

const app = client({ name: 'troupe' })
  // session/update params come as sent (an identity parser): the SDK's session router has checked them against its
  // schema already, and the driver only passes them on; a second check of every update was a third of its CPU.
  .onNotification(methods.client.session.update, (params) => params, ({ params }) => {
    const update = params?.update;
    if ((update?.sessionUpdate === 'tool_call' || update?.sessionUpdate === 'tool_call_update') && update.toolCallId) {
      const { sessionUpdate: _kind, ...fields } = update;
      knownCalls.set(update.toolCallId, { ...knownCalls.get(update.toolCallId), ...fields });
    }
    emit({ jsonrpc: '2.0', method: 'session/update', params });
  })
  .onRequest(methods.client.session.requestPermission, async ({ params, signal, requestId }) => {
    const known = knownCalls.get(params.toolCall?.toolCallId);
    const enriched = known ? { ...params, toolCall: { ...known, ...params.toolCall } } : params;
    // The copy for the host's stream parser first, and every line before it flushed: the host must have read the
    // updates that came before the question (a sub-agent's start, a call's result) when it decides, or its hooks
    // would see them after the next decision.
    emit({ jsonrpc: '2.0', method: 'session/request_permission', params });
    flushStdout();
    const outcome = options.socket ? await askHost(enriched, signal) : fixedAnswer(enriched);
    emit({ type: 'acp.permission', toolCallId: params.toolCall?.toolCallId, outcome });
    trace(requestId, 'session/request_permission', params.toolCall?.toolCallId, outcome.outcome === 'selected' ? outcome.optionId : outcome.outcome);
    return { outcome };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params, signal, requestId }) => fileAccess(methods.client.fs.readTextFile, params, signal, requestId))
  .onRequest(methods.client.fs.writeTextFile, ({ params, signal, requestId }) => fileAccess(methods.client.fs.writeTextFile, params, signal, requestId));

if (traceFile) watchAgentIo(agent);
const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
let exitCode = 0;
try {
  await app.connectWith(stream, async (context) => {
    const init = await context.request(methods.agent.initialize, {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: options.clientFs, writeTextFile: options.clientFs }, terminal: false },
      clientInfo: { name: 'troupe', version: '1' },
    });
    emit({ type: 'acp.initialized', protocolVersion: init.protocolVersion, agentInfo: init.agentInfo, agentCapabilities: init.agentCapabilities });
    const wantsHttp = mcpServers.some((server) => server.type === 'http');
    if (wantsHttp && init.agentCapabilities?.mcpCapabilities?.http !== true) {
      throw Object.assign(new Error('the agent does not take HTTP MCP servers (agentCapabilities.mcpCapabilities.http is not true); give it stdio servers'), { code: -32602 });
    }
    const cwd = process.cwd();
    let sessionId;
    let loaded = false;
    if (options.resume && init.agentCapabilities?.loadSession === true) {
      await context.request(methods.agent.session.load, { sessionId: options.resume, cwd, mcpServers });
      sessionId = options.resume;
      loaded = true;
    } else {
      sessionId = (await context.request(methods.agent.session.new, { cwd, mcpServers })).sessionId;
    }
    emit({ type: 'acp.session', sessionId, loaded });
    const response = await context.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: await message }] });
    emit({ type: 'acp.prompt-result', response });
  });
} catch (error) {
  // An agent that died (bad auth, untrusted folder…) explains itself by its exit code: pass it on.
  // The process then fails with that code (not a turn the agent ended), so no acp.error line.
  const early = await Promise.race([agentExited, new Promise((resolve) => setTimeout(() => resolve(undefined), 200).unref())]);
  if (early !== undefined) {
    exitCode = early.code ?? 1;
    const how = early.signal ? `killed by ${early.signal}` : `exited with code ${early.code}`;
    process.stderr.write(`acp-driver: the agent ${how} before the turn ended (${error?.message ?? error})\n`);
    emit({ type: 'acp.agent-exited', message: `the agent ${how}`, code: early.code, signal: early.signal });
  } else {
    exitCode = 1;
    emit({ type: 'acp.error', message: error?.message ?? String(error), ...(error?.code !== undefined ? { code: error.code } : {}), ...(error?.data !== undefined ? { data: error.data } : {}) });
  }
}
flushTrace();
host?.close();
agent.stdin.end();
const exited = await Promise.race([agentExited, new Promise((resolve) => setTimeout(() => resolve(undefined), 3000).unref())]);
if (exited === undefined) agent.kill('SIGTERM');
finish(exitCode);
