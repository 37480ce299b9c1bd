import { AdapterRegistry, AgentManager, createGenericAdapter } from '@troupe/core/cli-turn';
import { afterEach, expect, it } from 'vitest';
import { withFakeAgentCli } from './index';

let manager: AgentManager | undefined;
afterEach(async () => {
  await manager?.cleanup();
  manager = undefined;
});

it('a function script is called per process with its working folder and turn context: one adapter scripts each member', async () => {
  const seen: { roleId: string | undefined; workDir: string | undefined }[] = [];
  const adapters = new AdapterRegistry();
  const generic = createGenericAdapter({ name: 'mycli', command: 'mycli', baseArgs: [], capabilities: { supportsSystemPrompt: false, completionDetection: 'exit' } });
  adapters.register({
    type: 'mycli',
    create: () =>
      withFakeAgentCli(generic, ({ workDir, context }) => {
        seen.push({ roleId: context?.roleId, workDir });
        return { lines: [JSON.stringify({ content: `I am ${context?.roleId}` })] };
      }),
  });
  manager = new AgentManager({ adapters });
  await manager.ensureAgentStarted('alice', 'mycli', { workDir: process.cwd() });
  await manager.ensureAgentStarted('bob', 'mycli');
  expect(await manager.sendAndReceive('alice', 'hi', { timeoutMs: 20_000 })).toBe('I am alice');
  expect(await manager.sendAndReceive('bob', 'hi', { timeoutMs: 20_000 })).toBe('I am bob');
  expect(seen).toContainEqual({ roleId: 'alice', workDir: process.cwd() });
  expect(seen).toContainEqual({ roleId: 'bob', workDir: undefined });
});
