// Runs an orchestrator on a SQLite session until its fork is half done, prints "ready", and waits to be killed (SIGKILL).
// Usage: node --import tsx --conditions=@troupe/source crash-orchestrator.ts <db path>
import type { ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { openSqliteStore } from '@troupe/store-sqlite';
import { AgentOrchestrator } from '../index';
import { crashTestTools, leadStrategy, TASKS } from './crash-orchestrator-setup';

const store = openSqliteStore(process.argv[2] as string);
const reached = new Set<string>();
let orchestrator: AgentOrchestrator;

/** A model call that never answers: the process is killed during it. */
function hang(what: string): Promise<never> {
  reached.add(what);
  if (reached.has('beta') && reached.has('gamma')) {
    void orchestrator.flush().then(() => process.stdout.write('ready\n'));
  }
  return new Promise<never>(() => setInterval(() => {}, 1_000));
}

const firstUser = (request: ChatModelV1Request) => (request.messages[0]?.role === 'user' ? request.messages[0].content : '');
const sub = createScriptedChatModel({
  responses: Array.from({ length: 10 }, () => (request: ChatModelV1Request) => {
    const task = firstUser(request);
    if (task === 'alpha') return { toolCalls: [{ id: 'finish-alpha', name: 'task_finish', input: { result: 'alpha result' } }] };
    if (task === 'beta' && request.messages.length === 1) return { toolCalls: [{ id: 'echo-beta', name: 'echo', input: { text: 'beta step one' } }] };
    return hang(task);
  }),
});
const lead = createScriptedChatModel({
  responses: [{ toolCalls: [{ id: 'fork-call', name: 'fork_agents', input: { tasks: TASKS.map((task) => ({ task })) } }] }],
});
orchestrator = new AgentOrchestrator({ model: sub, store, sessionId: 'crash', tools: crashTestTools(), maxConcurrency: 2 });
const leadId = orchestrator.createAgent({ task: 'split the work' }, leadStrategy(lead));
void orchestrator.runAgent(leadId);
