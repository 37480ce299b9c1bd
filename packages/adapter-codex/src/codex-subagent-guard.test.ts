import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createCodexAdapter } from './codex-adapter';

describe('Codex with permissions refuses undecidable sub-agents (multi_agent_v2)', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Builds a permissions turn's process config; returns the error it failed with, or undefined (config cleaned up). */
  async function attempt(settings: { extraArgs?: string[]; configToml?: string }, additionalArgs: string[] = []) {
    root = mkdtempSync(join(tmpdir(), 'troupe-codex-subagents-'));
    const codexHome = join(root, 'codex-home');
    const tmp = join(root, 'tmp');
    if (settings.configToml !== undefined) {
      mkdirSync(codexHome, { recursive: true });
      writeFileSync(join(codexHome, 'config.toml'), settings.configToml);
    }
    const adapter = createCodexAdapter({ apiKey: 'sk-test-0000000000000000', codexHome, tmpDir: tmp, extraArgs: settings.extraArgs ?? [], permissions: { canUseTool: () => true } });
    try {
      const config = await adapter.getProcessConfig({ additionalArgs }, root);
      await config.cleanup?.();
      return undefined;
    } catch (error) {
      // Nothing of the turn is left behind (its folder and socket).
      expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([]);
      return error as Error;
    }
  }

  it('fails at start, naming where the feature was turned on: an --enable flag, a -c override, or config.toml', async () => {
    const flag = await attempt({ extraArgs: ['--enable', 'multi_agent_v2'] });
    expect(flag).toBeInstanceOf(ConfigError);
    expect(flag?.message).toMatch(/permissions: permissions cannot decide Codex sub-agents with the feature multi_agent_v2 on \(`--enable multi_agent_v2` in the arguments\)/);
    const override = await attempt({}, ['-c', 'features.multi_agent_v2=true']);
    expect(override?.message).toMatch(/`-c features.multi_agent_v2=true` in the arguments/);
    const file = await attempt({ configToml: 'model = "gpt-5.5"\n\n[features]\nmulti_agent_v2 = true # opt in\n' });
    expect(file?.message).toContain(`\`features.multi_agent_v2 = true\` in ${join(root, 'codex-home', 'config.toml')}`);
    const dotted = await attempt({ configToml: 'features.multi_agent_v2 = true\n' });
    expect(dotted).toBeInstanceOf(ConfigError);
  });

  it('runs when the feature is off: by default, turned off after being turned on, or set in another table', async () => {
    expect(await attempt({})).toBeUndefined();
    expect(await attempt({ extraArgs: ['--enable', 'multi_agent_v2', '--disable', 'multi_agent_v2'] })).toBeUndefined();
    // `--disable` wins over a `-c` that turns it on (as Codex reads them), and config.toml's value yields to either.
    expect(await attempt({ extraArgs: ['-c', 'features.multi_agent_v2=true', '--disable=multi_agent_v2'] })).toBeUndefined();
    expect(await attempt({ configToml: '[features]\nmulti_agent_v2 = true\n', extraArgs: ['-c', 'features.multi_agent_v2=false'] })).toBeUndefined();
    expect(await attempt({ configToml: '[profiles.x]\nmulti_agent_v2 = true\n[features]\nmulti_agent = true\n' })).toBeUndefined();
  });
});
