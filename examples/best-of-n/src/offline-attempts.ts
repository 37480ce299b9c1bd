// The example's attempts, offline: Troupe's real Claude Code, Codex and Gemini adapters (they build the command line
// and parse the output) drive the fake agent CLI of @troupe/core/testing, which writes the sum.js a real agent might
// and prints that CLI's answer. Each attempt (its role id: claude-1, claude-2, codex-1, gemini-1) writes its own
// version. In real use, register the adapters (registerClaudeCodeAdapter() …) and pass no `adapters`.
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { withFakeAgentCli } from '@troupe/core/testing';

const json = (lines: object[]) => lines.map((line) => JSON.stringify(line));

/** What each attempt writes: two correct sums of different sizes, one that subtracts, one that concatenates strings. */
export const ATTEMPT_SOLUTIONS: Readonly<Record<string, string>> = {
  'claude-1': 'export function sum(a, b) {\n  const total = a + b;\n  return total;\n}\n',
  'claude-2': 'export function sum(a, b) {\n  return a - b;\n}\n',
  'codex-1': 'export const sum = (a, b) => a + b;\n',
  'gemini-1': 'export function sum(a, b) {\n  return `${a}${b}`;\n}\n',
};

/** Each CLI's answer, as it prints it. */
const ANSWERS: Record<'claude' | 'codex' | 'gemini', object[]> = {
  claude: [
    { type: 'system', subtype: 'init', session_id: '5f0c2d8e-8a41-4c1b-9d7e-2b6f0a3c9e11' },
    { type: 'assistant', session_id: '5f0c2d8e-8a41-4c1b-9d7e-2b6f0a3c9e11', message: { role: 'assistant', content: [{ type: 'text', text: 'sum.js is written.' }] } },
    { type: 'result', subtype: 'success', is_error: false, result: 'sum.js is written.', total_cost_usd: 0.0021, usage: { input_tokens: 900, output_tokens: 120 }, session_id: '5f0c2d8e-8a41-4c1b-9d7e-2b6f0a3c9e11' },
  ],
  codex: [
    { type: 'thread.started', thread_id: '01a20142-ed73-73d3-af55-dc76b6621984' },
    { type: 'turn.started' },
    { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'Implemented sum.' } },
    { type: 'turn.completed', usage: { input_tokens: 800, output_tokens: 60 } },
  ],
  gemini: [
    { type: 'init', session_id: '3125a7c0-77b5-4c36-9d1e-0b0a3f3c2d11', model: 'gemini-2.5-flash' },
    { type: 'message', role: 'assistant', content: 'Done: sum.js.', delta: true },
    { type: 'result', status: 'success', stats: { input_tokens: 700, output_tokens: 50 } },
  ],
};

const CREATE: Record<'claude' | 'codex' | 'gemini', () => AgentAdapter> = {
  claude: () => createClaudeCodeAdapter({ permissionMode: 'auto-edit' }),
  codex: () => createCodexAdapter({ permissionMode: 'auto-edit' }),
  gemini: () => createGeminiCliAdapter({ permissionMode: 'auto-edit' }),
};

/** `claude`, `codex` and `gemini`, each running the fake CLI that writes its attempt's sum.js. */
export function offlineAdapters(): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const kind of ['claude', 'codex', 'gemini'] as const) {
    adapters.register({
      type: kind,
      // The fake CLI of each process writes the sum.js of the attempt it runs for (its role id).
      create: () => withFakeAgentCli(CREATE[kind](), ({ context }) => ({ writeFiles: { 'sum.js': ATTEMPT_SOLUTIONS[context?.roleId ?? ''] ?? '' }, lines: json(ANSWERS[kind]) })),
    });
  }
  return adapters;
}
