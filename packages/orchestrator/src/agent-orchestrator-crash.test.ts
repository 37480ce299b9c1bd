import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ChatModelV1Request } from '@troupe/core';
import { createScriptedChatModel } from '@troupe/core/testing';
import { openSqliteStore } from '@troupe/store-sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { crashTestTools, leadStrategy } from './__fixtures__/crash-orchestrator-setup';
import { AgentOrchestrator, type AgentTreeNode } from './index';
import { firstUserText } from './orchestrator-test-helpers';

const fixture = fileURLToPath(new URL('./__fixtures__/crash-orchestrator.ts', import.meta.url));
const packageDir = fileURLToPath(new URL('..', import.meta.url));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-orchestrator-crash-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the fixture until it says "ready", then kills it with SIGKILL (no cleanup of any kind runs). */
async function runAndKill(path: string): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', fixture, path], { cwd: packageDir, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  let stdout = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the crash fixture exited (${String(code)}) before it was ready:\n${stderr}`)));
  });
  child.kill('SIGKILL');
  await once(child, 'exit');
  return child.signalCode;
}

function statuses(node: AgentTreeNode): unknown {
  return { task: node.task, status: node.status, result: node.result, children: node.children.map(statuses) };
}

describe('AgentOrchestrator on a SQLite session survives a SIGKILL', () => {
  it('a new process resumes the tree: the finished sub-agent stays finished, the running ones restart from their last messages, the lead gets every result', async () => {
    const path = join(dir, 'session.db');
    expect(await runAndKill(path)).toBe('SIGKILL');

    // What the killed process left: a lead forking, alpha done, beta one tool step in, gamma started.
    const peek = openSqliteStore(path, { readonly: true });
    const stored = await peek.list(['orchestrator', 'crash', 'agents']);
    expect(stored.map((item) => [item.key, (item.value as { status: string }).status])).toEqual([
      ['agent-1', 'forking'],
      ['agent-2', 'completed'],
      ['agent-3', 'running'],
      ['agent-4', 'running'],
    ]);
    await peek.close();

    const store = openSqliteStore(path);
    try {
      const sub = createScriptedChatModel({
        responses: Array.from({ length: 4 }, () => (request: ChatModelV1Request) => ({
          toolCalls: [{ name: 'task_finish', input: { result: `${firstUserText(request)} finished after ${request.messages.length} messages` } }],
        })),
      });
      const lead = createScriptedChatModel({ responses: [{ text: 'Merged all three.' }] });
      const orchestrator = new AgentOrchestrator({ model: sub, store, sessionId: 'crash', tools: crashTestTools(), maxConcurrency: 2, strategies: [leadStrategy(lead)] });
      const report = await orchestrator.resume();
      expect(report).toMatchObject({ agents: 4, ended: ['agent-2'], restarted: ['agent-1', 'agent-3', 'agent-4'], forks: ['fork-1'] });
      await expect(report.runs.get('agent-1')).resolves.toMatchObject({ status: 'completed', text: 'Merged all three.' });

      // alpha was not asked again; beta went on from its echo step; gamma from its task.
      expect(sub.requests.map((request) => [firstUserText(request), request.messages.length])).toEqual(
        expect.arrayContaining([
          ['beta', 3],
          ['gamma', 1],
        ]),
      );
      expect(sub.requests).toHaveLength(2);
      const beta = sub.requests.find((request) => firstUserText(request) === 'beta') as ChatModelV1Request;
      expect(beta.messages.slice(1)).toEqual([
        { role: 'assistant', content: '', toolCalls: [{ toolCallId: 'echo-beta', toolName: 'echo', input: { text: 'beta step one' } }] },
        { role: 'tool', results: [{ toolCallId: 'echo-beta', toolName: 'echo', content: 'echo: beta step one', isError: false }] },
      ]);
      const forkAnswer = lead.requests[0]?.messages.at(-1);
      expect(forkAnswer?.role === 'tool' && forkAnswer.results[0]?.toolCallId).toBe('fork-call');
      expect(forkAnswer?.role === 'tool' && forkAnswer.results[0]?.content).toMatch(/3 completed, 0 failed[\s\S]*alpha result[\s\S]*beta finished after 3 messages[\s\S]*gamma finished after 1 messages/);
      const tree = orchestrator.getAgentTree().roots.map(statuses);
      expect(tree).toEqual([
        {
          task: 'split the work',
          status: 'completed',
          result: 'Merged all three.',
          children: [
            { task: 'alpha', status: 'completed', result: 'alpha result', children: [] },
            { task: 'beta', status: 'completed', result: 'beta finished after 3 messages', children: [] },
            { task: 'gamma', status: 'completed', result: 'gamma finished after 1 messages', children: [] },
          ],
        },
      ]);
      await orchestrator.flush();

      // And the store now says so: a third process finds everything ended.
      const third = new AgentOrchestrator({ model: sub, store, sessionId: 'crash', tools: crashTestTools() });
      expect(await third.resume()).toMatchObject({ ended: ['agent-1', 'agent-2', 'agent-3', 'agent-4'], restarted: [] });
      expect(third.getAgentTree().roots.map(statuses)).toEqual(tree);
    } finally {
      await store.close();
    }
  });
});
