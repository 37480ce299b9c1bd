// Test helpers for the team package's own tests (not exported from the package).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import {
  EventBus,
  MessageStore,
  type AgentAdapter,
  type AnyTroupeEvent,
  type TroupeEventPayloads,
  type TroupeEventType,
} from '@troupe/core';
import { MockAgentAdapter, withFakeAgentCli, wrapAgentAdapter, type FakeAgentCliOptions } from '@troupe/core/testing';
import { ConversationCoordinator, type ConversationCoordinatorOptions } from '../conversation-coordinator';
import type { TeamConfigInput } from '../team-config-schema';

export const fixture = (name: string) => fileURLToPath(new URL(`../__fixtures__/${name}`, import.meta.url));

function recordedLines(name: string): string[] {
  return readFileSync(fixture(name), 'utf8').trim().split('\n');
}

/** The recorded Claude Code `text` turn (2.1.330), saying `text` instead of "Hello from fake-llm.". */
export function claudeTurnSaying(text: string, sessionId?: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  return recordedLines('claude-text.stdout.jsonl').map((line) => {
    const replaced = line.split('Hello from fake-llm.').join(escaped);
    return sessionId ? replaced.split('863aed00-dfa4-40ce-9dd4-3baf7906cbfb').join(sessionId) : replaced;
  });
}

/** The recorded Codex `text` turn (0.169.0), saying `text`. */
export function codexTurnSaying(text: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1);
  return recordedLines('codex-text.stdout.jsonl').map((line) => line.split('Hello from fake-llm.').join(escaped));
}

/** What the fake agent CLI received for one turn: its argv (`--print-argv`), cwd, and stdin (`--echo-stdin`). */
export interface FakeCliReceipt {
  argv: string[];
  cwd: string;
  stdin: string;
}

/**
 * Wraps an adapter so the `argv` / `stdin` lines the fake CLI prints (with
 * `printArgv` / `echoStdin`) are recorded before the adapter parses the line.
 */
export function recordingAdapter(adapter: AgentAdapter, receipts: FakeCliReceipt[]): AgentAdapter {
  return wrapAgentAdapter(adapter, {
    parseLine(line, json, context) {
      const event = json as { type?: string; argv?: string[]; cwd?: string; text?: string } | undefined;
      if (event?.type === 'argv') receipts.push({ argv: event.argv ?? [], cwd: event.cwd ?? '', stdin: '' });
      else if (event?.type === 'stdin') {
        const last = receipts[receipts.length - 1];
        if (last) last.stdin = event.text ?? '';
      }
      return adapter.parseLine(line, json, context);
    },
  });
}

/**
 * The message a turn delivered, however the adapter delivered it: a Claude
 * stream-json `user` line on stdin, plain stdin, or (Codex) the last argument.
 */
export function sentMessage(receipt: FakeCliReceipt, delivery: 'stdin' | 'argument' = 'stdin'): string {
  if (delivery === 'argument') return receipt.argv.at(-1) ?? '';
  const text = receipt.stdin.replace(/\n$/, '');
  try {
    const json = JSON.parse(text) as { type?: string; message?: { content?: unknown } };
    if (json.type === 'user' && typeof json.message?.content === 'string') return json.message.content;
  } catch {
    // plain text
  }
  return text;
}

/** A reply script: the text of each turn (by turn index from 0), or fake CLI options for misbehaviour. */
export type ReplyScript = (turn: number) => string | FakeAgentCliOptions;

/** A scripted member agent: the real adapter, the fake CLI as its process, and what the CLI received each turn. */
export interface ScriptedAgent {
  create: () => AgentAdapter;
  receipts: FakeCliReceipt[];
}

function scripted(kind: 'claude' | 'codex' | 'mock', script: ReplyScript): ScriptedAgent {
  const receipts: FakeCliReceipt[] = [];
  let turn = 0;
  const cli = (): FakeAgentCliOptions => {
    const reply = script(turn++);
    if (typeof reply !== 'string') return { printArgv: true, echoStdin: true, ...reply };
    const lines = kind === 'claude' ? claudeTurnSaying(reply) : kind === 'codex' ? codexTurnSaying(reply) : [JSON.stringify({ type: 'result', result: reply })];
    return { lines, printArgv: true, echoStdin: true };
  };
  const create = (): AgentAdapter => {
    if (kind === 'mock') return recordingAdapter(new MockAgentAdapter({ cli: () => cli(), capabilities: { resume: false } }), receipts);
    const real = kind === 'claude' ? createClaudeCodeAdapter() : createCodexAdapter();
    return recordingAdapter(withFakeAgentCli(real, cli), receipts);
  };
  return { create, receipts };
}

/** The real Claude Code adapter over the fake CLI, replaying the recorded turn with scripted text. */
export const scriptedClaude = (script: ReplyScript) => scripted('claude', script);
/** The real Codex adapter over the fake CLI. */
export const scriptedCodex = (script: ReplyScript) => scripted('codex', script);
/** `MockAgentAdapter` (system prompt in the message, no resume) over the fake CLI. */
export const scriptedMock = (script: ReplyScript) => scripted('mock', script);

/** Everything a coordinator test needs: the coordinator, bus, store, manager and the events seen. */
export function setupTeam(
  config: TeamConfigInput,
  agents: Record<string, ScriptedAgent>,
  options: Partial<Omit<ConversationCoordinatorOptions, 'config' | 'agentManager' | 'eventBus' | 'messageStore'>> = {},
) {
  const bus = new EventBus();
  const store = new MessageStore(bus);
  const adapters = new AdapterRegistry();
  for (const [type, agent] of Object.entries(agents)) adapters.register({ type, create: agent.create });
  const manager = new AgentManager({ adapters, eventBus: bus });
  const events: AnyTroupeEvent[] = [];
  const off = bus.on('*', (event) => {
    if (event.type.startsWith('team:')) events.push(event);
  });
  const coordinator = new ConversationCoordinator({ config, agentManager: manager, eventBus: bus, messageStore: store, ...options });
  const ofType = <T extends TroupeEventType>(type: T): Array<TroupeEventPayloads[T]> =>
    events.filter((event) => event.type === type).map((event) => event.payload as TroupeEventPayloads[T]);
  return {
    coordinator,
    bus,
    store,
    manager,
    events,
    ofType,
    /** Speakers' ids in turn order (from `team:turn-started`). */
    speakers: () => ofType('team:turn-started').map((payload) => payload.memberId),
    /** The conversation as `speaker: content` lines. */
    transcript: () => coordinator.getMessages().map((m) => `${m.speakerName}: ${m.content}`),
    async dispose() {
      off();
      await manager.cleanup();
    },
  };
}

/** An AI member entry for a test config. */
export function aiMember(id: string, order: number, agentConfigId: string, extra: Record<string, unknown> = {}) {
  return { id, name: id[0]?.toUpperCase() + id.slice(1), role: `${id}'s role`, type: 'ai' as const, order, agentConfigId, ...extra };
}

/** A human member entry for a test config. */
export function humanMember(id: string, order: number, extra: Record<string, unknown> = {}) {
  return { id, name: id[0]?.toUpperCase() + id.slice(1), role: 'human', type: 'human' as const, order, ...extra };
}
