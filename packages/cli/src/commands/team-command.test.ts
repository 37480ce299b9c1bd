import { parseTeamConfig, type TeamRunResult } from '@troupe/team';
import { describe, expect, it } from 'vitest';
import { CliUsageError } from '../cli-errors';
import { englishCliMessages } from '../i18n/cli-messages';
import { withTeamIsolation, workspaceLines } from './team-command';

const config = parseTeamConfig({
  name: 'pair',
  members: [
    { id: 'ana', name: 'Ana', role: 'coder', type: 'ai', agentConfigId: 'claude' },
    { id: 'bo', name: 'Bo', role: 'reviewer', type: 'ai', agentConfigId: 'codex', isolation: 'none' },
  ],
});

describe('troupe team --isolate', () => {
  it('sets the team-wide isolation, leaving a member that chose its own', () => {
    const isolated = withTeamIsolation(config, 'worktree', englishCliMessages);
    expect(isolated.settings.isolation).toBe('worktree');
    expect(isolated.members.map((member) => member.isolation)).toEqual([undefined, 'none']);
    expect(withTeamIsolation(config, undefined, englishCliMessages)).toBe(config);
    expect(withTeamIsolation(config, 'none', englishCliMessages).settings.isolation).toBe('none');
  });

  it('refuses any other mode, naming it', () => {
    expect(() => withTeamIsolation(config, 'sandbox', englishCliMessages)).toThrow(CliUsageError);
    expect(() => withTeamIsolation(config, 'sandbox', englishCliMessages)).toThrow('--isolate expects "worktree" or "none", got "sandbox"');
  });

  it('prints each isolated member\'s branch, diffstat and where its workspace is kept', () => {
    const workspace = (name: string) => ({ name, path: `/repo/.troupe/workspaces/${name}`, branch: `troupe/${name}`, baseCommit: 'b', repo: '/repo' });
    const changes = (name: string, files: string[], insertions: number) => ({
      branch: `troupe/${name}`,
      baseCommit: 'b',
      headCommit: 'b',
      diff: '',
      diffstat: { files: files.map((file) => ({ file, insertions: 1, deletions: 0 })), insertions, deletions: 0 },
      committed: false,
      uncommitted: files.length > 0,
    });
    const result = {
      workspaces: [
        { memberId: 'ana', workspace: workspace('team-ana-1'), result: changes('team-ana-1', ['a.ts', 'b.ts'], 2), removed: false },
        { memberId: 'bo', workspace: workspace('team-bo-1'), result: changes('team-bo-1', [], 0), removed: true },
        { memberId: 'cy', workspace: workspace('team-cy-1'), removed: false, error: { name: 'InvalidArgumentError', message: 'the workspace folder is gone' } },
      ],
    } as unknown as TeamRunResult;
    expect(workspaceLines(result, englishCliMessages)).toEqual([
      'ana: troupe/team-ana-1, 2 file(s) +2 -0, kept at /repo/.troupe/workspaces/team-ana-1',
      'bo: no change (workspace troupe/team-bo-1 removed)',
      'cy: its workspace could not be read: the workspace folder is gone',
    ]);
    expect(workspaceLines({ workspaces: undefined } as unknown as TeamRunResult, englishCliMessages)).toEqual([]);
  });
});
