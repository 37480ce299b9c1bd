import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventBus } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { MockAgentAdapter } from '@troupe/core/testing';
import { Looper } from '@troupe/looper';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defineCliAgent } from './index';

// A Looper run whose Coder and Review are defined agents, on the fake agent CLI of @troupe/core/testing.

const done = (value: string) => JSON.stringify({ type: 'result', result: value });
const session = (id: string) => JSON.stringify({ type: 'session', id });
const report = (health: string, findings: object[]) => '```json\n' + JSON.stringify({ health, summary: `health ${health}`, findings }) + '\n```';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-cli-agent-looper-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('a defined agent as a Looper member', () => {
  it('codes and reviews through the Looper: its definition reaches the CLI, and the Coder resumes its session', async () => {
    const coderCli = new MockAgentAdapter({ cli: (turn) => ({ lines: [session(`coder-session-${turn}`), done(`Attempt ${turn + 1}: wrote sum.js`)] }) });
    const reviewCli = new MockAgentAdapter({
      cli: (turn) => ({ lines: [done(turn === 0 ? report('critical', [{ severity: 'critical', message: 'sum([]) throws', file: 'sum.js' }]) : report('normal', []))] }),
    });
    const coder = defineCliAgent({ name: 'coder', agent: coderCli, systemPrompt: 'You are the Coder.', cwd: dir, env: { CODER_MODE: 'careful' } });
    const reviewer = defineCliAgent({ name: 'reviewer', agent: reviewCli, systemPrompt: 'Review strictly.' });
    const adapters = new AdapterRegistry();
    await coder.register(adapters);
    await reviewer.register(adapters);
    const agentManager = new AgentManager({ adapters });
    const eventBus = new EventBus();
    const looper = new Looper({ coder: coder.toMember(), review: reviewer.toMember(), agentManager, eventBus, maxIterations: 3 });
    try {
      looper.command({ type: 'start', task: 'Add a sum function in sum.js' });
      await looper.whenIdle();

      expect(looper.getStatus().lastRun).toMatchObject({ outcome: 'terminated', iterations: 2 });
      const coderTurns = coderCli.calls.flatMap((call) => (call.method === 'getProcessConfig' ? [call] : []));
      expect(coderTurns).toHaveLength(2);
      expect(coderTurns[0]?.member).toMatchObject({ systemInstruction: 'You are the Coder.', workDir: dir, env: { CODER_MODE: 'careful' } });
      // Iteration 2 goes on in the Coder's session, with the Review's finding in its task.
      expect(coderTurns[1]?.context?.resumeSessionId).toBe('coder-session-0');
      const secondTask = coderCli.calls.filter((call) => call.method === 'prepareMessage').at(1);
      expect(secondTask?.method === 'prepareMessage' && secondTask.message).toContain('sum([]) throws');
      expect(reviewCli.calls.find((call) => call.method === 'getProcessConfig')).toMatchObject({ member: { systemInstruction: 'Review strictly.' } });
    } finally {
      await looper.dispose();
      await agentManager.cleanup();
    }
  });

  it('register() refuses a second agent of the same name in one registry', async () => {
    const adapters = new AdapterRegistry();
    await defineCliAgent({ name: 'coder', agent: new MockAgentAdapter() }).register(adapters);
    await expect(defineCliAgent({ name: 'coder', agent: new MockAgentAdapter() }).register(adapters)).rejects.toMatchObject({ code: 'ADAPTER_ALREADY_REGISTERED' });
  });

  it('register() rejects with the check of the definition, and registers nothing', async () => {
    const adapters = new AdapterRegistry();
    const coder = defineCliAgent({ name: 'coder', agent: new MockAgentAdapter({ capabilities: { systemPrompt: 'none' } }), systemPrompt: 'You are the Coder.' });
    await expect(coder.register(adapters)).rejects.toMatchObject({ code: 'CAPABILITY_UNSUPPORTED' });
    expect(adapters.types()).toEqual([]);
  });
});
