// Test helpers for the dashboard's own tests (not exported from the package).
import { get, request } from 'node:http';
import { defineAgent } from '@troupe/core/agent-runtime';
import {
  EventBus,
  MemoryStore,
  MessageStore,
  type AgentOutput,
  type AnyTroupeEvent,
  type TroupeEvent,
  type TroupeEventPayloads,
  type TroupeEventType,
} from '@troupe/core';
import { Looper } from '@troupe/looper';
import type { BestOfNScorecard } from '@troupe/best-of-n';
import type {} from '@troupe/orchestrator';
import type {} from '@troupe/pipeline';
import type {} from '@troupe/team';
import type {} from '@troupe/worktree';
import { applyDashboardInput, isDashboardInput } from '../state/dashboard-reducer';
import { createDashboardState, type DashboardInput, type DashboardState } from '../state/dashboard-state';

/** The inputs a bus produces while `run` emits, as the server forwards them to pages. */
export function recordDashboardInputs(run: (bus: EventBus) => void): DashboardInput[] {
  const bus = new EventBus();
  const inputs: DashboardInput[] = [];
  bus.on('*', (event) => {
    const input = { type: event.type, timestamp: event.timestamp, source: event.source, payload: event.payload };
    if (isDashboardInput(input)) inputs.push(input);
  });
  run(bus);
  return inputs;
}

/** The state after folding `inputs` into a fresh one (with `options`' limits). */
export function foldDashboardInputs(inputs: DashboardInput[], options: Parameters<typeof createDashboardState>[0] = {}): DashboardState {
  const state = createDashboardState(options);
  for (const input of inputs) applyDashboardInput(state, input);
  return state;
}

/** A real Looper on a bus and a store, whose Coder waits until the test releases it. */
export function gatedLooper(options: { store?: MemoryStore; maxIterations?: number } = {}) {
  const bus = new EventBus();
  const store = options.store ?? new MemoryStore();
  const messages = new MessageStore(bus);
  const waiting: Array<(output: AgentOutput) => void> = [];
  const started: Array<() => void> = [];
  const coder = defineAgent({
    id: 'coder',
    description: 'gated by the test',
    run: (_input, { signal }) =>
      new Promise<AgentOutput>((resolve, reject) => {
        waiting.push(resolve);
        started.shift()?.();
        signal.addEventListener('abort', () => reject(signal.reason));
      }),
  });
  const review = defineAgent({
    id: 'review',
    description: 'always healthy',
    run: () => ({ text: 'Health normal', data: { health: 'normal', summary: 'All good.', findings: [] } }),
  });
  const looper = new Looper({ coder, review, eventBus: bus, messages, store, maxIterations: options.maxIterations ?? 2 });
  return {
    bus,
    store,
    looper,
    /** Resolves once the Coder is waiting. */
    coderWaiting: () => new Promise<void>((resolve) => (waiting.length > 0 ? resolve() : started.push(resolve))),
    release: (text = 'Done.') => waiting.shift()?.({ text }),
  };
}

/** An HTTP request to the dashboard; resolves with status and body. */
export function call(url: string, options: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Reads the dashboard's event stream: the snapshot, then inputs as they come. */
export function openStream(url: string) {
  const inputs: DashboardInput[] = [];
  const waiters: Array<{ test: (input: DashboardInput) => boolean; resolve: (input: DashboardInput) => void }> = [];
  let snapshot: (value: DashboardState) => void = () => {};
  const snapshotReady = new Promise<DashboardState>((resolve) => (snapshot = resolve));
  const req = get(url, (response) => {
    let buffer = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (!event || data === undefined) continue;
        if (event === 'snapshot') snapshot(JSON.parse(data) as DashboardState);
        if (event === 'input') {
          const input = JSON.parse(data) as DashboardInput;
          inputs.push(input);
          for (const waiter of [...waiters]) {
            if (!waiter.test(input)) continue;
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(input);
          }
        }
      }
    });
  });
  return {
    inputs,
    snapshot: snapshotReady,
    /** Resolves with the first input (seen or to come) that passes `test`. */
    next: (test: (input: DashboardInput) => boolean) =>
      new Promise<DashboardInput>((resolve) => {
        const seen = inputs.find(test);
        if (seen) resolve(seen);
        else waiters.push({ test, resolve });
      }),
    close: () => req.destroy(),
  };
}

