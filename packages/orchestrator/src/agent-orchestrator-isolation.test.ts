/*
 * isolation: 'worktree': forked sub-agents (scripted CLIs and model agents)
 * each edit files in a git workspace of their own; the parent's fork result
 * carries each one's branch and diff; the parent checkout stays as it was;
 * a sub-agent that writes into the parent checkout fails with a
 * WorkspaceEscapeError; scope 'tree' runs a whole tree in one workspace.
 */
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, type ChatModelV1Request } from '@troupe/core';
import { checkParentUntouched, mergeWorkspace, snapshotParent } from '@troupe/worktree';
import { git, makeTestRepo } from '@troupe/worktree/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { planEnv, toolCallingManager, type CliPlanStep } from './agent-cli-test-helpers';
import { AgentOrchestrator, FORK_RESULT_DIFF_LIMIT, type AgentIsolation, type AgentStrategy, type ForkContext, type ForkResult } from './index';
import { firstUserText, lastUserText, modelAnswering, recordStatusChanges } from './orchestrator-test-helpers';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function repoWith(files: Record<string, string> = { 'README.md': 'hello\n', 'notes.txt': 'one\n' }) {
  const { repo, cleanup } = makeTestRepo(files);
  cleanups.push(cleanup);
  return repo;
}

/** An orchestrator over `repo` whose `writer-a` / `writer-b` CLI strategies write `a.txt` / `b.txt` in their working directory. */
function setup(repo: string, isolation: AgentIsolation, writes: Record<string, CliPlanStep[]> = {}) {
  const cli = toolCallingManager();
  cleanups.push(() => cli.manager.cleanup());
  const orchestrator = new AgentOrchestrator({ model: modelAnswering(() => ({ text: 'unused' })), workspaceRoot: repo, isolation });
  const writer = (type: string, plan: CliPlanStep[]): AgentStrategy => ({
    type,
    systemPrompt: '',
    cli: { manager: cli.manager, configId: 'tool-caller', member: { env: planEnv([...plan, { name: 'task_finish', arguments: { result: `${type} done` } }]) } },
  });
  orchestrator.registerStrategy(writer('writer-a', writes['writer-a'] ?? [{ write: 'a.txt', content: 'from a\n' }]));
  orchestrator.registerStrategy(writer('writer-b', writes['writer-b'] ?? [{ write: 'b.txt', content: 'from b\n' }]));
  const texts: string[] = [];
  orchestrator.bus.on('orchestrator:text-delta', (event) => void texts.push(`${event.payload.agentId}: ${event.payload.text}`));
  const workspaceEvents: Array<{ type: string; owner: string; path?: string }> = [];
  for (const type of ['workspace:created', 'workspace:finished', 'workspace:escaped'] as const) {
    orchestrator.bus.on(type, (event) => void workspaceEvents.push({ type, owner: event.payload.owner, ...('path' in event.payload ? { path: event.payload.path } : {}) }));
  }
  return { ...cli, orchestrator, texts, workspaceEvents };
}

const forkWriters: CliPlanStep = { name: 'fork_agents', arguments: { tasks: [{ task: 'Write a', strategy: 'writer-a' }, { task: 'Write b', strategy: 'writer-b' }] } };

/** The `<sub_agent_result>` block of one agent in a fork result text. */
function block(text: string, agentId: string): string {
  const match = new RegExp(`<sub_agent_result agent="${agentId}"[^>]*>[\\s\\S]*?</sub_agent_result>`).exec(text);
  if (!match) throw new Error(`no result block of ${agentId} in:\n${text}`);
  return match[0];
}

