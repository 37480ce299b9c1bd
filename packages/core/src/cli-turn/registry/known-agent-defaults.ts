import type { AgentCapabilities } from './registry-schema';

/**
 * Technical facts about the CLIs Troupe knows, from recordings of the real
 * binaries (Claude Code 2.1.330, Codex 0.169.0, Gemini CLI 0.61.0). Used when
 * migrating a 1.1 registry, which had none of this.
 */
export const knownAgentDefaults: Record<string, { baseArgs: string[]; capabilities: AgentCapabilities }> = {
  claude: {
    baseArgs: ['-p', '--output-format', 'stream-json', '--verbose'],
    capabilities: {
      supportsSystemPrompt: true,
      systemPromptFlag: '--append-system-prompt',
      completionDetection: 'jsonl',
      completionTypes: ['result'],
    },
  },
  codex: {
    // Codex does emit turn.completed / turn.failed (the seed's idle-timeout guess was wrong).
    baseArgs: ['exec', '--json', '--skip-git-repo-check'],
    capabilities: {
      supportsSystemPrompt: false,
      completionDetection: 'jsonl',
      completionTypes: ['turn.completed', 'turn.failed'],
    },
  },
  gemini: {
    baseArgs: ['-o', 'stream-json'],
    capabilities: {
      supportsSystemPrompt: false,
      completionDetection: 'jsonl',
      completionTypes: ['result'],
    },
  },
};

/** Flags whose value is role text, removed from `args` by the 1.1 → 1.2 migration. */
export const SYSTEM_PROMPT_FLAGS = ['--append-system-prompt', '--system-prompt'];