/**
 * Emits, with real payloads, an orchestrator tree (a main agent that forked two
 * sub-agents), a team conversation, a two-batch pipeline and usage records —
 * `at` gives each event's time.
 */
export function emitSampleActivity(bus: EventBus, start = Date.now()): void {
  let clock = start;
  const at = (ms: number) => (clock = start + ms);
  const emit = <T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T], time: number) =>
    bus.publish({ type, version: 1, timestamp: time, source: 'sample', payload } as TroupeEvent<T> as AnyTroupeEvent);
  const agent = { rootId: 'main', strategyType: 'default' };
  emit('orchestrator:agent-created', { ...agent, agentId: 'main', kind: 'main', attempt: 1, task: 'Port the CLI to Rust' }, at(0));
  emit('orchestrator:agent-status-changed', { ...agent, agentId: 'main', kind: 'main', from: 'idle', to: 'forking', timestamp: clock }, at(10));
  emit('orchestrator:fork-started', { forkId: 'f1', parentId: 'main', agentIds: ['main/1', 'main/2'] }, at(11));
  for (const [index, id] of ['main/1', 'main/2'].entries()) {
    emit('orchestrator:agent-created', { ...agent, agentId: id, parentId: 'main', kind: 'sub', attempt: 1, task: index === 0 ? 'Port the parser' : 'Port the printer' }, at(12));
    emit('orchestrator:agent-status-changed', { ...agent, agentId: id, parentId: 'main', kind: 'sub', from: 'idle', to: 'running', timestamp: clock }, at(13));
  }
  emit('orchestrator:tool-executed', { agentId: 'main/1', toolCallId: 't1', toolName: 'read_file', source: 'native', success: true, durationMs: 3 }, at(20));
  emit('orchestrator:agent-status-changed', { ...agent, agentId: 'main/1', parentId: 'main', kind: 'sub', from: 'running', to: 'completed', timestamp: clock }, at(40));

  const team = { teamName: 'reviewers', channelId: 'team', conversationId: 'c1' };
  emit('team:turn-started', { ...team, turn: 1, memberId: 'ana', memberName: 'Ana', memberType: 'ai', cause: 'start' }, at(50));
  const message = (seq: number, speakerName: string, content: string, next: string[]) => ({
    id: `m${seq}`, seq, turn: seq, kind: 'member' as const, speakerName, speakerType: 'ai' as const, content, isDone: false, next, timestamp: clock,
  });
  emit('team:message', { ...team, message: message(1, 'Ana', 'The parser port looks right. [NEXT: Bo]', ['Bo']) }, at(60));
  emit('team:turn-started', { ...team, turn: 2, memberId: 'bo', memberName: 'Bo', memberType: 'ai', cause: 'next-marker' }, at(61));
  emit('team:message', { ...team, message: message(2, 'Bo', 'Agreed; the printer needs tests.', []) }, at(70));

  const thread = { channelId: 'pipeline:t1', threadId: 't1' };
  emit('pipeline:run-started', { ...thread, runId: 'p1', mode: 'concurrent', role: 'both' }, at(100));
  emit('pipeline:batch-state-changed', { ...thread, batchIndex: 0, status: 'planning' }, at(100));
  emit('pipeline:batch-planned', { ...thread, batchIndex: 0, taskCount: 2, totalBatches: null }, at(300));
  emit('pipeline:batch-state-changed', { ...thread, batchIndex: 1, status: 'planning' }, at(300));
  emit('pipeline:task-started', { ...thread, batchIndex: 0, taskIndex: 0, taskId: 'a', attempt: 1 }, at(310));
  emit('pipeline:batch-planned', { ...thread, batchIndex: 1, taskCount: 1, totalBatches: 2 }, at(500));
  emit('pipeline:planning-completed', { ...thread, totalBatches: 2 }, at(500));
  emit('pipeline:batch-executed', { ...thread, batchIndex: 0, status: 'executed', taskCount: 2, executedTasks: 2, failedTasks: 0, skipped: false }, at(700));
  emit('pipeline:task-started', { ...thread, batchIndex: 1, taskIndex: 0, taskId: 'b', attempt: 1 }, at(710));

  emit('agent:part', { roleId: 'coder', part: { type: 'usage', usage: { inputTokens: 12_400, outputTokens: 830, cachedInputTokens: 9000, costUsd: 0.0412 } } }, at(720));
  emit('agent:turn-completed', { roleId: 'coder', status: 'completed', durationMs: 4000 }, at(721));
  emit('agent:part', { roleId: 'review', part: { type: 'usage', usage: { inputTokens: 3100, outputTokens: 240 } } }, at(730));
  emit('agent:turn-completed', { roleId: 'review', status: 'completed', durationMs: 2000 }, at(731));
}