describe('AgentOrchestrator isolation: worktree', () => {
  it('runs two CLI forks in workspaces of their own: each diff holds only its file, the parent gets both diffs, the parent checkout is unchanged', async () => {
    const repo = repoWith();
    const { manager, orchestrator, texts, workspaceEvents } = setup(repo, 'worktree');
    const before = await snapshotParent(repo);
    const result = await orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([forkWriters]) }, task: 'Lead' });
    expect(result.text).toBe('answer to "Lead" after 1 tool call(s)');
    await expect(checkParentUntouched(before)).resolves.toBeDefined();
    expect([existsSync(join(repo, 'a.txt')), existsSync(join(repo, 'b.txt'))]).toEqual([false, false]);

    const forkText = texts.find((text) => text.startsWith('agent-1: fork_agents: '));
    expect(forkText).toBeDefined();
    const a = block(forkText!, 'agent-2');
    const b = block(forkText!, 'agent-3');
    expect(a).toContain('status="completed"');
    expect(a).toContain(' a.txt | +1 -0');
    expect(a).toContain('+from a');
    expect(a).not.toContain('b.txt');
    expect(b).toContain(' b.txt | +1 -0');
    expect(b).toContain('+from b');
    expect(b).not.toContain('a.txt');

    // Each child's branch holds its own file only, committed on top of the parent's HEAD.
    const head = git(repo, 'rev-parse', 'HEAD');
    const branchA = /branch="([^"]+)"/.exec(a)?.[1] ?? '';
    const branchB = /branch="([^"]+)"/.exec(b)?.[1] ?? '';
    expect(branchA).toMatch(/^troupe\//);
    expect(branchB).not.toBe(branchA);
    expect(git(repo, 'diff', '--name-only', head, branchA)).toBe('a.txt');
    expect(git(repo, 'diff', '--name-only', head, branchB)).toBe('b.txt');

    // Each CLI ran in its workspace; the lead ran in the parent checkout (no workspace).
    const created = workspaceEvents.filter((event) => event.type === 'workspace:created');
    expect(created.map((event) => event.owner).sort()).toEqual(['agent-2', 'agent-3']);
    expect(new Set(created.map((event) => event.path)).size).toBe(2);
    expect(workspaceEvents.filter((event) => event.type === 'workspace:finished').map((event) => event.owner).sort()).toEqual(['agent-2', 'agent-3']);
    expect(orchestrator.getAgentTree().counts).toMatchObject({ completed: 3, error: 0 });

    // Each node carries its workspace, which @troupe/worktree merges as it is.
    const coder = orchestrator.getAgent('agent-2').workspace!;
    expect([coder.branch, coder.repo, coder.committed, coder.uncommitted, coder.removed]).toEqual([branchA, repo, true, false, false]);
    git(repo, 'branch', 'review');
    await expect(mergeWorkspace(coder, { into: 'review', strategy: 'squash' })).resolves.toMatchObject({ ok: true });
    expect(git(repo, 'show', 'review:a.txt')).toBe('from a');
  });

  it('gives model sub-agents their workspace as the tools’ root; the parent’s tool result carries each diff', async () => {
    const repo = repoWith();
    let forkResultText = '';
    const lead = modelAnswering((request: ChatModelV1Request, call) => {
      if (call === 0) return { toolCalls: [{ id: 'fork', name: 'fork_agents', input: { tasks: [{ task: 'notes.txt' }, { task: 'todo.txt' }] } }] };
      const tool = request.messages.find((message) => message.role === 'tool');
      forkResultText = tool?.role === 'tool' ? tool.results.map((entry) => entry.content).join('\n') : '';
      return { text: 'merged' };
    });
    // Each sub-agent writes the file named by its task, then finishes.
    const worker = modelAnswering((request) =>
      request.messages.every((message) => message.role !== 'tool')
        ? { toolCalls: [{ name: 'write_file', input: { path: firstUserText(request), content: `edited ${firstUserText(request)}\n` } }] }
        : { toolCalls: [{ name: 'task_finish', input: { result: `wrote ${firstUserText(request)}` } }] },
    );
    const orchestrator = new AgentOrchestrator({ model: worker, workspaceRoot: repo, isolation: { mode: 'worktree', commit: true } });
    const before = await snapshotParent(repo);
    const id = orchestrator.createAgent({ task: 'Edit two files' }, { type: 'main', systemPrompt: 'Lead.', model: lead });
    const result = await orchestrator.runAgent(id);
    expect(result.text).toBe('merged');
    await expect(checkParentUntouched(before)).resolves.toBeDefined();
    expect(git(repo, 'show', 'HEAD:notes.txt')).toBe('one');

    expect(block(forkResultText, 'agent-2')).toContain('-one\n+edited notes.txt');
    expect(block(forkResultText, 'agent-2')).not.toContain('todo.txt');
    expect(block(forkResultText, 'agent-3')).toContain('+edited todo.txt');
    expect(block(forkResultText, 'agent-3')).not.toContain('notes.txt');
    const head = git(repo, 'rev-parse', 'HEAD');
    for (const [agentId, file] of [['agent-2', 'notes.txt'], ['agent-3', 'todo.txt']] as const) {
      const branch = /branch="([^"]+)"/.exec(block(forkResultText, agentId))?.[1] ?? '';
      expect(git(repo, 'diff', '--name-only', head, branch)).toBe(file);
    }
  });

  it('fails a sub-agent that writes into the parent checkout with a WorkspaceEscapeError, reported in the parent’s tool result and as workspace:escaped', async () => {
    const repo = repoWith();
    const { manager, orchestrator, texts, workspaceEvents } = setup(repo, 'worktree', { 'writer-a': [{ write: join(repo, 'escaped.txt'), content: 'outside\n' }] });
    const fork: CliPlanStep = { name: 'fork_agents', arguments: { tasks: [{ task: 'Write outside', strategy: 'writer-a' }] } };
    const result = await orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([fork]) }, task: 'Lead' });
    expect(result.status).toBe('completed');

    const child = orchestrator.getAgent('agent-2');
    expect(child.status).toBe('error');
    expect(child.error).toMatchObject({ name: 'WorkspaceEscapeError' });
    expect(child.error?.message).toContain('escaped.txt');
    const forkText = texts.find((text) => text.startsWith('agent-1: fork_agents: '))!;
    expect(forkText).toContain('1 sub-agent finished: 0 completed, 1 failed.');
    expect(block(forkText, 'agent-2')).toMatch(/status="error"[^]*WorkspaceEscapeError: The parent checkout .* changed outside its workspaces \(status\)/);
    expect(workspaceEvents.filter((event) => event.type === 'workspace:escaped').map((event) => event.owner)).toEqual(['agent-2']);
  });

  it("scope 'tree' runs the root and all it forks in one workspace, separate from the parent checkout; the root's result carries the diff", async () => {
    const repo = repoWith();
    const { manager, orchestrator, workspaceEvents } = setup(repo, { mode: 'worktree', scope: 'tree' });
    const before = await snapshotParent(repo);
    const result = await orchestrator.runCliAgent({
      manager,
      configId: 'tool-caller',
      member: { env: planEnv([{ write: 'root.txt', content: 'from root\n' }, forkWriters]) },
      task: 'Lead',
    });
    await expect(checkParentUntouched(before)).resolves.toBeDefined();
    const created = workspaceEvents.filter((event) => event.type === 'workspace:created');
    expect(created.map((event) => event.owner)).toEqual(['agent-1']);
    expect(result.workspace?.diffstat.files.map((file) => file.file).sort()).toEqual(['a.txt', 'b.txt', 'root.txt']);
    expect(result.workspace?.diff).toContain('+from a');
    expect(result.workspace?.path).toBe(created[0]?.path);
    expect(git(repo, 'diff', '--name-only', git(repo, 'rev-parse', 'HEAD'), result.workspace!.branch).split('\n')).toEqual(['a.txt', 'b.txt', 'root.txt']);
    expect(orchestrator.getAgentTree().counts).toMatchObject({ completed: 3, error: 0 });
  });

  it('a fork’s own isolation wins: requestFork with worktree gets ForkResult.workspace (whole diff; the message cuts it, naming the branch), with none runs in place', async () => {
    const repo = repoWith();
    const big = Array.from({ length: 3_000 }, (_, line) => `line ${line} of a long file`).join('\n');
    const worker = modelAnswering((request) =>
      request.messages.every((message) => message.role !== 'tool')
        ? { toolCalls: [{ name: 'write_file', input: { path: firstUserText(request), content: `${big}\n` } }] }
        : { toolCalls: [{ name: 'task_finish', input: { result: 'written' } }] },
    );
    const forkOnce = async (orchestrator: AgentOrchestrator, file: string, context: ForkContext) => {
      const parentModel = modelAnswering((_request, call) => (call === 0 ? { text: ['Thinking ', 'more'], chunkDelayMs: 5 } : { text: 'done' }), 2);
      let fork: Promise<ForkResult> | undefined;
      const id = orchestrator.createAgent({ task: 'think' }, { type: 'main', systemPrompt: '', model: parentModel });
      await orchestrator.runAgent(id, { sinks: { text: (delta) => void (delta === 'Thinking ' && (fork = orchestrator.requestFork(id, [{ task: file }], context))) } });
      return { forkResult: await fork!, injected: lastUserText(parentModel.requests[1]!) };
    };

    const isolated = new AgentOrchestrator({ model: worker, workspaceRoot: repo });
    const { forkResult, injected } = await forkOnce(isolated, 'big.txt', { isolation: 'worktree' });
    const workspace = forkResult.results[0]?.workspace;
    expect(workspace?.diffstat).toEqual({ files: [{ file: 'big.txt', insertions: 3_000, deletions: 0 }], insertions: 3_000, deletions: 0 });
    expect(workspace?.diff).toContain('+line 2999 of a long file');
    expect(workspace!.diff.length).toBeGreaterThan(FORK_RESULT_DIFF_LIMIT);
    expect(injected).toContain('+line 0 of a long file');
    expect(injected).not.toContain('+line 2999 of a long file');
    expect(injected).toContain(`[diff cut at ${FORK_RESULT_DIFF_LIMIT} of ${workspace!.diff.length} characters; the whole change: git diff ${workspace!.baseCommit} ${workspace!.branch}]`);
    expect(git(repo, 'show', `${workspace!.branch}:big.txt`).split('\n')).toHaveLength(3_000);
    expect(existsSync(join(repo, 'big.txt'))).toBe(false);

    // isolation 'none' on the fork wins over the orchestrator's 'worktree': the sub-agent writes in the checkout itself.
    const inPlace = new AgentOrchestrator({ model: worker, workspaceRoot: repo, isolation: 'worktree' });
    const created: string[] = [];
    inPlace.bus.on('workspace:created', (event) => void created.push(event.payload.owner));
    const none = await forkOnce(inPlace, 'here.txt', { isolation: 'none' });
    expect(none.forkResult.results[0]).toMatchObject({ status: 'completed' });
    expect(none.forkResult.results[0]?.workspace).toBeUndefined();
    expect(created).toEqual([]);
    expect(existsSync(join(repo, 'here.txt'))).toBe(true);
  });

  it('rejects isolation over a folder that is not a git checkout (or a bare repository) before any agent starts', async () => {
    const plain = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-not-a-repo-')));
    cleanups.push(() => rmSync(plain, { recursive: true, force: true }));
    const bare = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-bare-')));
    cleanups.push(() => rmSync(bare, { recursive: true, force: true }));
    git(bare, 'init', '--quiet', '--bare');
    for (const [root, why] of [
      [plain, 'is not in a git repository'],
      [bare, 'is a bare repository'],
    ] as const) {
      const { manager, orchestrator } = setup(root, 'worktree');
      const changes = recordStatusChanges(orchestrator);
      const run = orchestrator.runCliAgent({ manager, configId: 'tool-caller', member: { env: planEnv([forkWriters]) }, task: 'Lead' });
      await expect(run).rejects.toThrow(InvalidArgumentError);
      await expect(run).rejects.toThrow(`"workspaceRoot": isolation 'worktree' makes each workspace from a git checkout, but ${root} ${why}`);
      expect(changes).toEqual([]);
      expect(orchestrator.getAgentStatus('agent-1')).toBe('idle');
    }
    // A fork's own isolation over a folder that is no checkout: the fork fails before any sub-agent is made.
    const parentModel = modelAnswering((_request, call) => (call === 0 ? { text: ['Thinking ', 'more'], chunkDelayMs: 5 } : { text: 'done' }), 2);
    const orchestrator = new AgentOrchestrator({ model: parentModel, workspaceRoot: plain });
    const forks: Array<Promise<unknown>> = [];
    const failure = (fork: Promise<ForkResult>) => fork.then(() => 'no error', (error: unknown) => error);
    const id = orchestrator.createAgent({ task: 'think' }, { type: 'main', systemPrompt: '' });
    const sinks = {
      text: (delta: string) => {
        if (delta !== 'Thinking ') return;
        forks.push(failure(orchestrator.requestFork(id, [{ task: 'x' }], { isolation: 'worktree' })));
        forks.push(failure(orchestrator.requestFork(id, [{ task: 'y' }], { isolation: { mode: 'worktree', scope: 'tree' } })));
      },
    };
    await orchestrator.runAgent(id, { sinks });
    const [noRepo, treeFork] = await Promise.all(forks);
    expect(noRepo).toBeInstanceOf(InvalidArgumentError);
    expect((noRepo as Error).message).toContain(`"workspaceRoot": isolation 'worktree' makes each workspace from a git checkout, but ${plain} is not in a git repository`);
    expect(treeFork).toBeInstanceOf(InvalidArgumentError);
    expect((treeFork as Error).message).toMatch(/"context\.isolation\.scope": 'tree' \(one workspace per agent tree\) is the orchestrator's option/);
    expect(orchestrator.getAgentTree().roots[0]?.children).toEqual([]);
    expect(() => new AgentOrchestrator({ isolation: 'worktrees' as never })).toThrow(/"isolation": expected 'none', 'worktree' or \{ mode: 'worktree'/);
    expect(() => new AgentOrchestrator({ isolation: { mode: 'worktree', keep: 'sometimes' as never } })).toThrow(/"isolation\.keep"/);
  });
});
