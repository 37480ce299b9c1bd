import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { AdapterRegistry } from '@troupe/core/cli-turn';
import { type AgentAdapter } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));

/** What the offline Ada (Claude Code) says, turn by turn; the last line repeats. */
const ADA = [
  'I propose a token bucket per API key: 100 requests per minute with bursts of 20, answered with 429 and a Retry-After header when empty. Linus, poke holes in it. [NEXT: linus]',
  'Good catch. The buckets live in Redis, updated by one Lua script so the check-and-decrement is atomic; if Redis is down we fail open and alert. [DONE]',
  'Summary: token bucket per API key in Redis (atomic Lua update), 100/min with bursts of 20, 429 + Retry-After, fail open with an alert. Shippable this week. [DONE]',
  'Nothing to add from me. [DONE]',
];

/** What the offline Linus (Codex CLI) says. */
const LINUS = [
  'Per-key buckets in process memory break as soon as we run more than one API node: where does the state live? [NEXT: ada]',
  'Fail-open is acceptable only with that alert and a dashboard. Otherwise fine with me.',
  'Agreed. Ship it.',
];

/**
 * One recorded CLI turn (a real Claude Code 2.1.330 or Codex 0.169.0 stream)
 * with its answer replaced by `text`.
 */
function recordedTurn(recording: string, text: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  return readFileSync(fixture(recording), 'utf8').trim().split('\n').map((line) => line.split('Hello from fake-llm.').join(escaped));
}

/** The real adapter, whose process is Troupe's fake agent CLI saying the scripted lines in turn. */
function scripted(adapter: AgentAdapter, recording: string, lines: readonly string[]): AgentAdapter {
  let turn = 0;
  return withFakeAgentCli(adapter, () => ({
    lines: recordedTurn(recording, lines[Math.min(turn++, lines.length - 1)] as string),
    delayMs: 40,
  }));
}

/**
 * Adapters for running the example offline: the real Claude Code and Codex
 * adapters build their command lines and parse the streams, while the
 * process they start is the fake agent CLI replaying recorded streams with
 * scripted answers.
 */
export function offlineAdapters(): AdapterRegistry {
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'claude', displayName: 'Claude Code (fake CLI)', create: () => scripted(createClaudeCodeAdapter(), 'claude-text.stdout.jsonl', ADA) });
  adapters.register({ type: 'codex', displayName: 'Codex CLI (fake CLI)', create: () => scripted(createCodexAdapter(), 'codex-text.stdout.jsonl', LINUS) });
  return adapters;
}
