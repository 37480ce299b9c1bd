import { CapabilityUnsupportedError, type AgentTurnContext, type MemberAgentConfig, type ProcessConfig } from '@troupe/core';
import type { ResolvedCodexAdapterSettings } from './codex-adapter-settings';
import { codexAppServerControl, type CodexAppServerThread } from './codex-app-server-control';
import type { CodexApprovalFrame, CodexApprovalOutcome } from './codex-app-server-permissions';
import { codexSessionArgs, resolveCodexProcess } from './codex-command-line';
import { toCodexStrictSchema } from './codex-output-schema';
import { assertNoUndecidedSubagents } from './codex-subagent-guard';

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
 * The process of one turn over `codex app-server`: `codex app-server [-c provider, retries, MCP servers] [extraArgs]
 * [member additionalArgs]`, spoken to in the host by {@link codexAppServerControl} (no process in between, so an
 * approval is answered without a hop). The thread is started (or resumed, or forked) with the model, cwd, approval
 * policy `untrusted`, the sandbox of `permissionMode` and the member's instructions (`developerInstructions`, or
 * `baseInstructions` in `replace` mode); the message goes out as `turn/start`.
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
  const opened: CodexAppServerThread =
    context.resumeSessionId === undefined
      ? { start: overrides }
      : context.forkSession === true
        ? { fork: { threadId: context.resumeSessionId, ...overrides } }
        : { resume: { threadId: context.resumeSessionId, ...overrides } };
  // A typed turn: turn/start's `outputSchema` constrains the final agent message, as `--output-schema` does for exec.
  const thread: CodexAppServerThread = context.outputSchema === undefined ? opened : { ...opened, turn: { outputSchema: toCodexStrictSchema(context.outputSchema) } };

  const exec = settings.baseArgs.indexOf('exec');
  const codexArgs = [...settings.baseArgs.slice(0, exec), 'app-server', ...basics.providerArgs, ...basics.retryArgs, ...basics.mcpArgs, ...settings.extraArgs, ...(member.additionalArgs ?? [])];
  assertNoUndecidedSubagents(codexArgs, basics.env.CODEX_HOME ?? process.env.CODEX_HOME);
  return {
    command: settings.command,
    args: codexArgs,
    ...(cwd !== undefined ? { cwd } : {}),
    env: basics.env,
    messageDelivery: 'stdin',
    control: codexAppServerControl({ thread, decide: turn.decide }),
    installHint: settings.installHint,
    secrets: basics.secrets,
  };
}
