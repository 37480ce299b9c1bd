import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentLoop } from '@troupe/core/agent-loop';
import { ConfigError } from '@troupe/core';
import { loadLoopConfig } from '@troupe/loop-stages';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'troupe-loop-config-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadLoopConfig', () => {
  it('reads agent.loop_interval from troupe.config.toml', async () => {
    await writeFile(join(dir, 'troupe.config.toml'), '[agent]\nloop_interval = 1.0\nmodel = "ignored here"\n\n[team]\nname = "x"\n');
    const loaded = await loadLoopConfig({ cwd: dir });
    expect(loaded).toEqual({ path: join(dir, 'troupe.config.toml'), config: { agent: { loop_interval: 1 } } });
    expect(new AgentLoop({ config: loaded?.config }).intervalDescription).toBe('1s');
  });

  it('reads troupe.config.json, adaptive tuning included', async () => {
    await writeFile(
      join(dir, 'troupe.config.json'),
      JSON.stringify({ agent: { loop_interval: 'adaptive', loop_adaptive: { min_interval: 0.25, many_perceptions: 4 } } }),
    );
    const loaded = await loadLoopConfig({ cwd: dir });
    expect(new AgentLoop({ config: loaded?.config }).intervalDescription).toBe('adaptive 0.25–5s');
    expect(new AgentLoop({ config: loaded?.config, interval: 0 }).intervalDescription).toBe('0s'); // options win
  });

  it('reads an explicit path; returns undefined when the folder has no config', async () => {
    const path = join(dir, 'custom.toml');
    await writeFile(path, '[agent]\nloop_interval = 0\n');
    expect((await loadLoopConfig({ path }))?.config).toEqual({ agent: { loop_interval: 0 } });
    expect(await loadLoopConfig({ cwd: dir })).toBeUndefined();
    await expect(loadLoopConfig({ path: join(dir, 'missing.toml') })).rejects.toThrow(/missing\.toml:\n {2}- \(root\): file not found/);
  });

  it('names the file and the path of an invalid value', async () => {
    await writeFile(join(dir, 'troupe.config.toml'), '[agent]\nloop_interval = "sometimes"\n');
    const error = await loadLoopConfig({ cwd: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `Invalid configuration in ${join(dir, 'troupe.config.toml')}:\n  - agent.loop_interval: expected a number of seconds or "adaptive"`,
    );
    await writeFile(join(dir, 'troupe.config.toml'), '[agent]\nloop_interval = -3\n[agent.loop_adaptive]\nmax_interval = "long"\n');
    await expect(loadLoopConfig({ cwd: dir })).rejects.toThrow(/agent\.loop_interval: .*\n {2}- agent\.loop_adaptive\.max_interval: expected max_interval as a number of seconds/);
  });

  it('reports TOML and JSON syntax errors with their position, and refuses two config files', async () => {
    await writeFile(join(dir, 'troupe.config.toml'), '[agent\nloop_interval = 1\n');
    await expect(loadLoopConfig({ cwd: dir })).rejects.toThrow(/not valid TOML at line 1, column \d+/);
    await writeFile(join(dir, 'troupe.config.json'), '{}');
    await expect(loadLoopConfig({ cwd: dir })).rejects.toThrow('both troupe.config.toml and troupe.config.json exist; keep one');
    await rm(join(dir, 'troupe.config.toml'));
    await writeFile(join(dir, 'troupe.config.json'), '{ "agent": ');
    await expect(loadLoopConfig({ cwd: dir })).rejects.toThrow(/troupe\.config\.json:\n {2}- \(root\): not valid JSON/);
    await expect(loadLoopConfig({ cwd: dir, signal: AbortSignal.abort() })).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
