import { parseRegistryConfig } from '@troupe/core/cli-turn';
import { describe, expect, it } from 'vitest';
import { builtinAdapterFacts } from './builtin-adapter-facts';

// A 1.1 registry (seed 001 §2.1) names the CLIs and their args, nothing about how their turns end.
const v11 = {
  claude: { command: 'claude', args: ['-p', '--output-format', 'stream-json', '--verbose', '--append-system-prompt', 'Be brief'] },
  codex: { command: 'codex', args: ['exec', '--json', '--skip-git-repo-check'] },
  gemini: { command: 'gemini', args: ['-o', 'stream-json'] },
};

describe('the built-in adapters know their CLIs (registryCapabilities)', () => {
  const adapters = builtinAdapterFacts();
  const parsed = parseRegistryConfig(v11, { onWarning: () => {}, adapters });

  it.each([
    ['claude', { supportsSystemPrompt: true, systemPromptFlag: '--append-system-prompt', completionDetection: 'jsonl', completionTypes: ['result'] }],
    ['codex', { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['turn.completed', 'turn.failed'] }],
    ['gemini', { supportsSystemPrompt: false, completionDetection: 'jsonl', completionTypes: ['result'] }],
  ])('a migrated %s entry gets the capabilities its adapter recorded', (name, capabilities) => {
    expect(parsed.config.agents[name]?.capabilities).toEqual(capabilities);
  });

  it.each(['claude', 'codex', 'gemini'])('the %s adapter accepts its migrated entry and keeps its own turn end', (name) => {
    const entry = parsed.config.agents[name];
    if (!entry) throw new Error(`no ${name} entry`);
    const plugin = adapters.get(name);
    const fromEntry = plugin.create(entry);
    expect(fromEntry.getCompletionStrategy()).toEqual(plugin.create().getCompletionStrategy());
  });
});
