import { mkdir } from 'node:fs/promises';
import {
  ConfigError,
  InvalidArgumentError,
  memberAgentConfigSchema,
  type AgentAdapterV1,
  type AgentTurnContext,
  type CompletionStrategy,
  type MemberAgentConfig,
  type ProcessConfig,
} from '@troupe/core';
import { withClaudeControl } from './claude-code-control-process';
import { claudeCodeMcpArgs } from './claude-code-mcp-config';
import { resolveClaudeCodeSettings, type ClaudeCodeSettings, type ResolvedClaudeCodeSettings } from './claude-code-settings';
import { ClaudeCodeStreamParser, parseClaudeCodeResponse } from './claude-code-stream-parser';

/**
 * The Claude Code adapter: an {@link AgentAdapterV1} with its resolved
 * settings. Its turn state (`startTurn`) is a {@link ClaudeCodeStreamParser}
 * for that turn alone, so one adapter serves many members at once.
 */
export interface ClaudeCodeAdapter extends AgentAdapterV1<ClaudeCodeStreamParser> {
  readonly adapterId: 'claude';
  /** The validated settings, defaults applied. */
  readonly settings: Readonly<ResolvedClaudeCodeSettings>;
}

/** Session ids are UUIDs; anything that could read as a flag is refused. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/** The parser's `turn-end` part (at the `result` line) ends the turn. */
const COMPLETION: CompletionStrategy = Object.freeze({ type: 'turn-end' });

/**
 * Creates the adapter for the Claude Code CLI (recorded against 2.1.330):
 * `claude -p --output-format stream-json --verbose …` in the member's work
 * directory, the message on stdin, the member's system prompt through
 * `--append-system-prompt` (or `--system-prompt`), completion on the `result`
 * line, and `--resume <session id>` on later turns (`--continue`,
 * `--fork-session` when the runner asks, see `AgentTurnContext`). The member's MCP servers
 * (and the server of its Troupe `tools`) go in through `--mcp-config`, with
 * their tools allowed (see {@link claudeCodeMcpArgs}).
 *
 * @throws ConfigError when a setting is invalid (each bad field is named).
 *
 * @example
 * ```ts
 * import { AgentManager, AdapterRegistry } from '@troupe/core/cli-turn';
 * import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
 *
 * const adapters = new AdapterRegistry();
 * adapters.register({ type: 'claude', create: () => createClaudeCodeAdapter({ permissionMode: 'auto-edit' }) });
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'claude', { systemInstruction: 'You are a careful coder.', workDir: '/repo' });
 * console.log(await manager.sendAndReceive('coder', 'Add a README'));
 * ```
 */
export function createClaudeCodeAdapter(settings: ClaudeCodeSettings = {}): ClaudeCodeAdapter {
  const resolved = Object.freeze(resolveClaudeCodeSettings(settings));
  const baseArgs = withRequiredArgs(resolved.baseArgs);
  // Lines parsed without a turn context (direct calls, not through a runner) share one implicit turn.
  let implicitTurn: ClaudeCodeStreamParser | undefined;
  return {
    specificationVersion: 'v1',
    adapterId: 'claude',
    settings: resolved,
    capabilities: {
      systemPrompt: 'flag',
      resume: true,
      continueSession: true,
      forkSession: true,
      streamingText: resolved.includePartialMessages,
      mcpServers: true,
      // `--json-schema`: the CLI offers the model a StructuredOutput tool and returns its input as `structured_output`.
      outputSchema: 'structured-field',
    },
    getProcessConfig: (member, workDir, context) => buildClaudeCodeProcessConfig(resolved, baseArgs, member, workDir, context),
    prepareMessage(message) {
      if (typeof message !== 'string') throw new InvalidArgumentError('message', `expected a string, got ${typeof message}`);
      // The system prompt goes through its flag, never in the message.
      if (resolved.inputFormat === 'text') return message;
      return JSON.stringify({ type: 'user', message: { role: 'user', content: message } });
    },
    parseResponse: (rawOutput) => parseClaudeCodeResponse(rawOutput),
    getCompletionStrategy: () => COMPLETION,
    startTurn: () => new ClaudeCodeStreamParser(),
    parseLine: (line, json, context) => (context?.state ?? (implicitTurn ??= new ClaudeCodeStreamParser())).parseLine(line, json),
  };
}

/**
 * The process for one member's turn. Environment precedence, lowest first:
 * the host's, the adapter's own variables, `settings.env`, `member.env`.
 */
