import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@troupe/core';
import { parseRegistryConfig, type AgentSendOptions } from '@troupe/core/cli-turn';
import { fakeAgentCliArgs, fakeAgentCliPath } from '@troupe/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentChoice, CliRegistry } from '../registry/cli-registry';
import { SessionMessageLog } from '../workspace/session-message-log';
import { openWorkspace, type TroupeWorkspace } from '../workspace/troupe-workspace';
import { createCliLooper, type CliLooperSetup } from './create-cli-looper';

let dir: string;
let workspace: TroupeWorkspace;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-cli-looper-'));
  workspace = await openWorkspace(dir, { cwd: dir, env: {} });
});
afterEach(async () => {
  await workspace.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A registry whose `fake` entry runs the fake agent CLI (core's generic adapter), answering `done`. */
function fakeRegistry(): CliRegistry {
  const parsed = parseRegistryConfig({
    version: '1.2',
    agents: {
      fake: {
        name: 'fake-cli',
        command: process.execPath,
        baseArgs: [fakeAgentCliPath, ...fakeAgentCliArgs({ lines: ['{"type":"result","result":"done"}'] })],
        capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' },
      },
    },
  });
  return { path: join(dir, 'agents.json'), parsed, shadowed: [] };
}

describe('troupe looper: --step-timeout', () => {
  it('reaches the CLI turn of each step, above the agent manager\'s 10-minute default (issue 28)', async () => {
    const registry = fakeRegistry();
    const fake: AgentChoice = { name: 'fake', definition: registry.parsed.config.agents.fake, adapterType: 'fake-cli' };
    const setup: CliLooperSetup = {
      coder: fake,
      reviewer: fake,
      registry,
      autoAllow: false,
      maxIterations: 1,
      judgeModel: undefined,
      testCommand: [],
      stepTimeoutMs: 20 * 60_000, // what --step-timeout 1200 gives
    };
    const bus = new EventBus();
    const log = await SessionMessageLog.open(workspace.store, (channelId) => workspace.messagesNamespace(channelId), bus);
    const { looper, agentManager } = createCliLooper({ workspace, log, bus, setup });
    // Records the time limit each turn is sent with, then sends it as is.
    const turnLimits: (number | undefined)[] = [];
    const send = agentManager.send.bind(agentManager);
    agentManager.send = (roleId: string, message: string, options?: AgentSendOptions) => {
      turnLimits.push(options?.timeoutMs);
      return send(roleId, message, options);
    };
    try {
      expect(looper.command('{"type":"start","task":"Add a README"}').ok).toBe(true);
      await looper.whenIdle();
      expect(looper.getStatus().last).toMatchObject({ coder: { status: 'SUCCESS', output: 'done' }, review: { status: 'SUCCESS' } });
      expect(turnLimits).toEqual([20 * 60_000, 20 * 60_000]);
    } finally {
      await looper.dispose();
      await agentManager.cleanup();
      await log.flush();
    }
  });
});
