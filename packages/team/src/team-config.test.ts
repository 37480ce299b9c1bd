import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_TEAM_CONFIG_PATH, loadTeamConfig, parseTeamConfig, resolveTeamMembers } from './load-team-config';

const valid = {
  name: 'api-review',
  members: [
    { id: 'max', name: 'Max', role: 'tech lead', type: 'ai', agentConfigId: 'claude', systemInstruction: 'You are Max.', workDir: 'services/api' },
    { id: 'you', name: 'You', role: 'product owner', type: 'human' },
  ],
};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('team config schema', () => {
  it('applies defaults: settings, displayName, order by position', () => {
    const config = parseTeamConfig(valid, { baseDir: '/repo' });
    expect(config.settings).toEqual({
      contextMessageCount: 5,
      maxTurns: 50,
      turnTimeoutMs: 600_000,
      onMemberError: 'continue',
      maxConsecutiveFailures: 3,
      channelId: 'team',
    });
    expect(config.members[0]?.workDir).toBe('/repo/services/api');
    expect(resolveTeamMembers(config).map((m) => [m.id, m.displayName, m.order])).toEqual([
      ['max', 'Max', 0],
      ['you', 'You', 1],
    ]);
  });

  it('names every bad field by path', () => {
    const error = configError(() =>
      parseTeamConfig({
        name: 'broken',
        members: [
          { id: 'max', name: 'Max', role: 'lead', type: 'ai' },
          { id: 'you', name: 'You', role: 'owner', type: 'human', systemInstruction: 'Be nice', agentConfigId: 'claude' },
          { id: 'MAX', name: 'Other', role: 'x', type: 'ai', agentConfigId: 'codex', order: 0 },
        ],
        settings: { maxTurns: 0, onMemberError: 'retry' },
      }),
    );
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.message).toMatchInlineSnapshot(`
      "Invalid configuration in team configuration:
        - settings.maxTurns: Too small: expected number to be >0
        - settings.onMemberError: expected "continue" or "stop""
    `);
    const second = configError(() => parseTeamConfig({ ...valid, members: [...valid.members, { id: 'max', name: 'You', role: 'x', type: 'human', order: 1 }] }));
    expect(second.issues.map((issue) => issue.path.join('.'))).toEqual(['members.2.id', 'members.2.name', 'members.2.order']);
    const refined = configError(() =>
      parseTeamConfig({
        name: 'broken',
        members: [
          { id: 'max', name: 'Max', role: 'lead', type: 'ai' },
          { id: 'you', name: 'You', role: 'owner', type: 'human', systemInstruction: 'Be nice', agentConfigId: 'claude' },
        ],
      }),
    );
    expect(refined.message).toMatchInlineSnapshot(`
      "Invalid configuration in team configuration:
        - members[0].agentConfigId: AI member "max" needs an agentConfigId (an adapter type such as "claude", or an agent registry entry)
        - members[1].agentConfigId: only AI members take agentConfigId; "you" is human
        - members[1].systemInstruction: only AI members take systemInstruction; "you" is human"
    `);
  });

  it('rejects misspelled keys, bad types and names that break [NEXT] markers', () => {
    const error = configError(() =>
      parseTeamConfig({
        name: 'typos',
        members: [{ id: 'max', name: 'Max, Jr.', role: 'lead', type: 'robot', agentConfigId: 'claude', sytemInstruction: 'x' }],
      }),
    );
    expect(error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)).toEqual([
      'members.0.name: a name cannot contain "[", "]", "," or a newline',
      'members.0.type: expected "ai" or "human"',
      'members.0: Unrecognized key: "sytemInstruction"',
    ]);
    expect(configError(() => parseTeamConfig({ name: 'empty', members: [] })).issues).toEqual([
      { path: ['members'], message: 'a team needs at least one member' },
    ]);
  });

  it('rejects a name that is another member\'s id', () => {
    const error = configError(() =>
      parseTeamConfig({
        name: 'ambiguous',
        members: [
          { id: 'max', name: 'Max', role: 'a', type: 'human' },
          { id: 'sam', name: 'MAX', role: 'b', type: 'human' },
        ],
      }),
    );
    expect(error.issues.map((issue) => issue.message)).toContain('duplicate name "max" (also members[0]); [NEXT: name] must name one member');
  });
});

describe('loadTeamConfig', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'troupe-team-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads .troupe/team.json by default and resolves workDirs against the project root', async () => {
    await mkdir(join(root, '.troupe'));
    await writeFile(join(root, DEFAULT_TEAM_CONFIG_PATH), JSON.stringify(valid));
    const config = await loadTeamConfig(undefined, { cwd: root });
    expect(config.name).toBe('api-review');
    expect(config.members[0]?.workDir).toBe(join(root, 'services/api'));
  });

  it('takes a path to another file (workDirs relative to its folder) or an object', async () => {
    await writeFile(join(root, 'team.json'), JSON.stringify(valid));
    expect((await loadTeamConfig(join(root, 'team.json'))).members[0]?.workDir).toBe(join(root, 'services/api'));
    expect((await loadTeamConfig(valid, { baseDir: '/srv' })).members[0]?.workDir).toBe('/srv/services/api');
  });

  it('explains a missing file, invalid JSON and invalid content, naming the file', async () => {
    await expect(loadTeamConfig(undefined, { cwd: root })).rejects.toThrow(
      `Invalid configuration in ${join(root, '.troupe/team.json')}:\n  - (root): file not found; create .troupe/team.json or pass the configuration as an object`,
    );
    await writeFile(join(root, 'bad.json'), '{ "name": ');
    await expect(loadTeamConfig(join(root, 'bad.json'))).rejects.toThrow(/bad\.json:\n {2}- \(root\): not valid JSON/);
    await writeFile(join(root, 'invalid.json'), JSON.stringify({ ...valid, settings: { budget: { maxTokens: -1 } } }));
    await expect(loadTeamConfig(join(root, 'invalid.json'))).rejects.toThrow(/invalid\.json:\n {2}- settings\.budget\.maxTokens: Too small/);
  });

  it('rejects a source that is neither a path nor an object', async () => {
    await expect(loadTeamConfig(42 as unknown as string)).rejects.toThrow('Invalid argument "source": expected a file path or a team configuration object, got number');
  });
});