async function buildClaudeCodeProcessConfig(
  settings: ResolvedClaudeCodeSettings,
  baseArgs: readonly string[],
  memberInput: MemberAgentConfig,
  workDir: string | undefined,
  context: AgentTurnContext = {},
): Promise<ProcessConfig> {
  const parsedMember = memberAgentConfigSchema.safeParse(memberInput ?? {});
  if (!parsedMember.success) throw ConfigError.fromZod('member agent config', parsedMember.error);
  const member = parsedMember.data;

  const args = [...baseArgs];
  if (settings.inputFormat === 'stream-json' && !args.includes('--input-format')) args.push('--input-format', 'stream-json');
  if (settings.includePartialMessages && !args.includes('--include-partial-messages')) args.push('--include-partial-messages');
  if (settings.model !== undefined) args.push('--model', settings.model);
  if (settings.permissionMode === 'auto-edit') args.push('--permission-mode', 'acceptEdits');
  else if (settings.permissionMode === 'full-auto') args.push('--dangerously-skip-permissions');
  if (member.systemInstruction) {
    args.push(settings.systemPromptMode === 'replace' ? '--system-prompt' : '--append-system-prompt', member.systemInstruction);
  }
  args.push(...claudeCodeSessionArgs(context));
  if (context.outputSchema !== undefined) args.push('--json-schema', JSON.stringify(context.outputSchema));
  const extraArgs = [...(settings.extraArgs ?? []), ...(member.additionalArgs ?? [])];

  const env: Record<string, string | undefined> = {
    CLAUDE_CODE_MAX_RETRIES: String(settings.maxRetries),
  };
  if (settings.baseUrl !== undefined) env.ANTHROPIC_BASE_URL = settings.baseUrl;
  if (settings.apiKey !== undefined) env.ANTHROPIC_API_KEY = settings.apiKey;
  if (settings.disableNonessentialTraffic) env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  // As root the CLI refuses --dangerously-skip-permissions unless it is told it runs in a sandbox.
  if (settings.permissionMode === 'full-auto' && process.getuid?.() === 0) env.IS_SANDBOX = '1';
  if (settings.home !== undefined) {
    await mkdir(settings.home, { recursive: true });
    env.HOME = settings.home;
  }
  if (settings.tmpDir !== undefined) {
    await mkdir(settings.tmpDir, { recursive: true });
    env.TMPDIR = settings.tmpDir;
  }
  Object.assign(env, settings.env, member.env);

  // Last, so nothing can fail after the config file is written.
  const mcp = await claudeCodeMcpArgs(member.mcpServers, settings.tmpDir);
  args.push(...mcp.args, ...extraArgs);
  const cwd = workDir ?? member.workDir;
  return withClaudeControl({
    command: settings.command,
    args,
    ...(cwd !== undefined ? { cwd } : {}),
    env,
    messageDelivery: 'stdin',
    installHint: settings.installHint,
    secrets: [...(settings.apiKey !== undefined ? [settings.apiKey] : []), ...mcp.secrets],
    ...(mcp.cleanup ? { cleanup: mcp.cleanup } : {}),
  }, settings, context.roleId);
}

/**
 * The session flags of a turn (as recorded from Claude Code 2.1.330):
 * `--resume <session id>`, or `--continue` (the last session of the cwd),
 * each optionally with `--fork-session` (a new session id, the resumed
 * session left as it was).
 */
function claudeCodeSessionArgs(context: AgentTurnContext): string[] {
  const { resumeSessionId: sessionId, continueLastSession, forkSession } = context;
  const args: string[] = [];
  if (sessionId !== undefined) {
    if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) {
      throw new InvalidArgumentError(
        'context.resumeSessionId',
        `expected a Claude Code session id like "766389a5-2e15-4706-bb1d-13c76850782f", got ${JSON.stringify(sessionId)}`,
      );
    }
    if (continueLastSession === true) {
      throw new InvalidArgumentError('context.continueLastSession', 'give either resumeSessionId or continueLastSession, not both');
    }
    args.push('--resume', sessionId);
  } else if (continueLastSession === true) args.push('--continue');
  if (forkSession === true) {
    if (args.length === 0) throw new InvalidArgumentError('context.forkSession', 'forkSession needs resumeSessionId or continueLastSession');
    args.push('--fork-session');
  }
  return args;
}

/**
 * The base arguments with the ones the adapter relies on added when missing:
 * `-p`, `--output-format stream-json` and `--verbose` (without it the CLI
 * exits 1: "--output-format=stream-json requires --verbose").
 */
function withRequiredArgs(baseArgs: readonly string[]): string[] {
  const args = [...baseArgs];
  if (!args.includes('-p') && !args.includes('--print')) args.unshift('-p');
  const at = args.indexOf('--output-format');
  const inline = args.find((arg) => arg.startsWith('--output-format='));
  const format = at >= 0 ? args[at + 1] : inline?.slice('--output-format='.length);
  if (format === undefined) args.push('--output-format', 'stream-json');
  else if (format !== 'stream-json') {
    throw new ConfigError('Claude Code adapter settings', [
      { path: ['baseArgs'], message: `--output-format must be stream-json (the adapter reads JSONL events), got ${JSON.stringify(format)}` },
    ]);
  }
  if (!args.includes('--verbose')) args.push('--verbose');
  return args;
}
