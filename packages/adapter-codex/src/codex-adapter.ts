import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  compileToolPolicy,
  InvalidArgumentError,
  type AgentAdapterV1,
  type AgentTurnContext,
  type CompletionStrategy,
  type MemberAgentConfig,
  type ProcessConfig,
  type ToolUseRequest,
} from '@troupe/core';
import { parseJsonLine } from '@troupe/core/util';
import { resolveCodexAdapterSettings, type CodexAdapterSettings } from './codex-adapter-settings';
import { CODEX_API_STATUS_LOG_FILTER, describeCodexTurnError } from './codex-api-status';
import { createCodexAppServerParser, parseCodexAppServerResponse } from './codex-app-server-parser';
import { decideCodexApproval, withCodexToolHooks } from './codex-app-server-permissions';
import { toCodexStrictSchema } from './codex-output-schema';
import { codexAppServerProcessConfig } from './codex-app-server-process';
import { buildCodexCommandLine, type CodexCommandLine } from './codex-command-line';
import { createCodexLineParser, parseCodexResponse, type CodexLineParser } from './codex-line-parser';

/** Adapter id and registry type of the Codex CLI adapter. */
export const CODEX_ADAPTER_ID = 'codex';

export { CODEX_COMPLETION_TYPES } from './codex-events';

/** Linux's limit for one argument (`MAX_ARG_STRLEN`); a longer prompt needs `promptDelivery: 'stdin'`. */
const MAX_ARGUMENT_BYTES = 128 * 1024;

/** Deny messages (and allowed requests, for `postToolUse`) kept per item id (the oldest go first). */
const MAX_DENY_REASONS = 1024;

/**
 * The Codex CLI adapter (its settings, which may hold the API key, are not
 * exposed). Its turn state (`startTurn`) is a {@link CodexLineParser} for that
 * turn alone, so one adapter serves many members at once.
 */
export interface CodexAdapter extends AgentAdapterV1<CodexLineParser> {
  readonly adapterId: 'codex';
}

/**
 * Creates the adapter for the OpenAI Codex CLI (`codex exec --json`, recorded
 * against Codex 0.169.0). Each turn is one `codex exec` process; the next
 * turn runs `codex exec … resume <thread_id>`. Completion is the
 * `turn.completed` / `turn.failed` event, so there is no idle timeout.
 *
 * With `permissions` set, each turn runs `codex app-server` instead (JSON-RPC
 * over Codex's own stdio, spoken in this process): Codex asks before every command and
 * patch, and each request is decided by core's `decideToolUse` (policy,
 * `canUseTool`, hooks; fail closed) before Codex runs anything. The stream
 * parts, completion, usage and sessions are the same as with `codex exec`.
 *
 * The state of the turn being parsed (the last agent message, open tool
 * calls) lives in each turn's context, so one adapter can serve several
 * members and concurrent turns.
 *
 * @throws ConfigError naming each bad setting.
 *
 * @example
 * ```ts
 * import { AgentManager, AdapterRegistry } from '@troupe/core/cli-turn';
 * import { createCodexAdapter } from '@troupe/adapter-codex';
 *
 * const adapters = new AdapterRegistry();
 * adapters.register({ type: 'codex', create: () => createCodexAdapter({ permissionMode: 'auto-edit' }) });
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'codex', { systemInstruction: 'You are a careful coder.', workDir: '/path/to/repo' });
 * console.log(await manager.sendAndReceive('coder', 'Add a README'));
 * await manager.cleanup();
 * ```
 */
