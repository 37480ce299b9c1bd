import { describe, expect, it } from 'vitest';
import { emitWorkspaceActivity, recordDashboardInputs } from '../testing/dashboard-test-kit';
import { applyDashboardInput, createDashboardState, type DashboardInput } from '../index';

function fold(inputs: DashboardInput[], limits: Parameters<typeof createDashboardState>[0] = {}) {
  const state = createDashboardState(limits);
  for (const input of inputs) applyDashboardInput(state, input);
  return state;
}

describe('workspace events in the dashboard state', () => {
  const inputs = recordDashboardInputs((bus) => emitWorkspaceActivity(bus, { start: 5_000 }));

  it('forwards the workspace:* events to the page', () => {
    expect(inputs.map((input) => input.type)).toEqual([
      'workspace:created',
      'workspace:created',
      'workspace:created',
      'workspace:finished',
      'workspace:escaped',
      'workspace:finished',
      'workspace:finished',
    ]);
  });

  it('lists each workspace with its owner, branch, commits, state and diffstat', () => {
    const { workspaces } = fold(inputs);
    expect(workspaces.map((ws) => [ws.owner, ws.branch, ws.status, ws.baseCommit.slice(0, 8), ws.headCommit?.slice(0, 8)])).toEqual([
      ['alice', 'troupe/team-alice-c1', 'finished', '01234567', 'fedcba98'],
      ['bob', 'troupe/team-bob-c1', 'escaped', '01234567', 'fedcba98'],
      ['carol', 'troupe/team-carol-c1', 'removed', '01234567', '01234567'],
    ]);
    expect(workspaces[0]).toMatchObject({
      repo: '/repo',
      uncommitted: true,
      committed: false,
      diffTruncated: false,
      diffstat: { files: [{ file: 'notes.md', insertions: 2, deletions: 0 }], insertions: 2, deletions: 0, filesOmitted: 0 },
      createdAt: 5_000,
      updatedAt: 5_010,
    });
    expect(workspaces[1]?.escape).toEqual({ changed: ['status'], message: expect.stringContaining('stray.txt') });
    expect(workspaces[1]?.diffstat?.files).toContainEqual({ file: 'logo.png', insertions: -1, deletions: -1 });
    // The state never carries a diff: pages fetch it.
    expect(JSON.stringify(workspaces)).not.toContain('+first');
  });

  it('is running between created and finished, and shows a finished one it never saw created', () => {
    const running = fold(inputs.slice(0, 3));
    expect(running.workspaces.map((ws) => ws.status)).toEqual(['running', 'running', 'running']);
    expect(running.workspaces[0]?.diffstat).toBeUndefined();
    const late = fold(inputs.slice(3, 4));
    expect(late.workspaces).toMatchObject([{ name: 'team-alice-c1', owner: 'alice', status: 'finished', createdAt: 5_010 }]);
  });

  it('keeps the last limits.workspaces workspaces and limits.workspaceFiles files of each', () => {
    const state = fold(inputs, { limits: { workspaces: 2, workspaceFiles: 1 } });
    expect(state.workspaces.map((ws) => ws.owner)).toEqual(['bob', 'carol']);
    expect(state.workspaces[0]?.diffstat).toEqual({ files: [{ file: 'src.ts', insertions: 1, deletions: 0 }], insertions: 1, deletions: 0, filesOmitted: 1 });
  });

  it('ignores malformed workspace payloads without throwing', () => {
    const state = createDashboardState();
    for (const payload of [null, 'text', { owner: 'x' }, { name: 42 }]) {
      applyDashboardInput(state, { type: 'workspace:finished', timestamp: 1, payload });
      applyDashboardInput(state, { type: 'workspace:escaped', timestamp: 1, payload });
    }
    applyDashboardInput(state, { type: 'workspace:finished', timestamp: 2, payload: { name: 'w', diffstat: { files: [{ file: 3 }, 'x', { file: 'ok' }] } } });
    expect(state.workspaces).toMatchObject([{ name: 'w', status: 'finished', diffstat: { files: [{ file: 'ok', insertions: 0, deletions: 0 }], insertions: 0, deletions: 0 } }]);
    expect(state.seq).toBe(9);
  });
});
