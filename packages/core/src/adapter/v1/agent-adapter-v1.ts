import type { AgentError } from '../../errors/agent-error';
import type { CompletionStrategy } from './completion-strategy';
import type { ProcessConfig } from './process-config';
import type { AgentStreamPart } from './agent-stream-part';
import type { AgentTurnContext, MemberAgentConfig } from './member-agent-config';

/** What an adapter's CLI can do; runners read this instead of guessing. */
export interface AgentAdapterCapabilities {
  /**
   * How the member's system prompt reaches the CLI: a command-line flag, a
   * file named in an environment variable, prepended to the message, or not
   * at all. The adapter uses exactly one, so it is never sent twice.
   */
  systemPrompt: 'flag' | 'env-file' | 'message' | 'none';
  /** The CLI can resume a previous session given its id (`AgentTurnContext.resumeSessionId`). */
  resume: boolean;
  /**
   * The CLI can continue the most recent session of its working folder
   * without an id (`AgentTurnContext.continueLastSession`). Without it,
   * `AgentManager` refuses `continue: true` with `CapabilityUnsupportedError`.
   */
  continueSession?: boolean;
  /**
   * The CLI can fork a resumed session into a new one
   * (`AgentTurnContext.forkSession`). Without it, `AgentManager` refuses
   * `forkSession: true` with `CapabilityUnsupportedError`.
   */
  forkSession?: boolean;
  /** The CLI streams text deltas (otherwise whole messages). */
  streamingText: boolean;
  /**
   * The adapter gives the member's `mcpServers` (and the server of its Troupe
   * `tools`) to its CLI. Without it, `AgentManager` refuses a member that has
   * either, with `CapabilityUnsupportedError`.
   */
  mcpServers?: boolean;
  /**
   * The CLI can be told a JSON Schema its answer must match
   * (`AgentTurnContext.outputSchema`, which the adapter maps to its flag), and
   * where it then puts the object: `structured-field` — in the `turn-end`
   * part's `structuredOutput` (Claude Code's `structured_output`; absent means
   * the CLI ignored the schema); `final-text` — the turn's final message is
   * the JSON (Codex's `--output-schema`). Without it, `AgentManager` asks for
   * the JSON in the prompt, extracts and validates it, with one repair turn.
   */
  outputSchema?: 'structured-field' | 'final-text';
}

/** What a runner tells an adapter when one turn of a member starts (see {@link AgentAdapterV1.startTurn}). */
export interface AgentTurnStart {
  /** The member's role id (`AgentManager`'s `roleId`). */
  readonly roleId: string;
  /** This member's turn number, from 1. */
  readonly turnNumber: number;
  /** The member config the turn runs with. */
  readonly member: MemberAgentConfig;
  /** The message sent to the CLI, as `prepareMessage` made it. */
  readonly message: string;
}

/**
 * The turn a stdout line belongs to, handed to every `parseLine` call of
 * that turn: what `startTurn` returned (`state`), and where the line is.
 */
export interface AgentLineContext<TTurnState = unknown> extends AgentTurnStart {
  /** What {@link AgentAdapterV1.startTurn} returned for this turn; `undefined` when the adapter has no `startTurn`. */
  readonly state: TTurnState;
  /** Index of the line in this turn's stdout, from 0. */
  readonly lineIndex: number;
}

/**
 * The agent adapter contract, version 1 (seed 001 §2): how to start one CLI,
 * what to send it, how to know it is done and how to read its output.
 *
 * A breaking change adds `v2/` beside this folder; `specificationVersion`
 * tells runners which contract an adapter implements.
 *
 * @example
 * ```ts
 * const echoAdapter: AgentAdapterV1 = {
 *   specificationVersion: 'v1',
 *   adapterId: 'echo',
 *   capabilities: { systemPrompt: 'message', resume: false, streamingText: false },
 *   getProcessConfig: (member, workDir) => ({ command: 'cat', cwd: workDir ?? member.workDir }),
 *   prepareMessage: (message, member) => member.systemInstruction ? `${member.systemInstruction}\n\n${message}` : message,
 *   parseResponse: (raw) => raw.trim(),
 *   getCompletionStrategy: () => ({ type: 'exit' }),
 *   parseLine: (line) => [{ type: 'text-delta', text: `${line}\n` }],
 * };
 * ```
 */
export interface AgentAdapterV1<TTurnState = unknown> {
  readonly specificationVersion: 'v1';
  /** Registry key, e.g. `claude`, `codex`, `gemini`. */
  readonly adapterId: string;
  readonly capabilities: AgentAdapterCapabilities;

  /**
   * The process to start for a member: registry defaults merged with the
   * member's settings. May be async (e.g. to write a system-prompt file).
   */
  getProcessConfig(
    member: MemberAgentConfig,
    workDir?: string,
    context?: AgentTurnContext,
  ): ProcessConfig | PromiseLike<ProcessConfig>;

  /**
   * The text to send for a message (already holding its context). Adds the
   * system prompt only when `capabilities.systemPrompt` is `'message'`.
   */
  prepareMessage(message: string, member: MemberAgentConfig): string;

  /**
   * The final answer text from a turn's raw stdout, for callers that hold
   * only the output. `AgentManager` parses each line once, as it streams, and
   * takes a turn's text from its `turn-end` part; it calls this only for a
   * turn without one (a parser that does not end turns, a turn ended by
   * `idleTimeout` or `exit`). Give the same text as the `turn-end` part of a
   * successful turn (the conformance suite checks it).
   */
  parseResponse(rawOutput: string): string;

  /**
   * How to tell that a turn is finished. `{ type: 'turn-end' }` lets the
   * adapter's own parser decide (its `turn-end` part ends the turn), so the
   * CLI's completion event is named in one place; the built-in adapters use it.
   */
  getCompletionStrategy(): CompletionStrategy;

  /**
   * Turn-start hook: called by the runner once per turn, before the turn's
   * first line, with who is speaking and what was sent. It returns the state
   * the turn's lines need (the text so far, tool names by call id, the last
   * error…), which every `parseLine` call of that turn gets back as
   * `context.state`. The runner keeps one state per turn, so a single
   * adapter serves any number of members and concurrent turns; the adapter
   * keeps no per-turn state of its own. Optional: stateless adapters omit it.
   */
  startTurn?(turn: AgentTurnStart): TTurnState;

  /**
   * Normalizes one stdout line (its text and, for JSON lines, the parsed
   * value) into stream parts. Unknown or non-JSON lines yield `[]`.
   * `context` is the line's turn (its `startTurn` state, the role, the turn
   * and line numbers); runners always give it. An adapter called without one
   * (a direct call outside a runner) treats its lines as one implicit turn.
   */
  parseLine(line: string, json: unknown, context?: AgentLineContext<TTurnState>): AgentStreamPart[];

  /**
   * Optional: completes the error of a turn the CLI reported as failed with
   * what only its stderr shows (Codex logs the HTTP status of the model API
   * there but streams a generic message). Gets the error built from the
   * turn's parts and the turn's redacted stderr (first and last 4 KiB);
   * returns the error to report. A throwing hook is ignored.
   */
  describeTurnError?(error: AgentError, stderr: { readonly head: string; readonly tail: string }): AgentError;
}

/** Any agent adapter version this core understands. */
export type AgentAdapter = AgentAdapterV1;