export function createCodexAdapter(settings: CodexAdapterSettings = {}): CodexAdapter {
  const resolved = Object.freeze(resolveCodexAdapterSettings(settings));
  // A malformed policy is an error here, at start, naming the rule (not at the first tool call).
  const permissions =
    resolved.permissions === undefined
      ? undefined
      : { ...resolved.permissions, ...(resolved.permissions.policy !== undefined ? { policy: 'rules' in resolved.permissions.policy ? resolved.permissions.policy : compileToolPolicy(resolved.permissions.policy) } : {}) };
  // The deny message of each declined item, for its tool-result part (Codex reports only "declined").
  const denyReasons = new Map<string, string>();
  const denyReason = (itemId: string) => denyReasons.get(itemId);
  // The requests of the calls Troupe allowed, by item id, for the postToolUse hook.
  const allowed = new Map<string, Omit<ToolUseRequest, 'signal'>>();
  const appServerParser = () => withCodexToolHooks(createCodexAppServerParser({ ...parserOptions, denyReason }), permissions?.hooks, allowed, CODEX_ADAPTER_ID, permissions?.bus);
  // Codex does not name its model in its output: the session part gives the one passed with `-m`.
  const parserOptions = { model: resolved.model ?? undefined };
  // Lines parsed without a turn context (direct calls, not through a runner) share one implicit turn.
  let implicitTurn: CodexLineParser | undefined;
  // The parser's `turn-end` part (at `turn.completed` / `turn.failed`) ends the turn.
  const completion: CompletionStrategy = { type: 'turn-end' };

  return {
    specificationVersion: 'v1',
    adapterId: CODEX_ADAPTER_ID,
    // app-server resumes a thread by id only: no "continue the last session" with permissions.
    // outputSchema: `--output-schema FILE` (exec) or turn/start's `outputSchema` (app-server); the final agent message is the JSON.
    capabilities: {
      systemPrompt: 'flag',
      resume: true,
      continueSession: permissions === undefined,
      forkSession: true,
      streamingText: false,
      mcpServers: true,
      outputSchema: 'final-text',
    },

    async getProcessConfig(member: MemberAgentConfig, workDir?: string, context: AgentTurnContext = {}): Promise<ProcessConfig> {
      // Codex refuses a CODEX_HOME that does not exist; create the isolated folders it is given.
      for (const dir of [resolved.home, resolved.codexHome, resolved.tmpDir]) {
        if (dir !== undefined) await mkdir(dir, { recursive: true });
      }
      if (permissions !== undefined) {
        const workspace = workDir ?? member.workDir;
        const config = await codexAppServerProcessConfig({
          settings: resolved,
          member,
          workDir,
          context,
          decide: async (frame, signal) => {
            const outcome = await decideCodexApproval(frame, { agent: context.roleId ?? CODEX_ADAPTER_ID, workspace, signal }, permissions);
            if (outcome.decision === 'decline' && outcome.message !== undefined && outcome.itemId) {
              if (denyReasons.size >= MAX_DENY_REASONS) denyReasons.delete(denyReasons.keys().next().value as string);
              denyReasons.set(outcome.itemId, outcome.message);
            } else if (outcome.decision === 'accept' && outcome.request && permissions.hooks?.postToolUse) {
              if (allowed.size >= MAX_DENY_REASONS) allowed.delete(allowed.keys().next().value as string);
              const { signal: _signal, ...request } = outcome.request;
              allowed.set(request.id, request);
            }
            return outcome;
          },
        });
        return { ...config, env: withApiStatusLog(config.env ?? {}) };
      }
      // The files of this turn's flags (replace-mode instructions, a typed turn's schema), removed when the turn ends.
      let instructionsDir: string | undefined;
      let instructionsFile: string | undefined;
      let outputSchemaFile: string | undefined;
      const replaceInstructions = resolved.systemPromptMode === 'replace' && member.systemInstruction !== undefined && member.systemInstruction.trim() !== '';
      if (replaceInstructions || context.outputSchema !== undefined) instructionsDir = await mkdtemp(join(resolved.tmpDir ?? tmpdir(), 'troupe-codex-'));
      if (replaceInstructions && instructionsDir !== undefined) {
        instructionsFile = join(instructionsDir, 'instructions.md');
        await writeFile(instructionsFile, member.systemInstruction as string, { encoding: 'utf8', mode: 0o600 });
      }
      if (context.outputSchema !== undefined && instructionsDir !== undefined) {
        outputSchemaFile = join(instructionsDir, 'output-schema.json');
        await writeFile(outputSchemaFile, JSON.stringify(toCodexStrictSchema(context.outputSchema)), { encoding: 'utf8', mode: 0o600 });
      }
      const removeInstructions = async () => {
        if (instructionsDir !== undefined) await rm(instructionsDir, { recursive: true, force: true });
      };
      let line: CodexCommandLine;
      try {
        line = buildCodexCommandLine({
          settings: resolved,
          member,
          ...(workDir !== undefined ? { workDir } : {}),
          ...(context.resumeSessionId !== undefined ? { resumeSessionId: context.resumeSessionId } : {}),
          ...(context.continueLastSession === true ? { continueLastSession: true } : {}),
          ...(context.forkSession === true ? { forkSession: true } : {}),
          ...(instructionsFile !== undefined ? { instructionsFile } : {}),
          ...(outputSchemaFile !== undefined ? { outputSchemaFile } : {}),
        });
      } catch (error) {
        await removeInstructions();
        throw error;
      }
      return {
        command: line.command,
        args: line.args,
        ...(line.cwd !== undefined ? { cwd: line.cwd } : {}),
        env: withApiStatusLog(line.env),
        messageDelivery: resolved.promptDelivery === 'stdin' ? 'stdin' : 'argument',
        installHint: resolved.installHint,
        secrets: line.secrets, // redacted by core from every line, part, result and error
        ...(instructionsDir !== undefined ? { cleanup: removeInstructions } : {}),
      };
    },

    prepareMessage(message: string): string {
      // The system prompt goes by flag (developer_instructions / model_instructions_file), never in the message.
      if (typeof message !== 'string') throw new InvalidArgumentError('message', `expected a string, got ${typeof message}`);
      if (resolved.promptDelivery === 'stdin' || permissions !== undefined) return message;
      if (message.includes('\u0000')) {
        throw new InvalidArgumentError('message', "contains a NUL character, which a process argument cannot carry; use promptDelivery: 'stdin'");
      }
      if (Buffer.byteLength(message, 'utf8') >= MAX_ARGUMENT_BYTES) {
        throw new InvalidArgumentError(
          'message',
          `is ${Buffer.byteLength(message, 'utf8')} bytes, over Linux's 128 KiB limit for one argument; create the adapter with promptDelivery: 'stdin'`,
        );
      }
      return message;
    },

    parseResponse: (rawOutput: string) => (permissions === undefined ? parseCodexResponse(rawOutput) : parseCodexAppServerResponse(rawOutput)),

    getCompletionStrategy: () => completion,

    startTurn: () => (permissions === undefined ? createCodexLineParser(parserOptions) : appServerParser()),

    describeTurnError: describeCodexTurnError,

    parseLine: (line, json, context) =>
      (context?.state ?? (implicitTurn ??= permissions === undefined ? createCodexLineParser(parserOptions) : appServerParser())).parse(
        json === undefined ? parseJsonLine(line) : json,
      ),
  };
}

/** Codex logs each model API request's HTTP status only under RUST_LOG (see describeTurnError); a RUST_LOG of the user's wins. */
function withApiStatusLog(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return process.env.RUST_LOG === undefined && env.RUST_LOG === undefined ? { ...env, RUST_LOG: CODEX_API_STATUS_LOG_FILTER } : env;
}
