// The example's CLIs, offline: Troupe's real Claude Code, Codex and Gemini adapters (they build the command line,
// hand over the schema and parse the output) drive the fake agent CLI of @troupe/core/testing, which prints what
// each CLI prints for a typed answer: Claude Code its `structured_output` (from --json-schema), Codex a final
// message that is the JSON (from --output-schema), Gemini CLI (no schema flag) JSON in a fence inside prose.
// The `sloppy` role answers in prose, to show the StructuredOutputError. In real use, register the adapters
// (registerClaudeCodeAdapter() …) and give the manager no `adapters`.
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { withFakeAgentCli } from '@troupe/core/testing';

const json = (lines: object[]) => lines.map((line) => JSON.stringify(line));

/** The release plan each CLI "writes". */
const PLAN = { title: 'Release 2.4', risk: 'medium', steps: [{ name: 'Tag v2.4.0', owner: 'ci' }, { name: 'Publish to npm', owner: 'release bot' }], rollback: null };

const claudeSession = '5f0c2d8e-8a41-4c1b-9d7e-2b6f0a3c9e11';
const ANSWERS: Record<'claude' | 'codex' | 'gemini', object[]> = {
  claude: [
    { type: 'system', subtype: 'init', session_id: claudeSession },
    { type: 'result', subtype: 'success', is_error: false, result: JSON.stringify(PLAN), structured_output: PLAN, total_cost_usd: 0.0012, usage: { input_tokens: 640, output_tokens: 90 }, session_id: claudeSession },
  ],
  codex: [
    { type: 'thread.started', thread_id: '01a20142-ed73-73d3-af55-dc76b6621984' },
    { type: 'turn.started' },
    // Codex's final message is the JSON itself (its strict mode answers every field; `rollback` is nullable).
    { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: JSON.stringify({ ...PLAN, title: 'Release 2.4 (codex)' }) } },
    { type: 'turn.completed', usage: { input_tokens: 700, output_tokens: 80 } },
  ],
  gemini: [
    { type: 'init', session_id: '3125a7c0-77b5-4c36-9d1e-0b0a3f3c2d11', model: 'gemini-2.5-flash' },
    { type: 'message', role: 'assistant', content: `Here is the plan:\n\`\`\`json\n${JSON.stringify({ ...PLAN, title: 'Release 2.4 (gemini)', rollback: 'npm unpublish' })}\n\`\`\``, delta: true },
    { type: 'result', status: 'success', stats: { input_tokens: 720, output_tokens: 85 } },
  ],
};

/** A Codex answer in prose: with --output-schema it should have been JSON. */
const SLOPPY = [
  { type: 'thread.started', thread_id: '01a20142-ed73-73d3-af55-dc76b6621985' },
  { type: 'turn.started' },
  { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: 'The release looks fine, ship it!' } },
  { type: 'turn.completed', usage: { input_tokens: 700, output_tokens: 12 } },
];

const CREATE: Record<'claude' | 'codex' | 'gemini', () => AgentAdapter> = {
  claude: () => createClaudeCodeAdapter(),
  codex: () => createCodexAdapter(),
  gemini: () => createGeminiCliAdapter(),
};

/** `claude`, `codex` and `gemini`, each running the fake CLI with that CLI's typed answer (role `sloppy`: prose). */
export function offlineAdapters(): AdapterRegistry {
  const adapters = new AdapterRegistry();
  for (const kind of ['claude', 'codex', 'gemini'] as const) {
    adapters.register({
      type: kind,
      create: () => withFakeAgentCli(CREATE[kind](), ({ context }) => ({ lines: json(context?.roleId === 'sloppy' ? SLOPPY : ANSWERS[kind]) })),
    });
  }
  return adapters;
}
