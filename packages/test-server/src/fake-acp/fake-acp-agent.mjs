#!/usr/bin/env node
// A stand-in for `gemini --acp` built from the recorded acp-tool-permission
// fixture: it answers initialize and session/new with the recorded responses,
// and for session/prompt asks permission for the recorded write_file call,
// then reports the driver's answer as the assistant text. It prints every
// request it received to stderr (one JSON line each), and exits when stdin closes.
//   --exit-on-initialize N   exit with code N instead of answering initialize
//   --task                   before the write, run a sub-agent the way claude-code-acp reports Claude Code's
//                            Task tool: a tool_call named in _meta.claudeCode.toolName (kind think, no
//                            permission asked), then its tool_call_update completed
//   --ask-task               as --task, but ask permission for the Task first (as claude-code-acp does when
//                            Claude Code's settings say `ask` for it): allowed, it completes; refused, it fails
//   --record FILE            also append each request to FILE, synchronously, before
//                            answering it (stderr and stdout are separate pipes, so a
//                            reader may see the answer before the stderr line)
import { appendFileSync, readFileSync } from 'node:fs';

const recorded = readFileSync(new URL('./acp-tool-permission.stdout.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const exitAt = process.argv.indexOf('--exit-on-initialize');
const exitCode = exitAt === -1 ? undefined : Number(process.argv[exitAt + 1]);
const recordAt = process.argv.indexOf('--record');
const recordFile = recordAt === -1 ? undefined : process.argv[recordAt + 1];
const askTask = process.argv.includes('--ask-task');
const task = askTask || process.argv.includes('--task');
let taskCount = 0;
const sessionId = recorded[1].result.sessionId;
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
let promptId;

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf('\n')) !== -1) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    onMessage(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));

function onMessage(message) {
  process.stderr.write(`${JSON.stringify(message)}\n`);
  if (recordFile !== undefined) appendFileSync(recordFile, `${JSON.stringify(message)}\n`);
  if (message.method === 'initialize') {
    if (exitCode !== undefined) process.exit(exitCode);
    write(recorded[0]);
  } else if (message.method === 'session/new') {
    write(recorded[1]);
    write(recorded[2]); // available_commands_update, before any prompt
  } else if (message.method === 'session/prompt') {
    promptId = message.id;
    if (!task) write(recorded[3]); // session/request_permission (id 0) for write_file
    else writeTask(`toolu_task_${++taskCount}`);
  } else if (message.id === 'task-permission' && message.result) {
    const kind = TASK_OPTIONS.find((option) => option.optionId === message.result.outcome.optionId)?.kind ?? 'cancelled';
    taskUpdate(`toolu_task_${taskCount}`, kind.startsWith('allow') ? TASK_DONE : { sessionUpdate: 'tool_call_update', status: 'failed', rawOutput: 'User refused permission to run tool' });
    write(recorded[3]);
  } else if (message.id === recorded[3].id && message.result) {
    const optionId = message.result.outcome.optionId ?? message.result.outcome.outcome;
    if (optionId === 'proceed_once' || optionId === 'proceed_always') write(recorded[4]); // tool_call_update completed
    write({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `permission: ${optionId}` } } } });
    write({ ...recorded[6], id: promptId });
  }
}

const TASK_OPTIONS = [
  { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];
const TASK_DONE = { sessionUpdate: 'tool_call_update', status: 'completed', rawOutput: [{ type: 'text', text: 'hello.txt is missing' }] };
const taskUpdate = (toolCallId, fields) => write({ jsonrpc: '2.0', method: 'session/update', params: { sessionId, update: { _meta: { claudeCode: { toolName: 'Task' } }, toolCallId, ...fields } } });

// As claude-code-acp 0.16: announced while the input streams (empty), then with the input, then (asked or not) its result.
function writeTask(toolCallId) {
  taskUpdate(toolCallId, { sessionUpdate: 'tool_call', rawInput: {}, status: 'pending', title: 'Task', kind: 'think', content: [] });
  const rawInput = { description: 'Look around', prompt: 'List the files', subagent_type: 'Explore' };
  const fields = { rawInput, status: 'pending', title: 'Look around', kind: 'think', content: [{ type: 'content', content: { type: 'text', text: 'List the files' } }] };
  taskUpdate(toolCallId, { sessionUpdate: 'tool_call', ...fields });
  if (askTask) {
    write({ jsonrpc: '2.0', id: 'task-permission', method: 'session/request_permission', params: { sessionId, options: TASK_OPTIONS, toolCall: { toolCallId, ...fields, _meta: { claudeCode: { toolName: 'Task' } } } } });
    return;
  }
  taskUpdate(toolCallId, TASK_DONE);
  write(recorded[3]);
}
