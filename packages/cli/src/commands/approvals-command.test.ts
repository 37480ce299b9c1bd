import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalStore, decideToolUse, deferTo, type ToolUseRequest } from '@troupe/core';
import { openSqliteStore } from '@troupe/store-sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliCaptured, tempWorkspace } from '../testing/cli-test-kit';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function workspace(): string {
  const { dir, cleanup } = tempWorkspace();
  cleanups.push(cleanup);
  return dir;
}

/** The store a host process defers to: the workspace's `.troupe/troupe.db`. */
function hostApprovals(dir: string): ApprovalStore {
  mkdirSync(join(dir, '.troupe'), { recursive: true });
  const store = openSqliteStore(join(dir, '.troupe', 'troupe.db'));
  cleanups.push(() => store.close());
  return new ApprovalStore(store, { pollMs: 10 });
}

function call(overrides: Partial<ToolUseRequest> = {}): ToolUseRequest {
  return { id: 'toolu_1', agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', input: { command: 'git push origin main' }, target: 'git push origin main', sessionId: 'sess-1', signal: new AbortController().signal, ...overrides };
}

async function pending(approvals: ApprovalStore): Promise<string> {
  for (let i = 0; i < 500; i++) {
    const [first] = await approvals.listPending();
    if (first) return first.id;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('nothing became pending');
}

describe('troupe approvals / approve / deny', () => {
  it('lists the pending calls without their inputs, and approve lets the waiting call run', async () => {
    const dir = workspace();
    const approvals = hostApprovals(dir);
    const verdict = decideToolUse(call(), { canUseTool: () => ({ behavior: 'defer', reason: 'pushes need a human' }), ...deferTo(approvals) });
    const id = await pending(approvals);

    const listed = await runCliCaptured(['approvals', '-w', dir]);
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split('\n');
    expect(lines[0]).toBe(`1 tool call waiting for an approval in ${join(dir, '.troupe', 'troupe.db')}:`);
    expect(lines[1]).toMatch(new RegExp(`^${id}  coder  Bash \\(execute\\)  git push origin main  waiting \\d+ s$`));
    expect(lines[2]).toBe('  deferred: pushes need a human');
    const json = JSON.parse((await runCliCaptured(['approvals', '-w', dir, '--json'])).stdout) as Record<string, unknown>[];
    expect(json).toEqual([expect.objectContaining({ id, callId: 'toolu_1', tool: 'Bash', sessionId: 'sess-1' })]);
    expect(json[0]).not.toHaveProperty('input');

    const approved = await runCliCaptured(['approve', id, '-w', dir, '--by', 'alice', '--reason', 'release day']);
    expect(approved).toEqual({ code: 0, stdout: `Approved ${id} (Bash) as alice.\n`, stderr: '' });
    expect(await verdict).toMatchObject({ behavior: 'allow', input: { command: 'git push origin main' }, record: { decidedBy: 'approval' } });
    expect(await approvals.listAudit()).toEqual([expect.objectContaining({ approvalId: id, behavior: 'allow', decidedBy: 'alice', reason: 'release day', tool: 'Bash' })]);
    expect((await runCliCaptured(['approvals', '-w', dir])).stdout).toBe(`No tool call is waiting for an approval in ${join(dir, '.troupe', 'troupe.db')}.\n`);

    // Deciding it again fails (exit 1) and says why.
    const twice = await runCliCaptured(['deny', id, '-w', dir, '--reason', 'too late']);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(`Approval ${id} was already decided (allow, by alice).`);
  });

  it('deny needs a reason and the agent is told it; --store names another SQLite file; zh-CN speaks Chinese', async () => {
    const dir = workspace();
    const file = join(dir, 'approvals.db');
    const store = openSqliteStore(file);
    cleanups.push(() => store.close());
    const approvals = new ApprovalStore(store, { pollMs: 10 });
    const verdict = decideToolUse(call(), { canUseTool: () => ({ behavior: 'defer' }), ...deferTo(approvals) });
    const id = await pending(approvals);

    const noReason = await runCliCaptured(['deny', id, '--store', file]);
    expect(noReason.code).toBe(2);
    expect(noReason.stderr).toContain('a denial needs --reason TEXT');
    const zh = await runCliCaptured(['approvals', '--store', file, '--lang', 'zh-CN']);
    expect(zh.stdout).toContain('个工具调用在等待批准');
    const denied = await runCliCaptured(['deny', id, '--store', file, '--reason', 'not on a Friday', '--by', 'bob']);
    expect(denied).toEqual({ code: 0, stdout: `Denied ${id} (Bash) as bob.\n`, stderr: '' });
    expect(await verdict).toMatchObject({ behavior: 'deny', message: 'The tool call was refused by bob: not on a Friday' });
  });

  it('refuses a bad id, a missing one, an unknown one, both --store and --workspace, and a store that does not exist', async () => {
    const dir = workspace();
    expect(await runCliCaptured(['approve', '-w', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('expected the approval id: troupe approve ID') });
    expect(await runCliCaptured(['approve', 'rm -rf', '-w', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('is not an approval id') });
    expect(await runCliCaptured(['approve', 'ap-1-ab', '--store', 'x.db', '-w', dir])).toMatchObject({ code: 2, stderr: expect.stringContaining('not both') });
    expect(await runCliCaptured(['approve', 'ap-1-ab', '-w', dir])).toMatchObject({ code: 1, stderr: expect.stringContaining('no approval store at') });
    expect((await runCliCaptured(['approvals', '-w', dir])).stdout).toContain('No tool call is waiting');
    hostApprovals(dir);
    expect(await runCliCaptured(['approve', 'ap-1-ab', '-w', dir])).toMatchObject({ code: 1, stderr: 'troupe: No pending approval has the id ap-1-ab.\n' });
  });
});