/** A unified diff adding `lines` to `file`. */
export function sampleDiff(file: string, lines: string[]): string {
  return [`diff --git a/${file} b/${file}`, 'new file mode 100644', '--- /dev/null', `+++ b/${file}`, `@@ -0,0 +1,${lines.length} @@`, ...lines.map((line) => `+${line}`), ''].join('\n');
}

/**
 * Emits, with real payloads, three workspaces: `alice`'s finished with a diff (`aliceDiff`), `bob`'s that escaped
 * then finished, and `carol`'s finished without a change (removed).
 */
export function emitWorkspaceActivity(bus: EventBus, options: { start?: number; aliceDiff?: string; aliceDiffTruncated?: boolean } = {}): void {
  const start = options.start ?? Date.now();
  const emit = <T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T], time: number) =>
    bus.publish({ type, version: 1, timestamp: start + time, source: 'sample', payload } as TroupeEvent<T> as AnyTroupeEvent);
  const base = '0123456789abcdef0123456789abcdef01234567';
  const repo = '/repo';
  for (const [index, owner] of ['alice', 'bob', 'carol'].entries()) {
    emit('workspace:created', { name: `team-${owner}-c1`, owner, path: `${repo}/.troupe/workspaces/team-${owner}-c1`, branch: `troupe/team-${owner}-c1`, baseCommit: base, repo }, index);
  }
  const aliceDiff = options.aliceDiff ?? sampleDiff('notes.md', ['first', 'second']);
  const finished = (owner: string, diff: string, files: Array<{ file: string; insertions: number; deletions: number }>, extra: { removed?: boolean; diffTruncated?: boolean } = {}) => ({
    name: `team-${owner}-c1`,
    owner,
    branch: `troupe/team-${owner}-c1`,
    baseCommit: base,
    headCommit: diff === '' ? base : 'fedcba9876543210fedcba9876543210fedcba98',
    committed: false,
    uncommitted: diff !== '',
    // Binary files count -1 and add nothing to the totals, as in `workspaceResult`.
    diffstat: { files, insertions: files.reduce((sum, file) => sum + Math.max(0, file.insertions), 0), deletions: files.reduce((sum, file) => sum + Math.max(0, file.deletions), 0) },
    diff,
    diffTruncated: extra.diffTruncated ?? false,
    removed: extra.removed ?? false,
  });
  emit('workspace:finished', finished('alice', aliceDiff, [{ file: 'notes.md', insertions: 2, deletions: 0 }], { diffTruncated: options.aliceDiffTruncated ?? false }), 10);
  emit('workspace:escaped', { name: 'team-bob-c1', owner: 'bob', repo, changed: ['status'], message: 'The parent checkout /repo changed outside its workspaces (status): status +?? stray.txt' }, 20);
  emit('workspace:finished', finished('bob', sampleDiff('src.ts', ['x']), [{ file: 'src.ts', insertions: 1, deletions: 0 }, { file: 'logo.png', insertions: -1, deletions: -1 }]), 30);
  emit('workspace:finished', finished('carol', '', [], { removed: true }), 40);
}

