// The example's three agents, offline: Troupe's real Claude Code, Codex and Gemini adapters (they build the command
// line and parse the output) drive the fake agent CLI of @troupe/core/testing, which edits the files a real agent
// would and prints that CLI's answer (shortened). In real use, pass 'claude', 'codex' or 'gemini' as the agent.
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';

/** One agent of the example: its name (also its workspace's), its task, and the adapter that runs it. */
export interface ExampleAgent {
  name: 'claude' | 'codex' | 'gemini';
  task: string;
  agent: AgentAdapter;
}

const json = (lines: object[]) => lines.map((line) => JSON.stringify(line));

/** The greeting in the repository the example makes; Codex and Gemini both rewrite that line. */
export const GREETING_FILE = 'src/greeting.ts';
export const BASE_GREETING = "export const greeting = 'Hello';\n";

/** Claude Code writes usage docs, Codex and Gemini each change the greeting (differently: their merges conflict). */
export function offlineAgents(): ExampleAgent[] {
  const claudeAnswer = 'Added docs/USAGE.md.';
  const codexAnswer = 'The greeting now names the project.';
  const geminiAnswer = 'The greeting is friendlier now.';
  const session = '5f0c2d8e-8a41-4c1b-9d7e-2b6f0a3c9e11';
  return [
    {
      name: 'claude',
      task: 'Write docs/USAGE.md explaining how to print the greeting.',
      agent: withFakeAgentCli(createClaudeCodeAdapter({ permissionMode: 'auto-edit' }), {
        writeFiles: { 'docs/USAGE.md': '# Usage\n\n`console.log(greeting)` prints the greeting.\n' },
        lines: json([
          { type: 'system', subtype: 'init', session_id: session },
          { type: 'assistant', session_id: session, message: { role: 'assistant', content: [{ type: 'text', text: claudeAnswer }] } },
          { type: 'result', subtype: 'success', is_error: false, result: claudeAnswer, session_id: session },
        ]),
      }),
    },
    {
      name: 'codex',
      task: 'Make the greeting name the project.',
      agent: withFakeAgentCli(createCodexAdapter({ permissionMode: 'auto-edit' }), {
        writeFiles: { [GREETING_FILE]: "export const greeting = 'Hello from Troupe';\n" },
        lines: json([
          { type: 'thread.started', thread_id: '01a20142-ed73-73d3-af55-dc76b6621984' },
          { type: 'turn.started' },
          { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: codexAnswer } },
          { type: 'turn.completed', usage: { input_tokens: 12, output_tokens: 8 } },
        ]),
      }),
    },
    {
      name: 'gemini',
      task: 'Make the greeting friendlier.',
      agent: withFakeAgentCli(createGeminiCliAdapter({ permissionMode: 'auto-edit' }), {
        writeFiles: { [GREETING_FILE]: "export const greeting = 'Hi there!';\n" },
        lines: json([
          { type: 'init', session_id: '3125a7c0-77b5-4c36-9d1e-0b0a3f3c2d11', model: 'gemini-2.5-flash' },
          { type: 'message', role: 'assistant', content: geminiAnswer, delta: true },
          { type: 'result', status: 'success', stats: { input_tokens: 12, output_tokens: 8 } },
        ]),
      }),
    },
  ];
}
