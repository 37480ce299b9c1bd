import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CapabilityUnsupportedError, type AgentTurnContext, type MemberAgentConfig, type ProcessConfig } from '@troupe/core';
import type { ResolvedCodexAdapterSettings } from './codex-adapter-settings';
import { startCodexPermissionSocket, type CodexApprovalFrame, type CodexApprovalOutcome } from './codex-app-server-permissions';
import { codexSessionArgs, resolveCodexProcess } from './codex-command-line';
import { toCodexStrictSchema } from './codex-output-schema';
import { assertNoUndecidedSubagents } from './codex-subagent-guard';

/**
 * Absolute path of the app-server driver (plain JavaScript, run with the current `node`): it holds the JSON-RPC
 * conversation with `codex app-server` for one turn and asks the host about each approval.
 */
export const codexAppServerDriverPath: string = fileURLToPath(new URL('./bin/codex-app-server-driver.mjs', import.meta.url));

/** The approval policy sent when a callback is set: Codex asks before every command and every patch. */
export const CODEX_APP_SERVER_APPROVAL_POLICY = 'untrusted';

/** The app-server sandbox for each `permissionMode` (the same sandboxes `codex exec` gets). */
const SANDBOX = { ask: 'read-only', 'auto-edit': 'workspace-write', 'full-auto': 'danger-full-access' } as const;

/** What {@link codexAppServerProcessConfig} needs. */
export interface CodexAppServerTurn {
  settings: ResolvedCodexAdapterSettings;
  member: MemberAgentConfig;
  workDir?: string | undefined;
  context: AgentTurnContext;
  /** Answers one approval of the turn (the adapter's `decideToolUse` call). */
  decide(frame: CodexApprovalFrame, signal: AbortSignal): Promise<CodexApprovalOutcome>;
}

/**
 * The process of one turn over `codex app-server`: `node codex-app-server-driver.mjs --permission-socket … --thread …
 * -- codex app-server [-c provider, retries, MCP servers] [extraArgs] [member additionalArgs]`. The thread is started
 * (or resumed, or forked) with the model, cwd, approval policy `untrusted`, the sandbox of `permissionMode` and the
 * member's instructions (`developerInstructions`, or `baseInstructions` in `replace` mode); the message goes on stdin.
 *
 * @throws CapabilityUnsupportedError for `continueLastSession` (app-server resumes a thread by id only).
 * @throws InvalidArgumentError / ConfigError as `codex exec`'s command line does (bad session id, no API key…).
 */
export async function codexAppServerProcessConfig(turn: CodexAppServerTurn): Promise<ProcessConfig> {
  const { settings, member, context } = turn;
  if (context.continueLastSession === true) {
    throw new CapabilityUnsupportedError('codex', 'continueSession', 'with permissions set, Codex runs over app-server, which resumes a thread by id only: pass the session id');
  }
  codexSessionArgs(context);
  const basics = resolveCodexProcess(settings, member);
  const cwd = turn.workDir ?? member.workDir;
  const instruction = member.systemInstruction?.trim() ? member.systemInstruction : undefined;
  const overrides = {
    ...(settings.model !== null ? { model: settings.model } : {}),
    ...(cwd !== undefined ? { cwd } : {}),
    approvalPolicy: CODEX_APP_SERVER_APPROVAL_POLICY,
    sandbox: SANDBOX[settings.permissionMode],
    ...(instruction !== undefined ? (settings.systemPromptMode === 'replace' ? { baseInstructions: instruction } : { developerInstructions: instruction }) : {}),
  };
  const opened =
    context.resumeSessionId === undefined
      ? { start: overrides }
      : context.forkSession === true
        ? { fork: { threadId: context.resumeSessionId, ...overrides } }
        : { resume: { threadId: context.resumeSessionId, ...overrides } };
  // A typed turn: turn/start's `outputSchema` constrains the final agent message, as `--output-schema` does for exec.
  const thread = context.outputSchema === undefined ? opened : { ...opened, turn: { outputSchema: toCodexStrictSchema(context.outputSchema) } };

  const dir = await mkdtemp(join(settings.tmpDir ?? tmpdir(), 'troupe-codex-app-'));
  let socket: Awaited<ReturnType<typeof startCodexPermissionSocket>> | undefined;
  const cleanup = async () => {
    await socket?.close().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const threadFile = join(dir, 'thread.json');
    await writeFile(threadFile, JSON.stringify(thread), { encoding: 'utf8', mode: 0o600 });
    socket = await startCodexPermissionSocket(dir, turn.decide);
    const exec = settings.baseArgs.indexOf('exec');
    const codexArgs = [...settings.baseArgs.slice(0, exec), 'app-server', ...basics.providerArgs, ...basics.retryArgs, ...basics.mcpArgs, ...settings.extraArgs, ...(member.additionalArgs ?? [])];
    assertNoUndecidedSubagents(codexArgs, basics.env.CODEX_HOME ?? process.env.CODEX_HOME);
    return {
      command: process.execPath,
      args: [codexAppServerDriverPath, '--permission-socket', socket.path, '--thread', threadFile, '--', settings.command, ...codexArgs],
      ...(cwd !== undefined ? { cwd } : {}),
      env: basics.env,
      messageDelivery: 'stdin',
      installHint: settings.installHint,
      secrets: basics.secrets,
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