/**
 * A best-of-N run judged over three attempts, as `@troupe/best-of-n` emits it: `claude-1` passes and wins (the
 * judge's reasons), `codex-1` fails its tests, `gemini-1` errors; then the winner's `workspace:finished` with its
 * diff (`winnerDiff`). With `finish: false` the run stops after the attempts started (a run in progress).
 */
export function emitBestOfNActivity(bus: EventBus, options: { start?: number; winnerDiff?: string; finish?: boolean } = {}): void {
  const start = options.start ?? Date.now();
  const emit = <T extends TroupeEventType>(type: T, payload: TroupeEventPayloads[T], time: number) =>
    bus.publish({ type, version: 1, timestamp: start + time, source: 'sample', payload } as TroupeEvent<T> as AnyTroupeEvent);
  const runId = 'bon-run-1';
  const attempts = [
    { id: 'claude-1', agent: 'claude' },
    { id: 'codex-1', agent: 'codex' },
    { id: 'gemini-1', agent: 'gemini' },
  ];
  emit('best-of-n:run-started', { runId, repo: '/repo', attempts, select: 'judge', mode: 'all', concurrency: 2, timestamp: start }, 0);
  for (const [index, { id, agent }] of attempts.entries()) {
    emit('best-of-n:attempt-started', { runId, id, agent, workspace: `${runId}-${id}`, branch: `troupe/${runId}-${id}`, timestamp: start + 1 + index }, 1 + index);
  }
  if (options.finish === false) return;
  const card = (id: string, agent: string, fields: Partial<BestOfNScorecard>): BestOfNScorecard => ({
    id,
    agent,
    status: 'passed',
    passed: true,
    tested: true,
    tokens: { input: 1200, output: 300, total: 1500 },
    costUsd: 0.0123,
    wallTimeMs: 4200,
    diffstat: { files: 1, insertions: 2, deletions: 0 },
    branch: `troupe/${runId}-${id}`,
    kept: false,
    winner: false,
    ...fields,
  });
  const cards = [
    card('claude-1', 'claude', { test: { exitCode: 0, durationMs: 300, outputTail: 'ok' } }),
    card('codex-1', 'codex', { status: 'failed', passed: false, tokens: { input: 2000, output: 500, total: 2500 }, costUsd: 0.02, wallTimeMs: 65_000, diffstat: { files: 2, insertions: 10, deletions: 3 }, test: { exitCode: 1, durationMs: 400, outputTail: 'FAIL dates.test.ts' } }),
    card('gemini-1', 'gemini', { status: 'error', passed: false, tested: false, tokens: { input: 0, output: 0, total: 0 }, costUsd: 0, wallTimeMs: 900, diffstat: { files: 0, insertions: 0, deletions: 0 }, error: { name: 'ProcessError', message: 'gemini exited with code 1' } }),
  ];
  for (const [index, scorecard] of cards.entries()) emit('best-of-n:attempt-finished', { runId, scorecard, timestamp: start + 10 + index }, 10 + index);
  const judged = cards.map((scorecard) => ({ ...scorecard, ...(scorecard.id === 'claude-1' ? { winner: true, kept: true, reasons: 'Smallest diff that passes; keeps the parser pure.' } : { reasons: `${scorecard.id} did not pass.` }) }));
  const base = '0123456789abcdef0123456789abcdef01234567';
  const diff = options.winnerDiff ?? sampleDiff('src/dates.ts', ['fixed', 'parser']);
  emit('workspace:finished', { name: `${runId}-claude-1`, owner: `${runId}/claude-1`, branch: `troupe/${runId}-claude-1`, baseCommit: base, headCommit: 'fedcba9876543210fedcba9876543210fedcba98', committed: true, uncommitted: false, diffstat: { files: [{ file: 'src/dates.ts', insertions: 2, deletions: 0 }], insertions: 2, deletions: 0 }, diff, diffTruncated: false, removed: false }, 20);
  emit('best-of-n:run-finished', { runId, winner: 'claude-1', reasons: 'Smallest diff that passes; keeps the parser pure.', scorecards: judged, durationMs: 70_000, timestamp: start + 30 }, 30);
}
