import {
  ConfigError,
  createToolHookObserver,
  InvalidArgumentError,
  isMcpHttpServer,
  mcpServerSecrets,
  type AgentAdapterCapabilities,
  type AgentAdapterV1,
  type AgentStreamPart,
  type AgentTurnContext,
  type MemberAgentConfig,
  type ProcessConfig,
} from '@troupe/core';
import { secretValuesFromEnv } from '@troupe/core/util';
import { resolveAcpAdapterSettings, type AcpAdapterSettings, type ResolvedAcpAdapterSettings } from './acp-adapter-settings';
import { registerAcpEvents } from './acp-events';
import { AcpClientFs } from './acp-client-fs';
import { acpMcpServers } from './acp-mcp-servers';
import { acpClientControl } from './acp-client-control';
import { askInTerminal, permissionOutcome, type AcpCanUseTool, type AcpPermissionOption, type AcpPermissionRequest } from './acp-permissions';
import { ACP_COMPLETION_TYPES, AcpStreamParser, acpToolName, parseAcpResponse } from './acp-stream-parser';
import { AcpSubagentGate } from './acp-subagent-gate';
import { acpSubagentOf, acpToolCall } from './acp-tool-use';

/** An ACP adapter: the v1 contract plus its settings. */
export interface AcpAdapter extends AgentAdapterV1 {
  /** Always async: it may prepare the turn (`prepareTurn`). */
  getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): Promise<ProcessConfig>;
  readonly settings: Readonly<ResolvedAcpAdapterSettings>;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/**
 * Creates an adapter that drives any Agent Client Protocol agent by command —
 * Gemini CLI (`gemini --acp`), Claude Code through `claude-code-acp`, or any
 * other ACP agent — on the official `@agentclientprotocol/sdk`'s protocol
 * definitions. Each turn is one agent process, and this process is its ACP
 * client, on the agent's own stdio (no driver in between): `initialize` and
 * `session/new` (with the member's MCP servers) go out while the message is
 * on its way, the message becomes `session/prompt`, and the agent's updates
 * become stream parts (text deltas, tool calls and results, usage, the stop
 * reason). The agent's permission requests (and, with `permissions`, its
 * file reads and writes through the client) are decided by `canUseTool` in
 * this process and answered at once, with `acp:permission-requested` /
 * `acp:permission-decided` events on `eventBus`.
 *
 * @throws ConfigError for invalid settings, naming each bad field.
 *
 * @example
 * ```ts
 * const adapters = new AdapterRegistry();
 * adapters.register(createAcpAdapterPlugin({
 *   adapterId: 'claude-acp',
 *   command: 'claude-code-acp',
 *   canUseTool: (request) => request.kind === 'edit' || request.kind === 'read',
 * }));
 * const manager = new AgentManager({ adapters });
 * await manager.ensureAgentStarted('coder', 'claude-acp', { workDir: '/repo' });
 * console.log(await manager.sendAndReceive('coder', 'Add a README'));
 * ```
 */
export function createAcpAdapter(settings: AcpAdapterSettings): AcpAdapter {
  const resolved = Object.freeze(resolveAcpAdapterSettings(settings));
  // canUseTool's deny messages by tool call id: the parser puts them in the denied call's parts.
  const denyReasons = new Map<string, string>();
  // Deny messages not yet told to the model (most agents drop them): they go with the next message.
  let untoldDenials: string[] = [];
  const parser = new AcpStreamParser((toolCallId) => denyReasons.get(toolCallId));
  const { adapterId } = resolved;
  const canUseTool: AcpCanUseTool | 'allow' | 'deny' = resolved.canUseTool === 'ask' ? askInTerminal() : resolved.canUseTool;
  if (resolved.eventBus) registerAcpEvents();
  // With the shared contract, decisions go through one gate; unless `clientFs: false`, the agent's file reads and
  // writes go through this client too, each decided before it runs.
  const clientFs = resolved.permissions ? new AcpClientFs(resolved.permissions) : undefined;
  const servesFiles = clientFs !== undefined && resolved.clientFs !== false;
  // The observing hooks (postToolUse, stop, subagentStart/Stop) follow the parts; each turn gets its own observer.
  const hookObserver = (turn: { agent?: string; workspace?: string }) =>
    createToolHookObserver({
      hooks: resolved.permissions?.hooks,
      agent: turn.agent ?? adapterId,
      adapter: adapterId,
      requestOf: (toolCallId) => {
        const call = parser.reportedCall(toolCallId);
        return call ? acpToolCall(call, { adapterId, ...turn }) : undefined;
      },
      subagentOf: (part) => acpSubagentOf(part),
      ...(resolved.eventBus ? { bus: resolved.eventBus } : {}),
    });
  let observeHooks = hookObserver({});
  // subagentStart waits until the sub-agent's call is allowed (or has run unasked).
  const subagentGate = new AcpSubagentGate((part) => acpSubagentOf(part) !== undefined);
  const capabilities: AgentAdapterCapabilities = Object.freeze({
    systemPrompt: resolved.systemPrompt === 'none' ? 'none' : 'message',
    resume: resolved.resume === true,
    streamingText: true,
    mcpServers: true,
  });

  const decide = async (params: unknown, signal: AbortSignal, turn: { agent?: string; workspace?: string } = {}) => {
    const request = toPermissionRequest(params);
    const bus = resolved.eventBus;
    const base = { adapterId, sessionId: request.sessionId, toolCallId: request.toolCallId, toolName: request.toolName };
    bus?.emit('acp:permission-requested', {
      ...base,
      ...(request.title !== undefined ? { title: request.title } : {}),
      ...(request.kind !== undefined ? { kind: request.kind } : {}),
      options: request.options.map(({ optionId, name, kind }) => ({ optionId, name, kind })),
    });
    let decided: ReturnType<typeof permissionOutcome>;
    try {
      const answer = clientFs
        ? await clientFs.decidePermission(request, { adapterId, signal, ...turn, ...(bus ? { bus } : {}) })
        : typeof canUseTool === 'function'
          ? await canUseTool(request, { signal })
          : canUseTool;
      decided = permissionOutcome(answer, request.options);
      if (signal.aborted) decided = { outcome: { outcome: 'cancelled' }, decision: 'cancelled', message: 'the turn ended' };
    } catch (error) {
      decided = { outcome: { outcome: 'cancelled' }, decision: 'cancelled', message: `canUseTool failed: ${(error as Error)?.message ?? String(error)}` };
    }
    if (decided.decision !== 'allow' && decided.message !== undefined && request.toolCallId !== '') {
      if (denyReasons.size >= 256) denyReasons.delete(denyReasons.keys().next().value as string);
      denyReasons.set(request.toolCallId, decided.message);
      if (decided.decision === 'deny') untoldDenials.push(`your ${request.toolName} call${request.title ? ` (${request.title})` : ''} was denied: ${decided.message}`);
    }
    bus?.emit('acp:permission-decided', {
      ...base,
      decision: decided.decision,
      ...('optionId' in decided.outcome ? { optionId: decided.outcome.optionId } : {}),
      ...(decided.message !== undefined ? { message: decided.message } : {}),
    });
    return decided.outcome;
  };

  return {
    specificationVersion: 'v1',
    adapterId,
    settings: resolved,
    capabilities,

    async getProcessConfig(member: MemberAgentConfig, workDir?: string, context: AgentTurnContext = {}): Promise<ProcessConfig> {
      const cwd = workDir ?? member.workDir;
      const servers = member.mcpServers ?? {};
      for (const [name, server] of Object.entries(servers)) {
        if (!isMcpHttpServer(server) && server.cwd !== undefined) {
          throw new ConfigError('member config', [{ path: ['mcpServers', name, 'cwd'], message: 'ACP takes no working directory per MCP server; remove cwd' }]);
        }
      }
      const resumeId = capabilities.resume ? context.resumeSessionId : undefined;
      if (resumeId !== undefined && !SESSION_ID.test(resumeId)) {
        throw new InvalidArgumentError('context.resumeSessionId', `expected an ACP session id, got ${JSON.stringify(resumeId)}`);
      }
      observeHooks = hookObserver({ ...(context.roleId !== undefined ? { agent: context.roleId } : {}), ...(cwd !== undefined ? { workspace: cwd } : {}) });
      let prepared: Awaited<ReturnType<NonNullable<typeof resolved.prepareTurn>>> = {};
      if (resolved.prepareTurn) prepared = await resolved.prepareTurn(member);
      const env: Record<string, string | undefined> = { ...resolved.env, ...prepared.env, ...member.env };
      const turn = { ...(context.roleId !== undefined ? { agent: context.roleId } : {}), ...(cwd !== undefined ? { workspace: cwd } : {}) };
      const bus = resolved.eventBus;
      // A callback (or events to tell) decides in this process; a fixed answer is given without asking anyone.
      const asks = typeof canUseTool === 'function' || resolved.permissions !== undefined || bus !== undefined;
      const traceFile = env.TROUPE_ACP_DRIVER_TRACE ?? process.env.TROUPE_ACP_DRIVER_TRACE;
      const control = acpClientControl({
        cwd: cwd ?? process.cwd(),
        mcpServers: acpMcpServers(servers),
        ...(resumeId !== undefined ? { resumeSessionId: resumeId } : {}),
        clientFs: asks && servesFiles,
        // A fixed answer picks the agent's allow (or reject) option, once by preference; none offered cancels.
        askPermission: (params, signal) => (asks ? decide(params, signal, turn) : Promise.resolve(permissionOutcome(canUseTool as 'allow' | 'deny', params.options).outcome)),
        askFileAccess: (question, signal) =>
          asks && clientFs && servesFiles
            ? clientFs.decideFileAccess(question, { adapterId, signal, ...turn, ...(bus ? { bus } : {}) })
            : Promise.resolve({ outcome: 'deny', message: 'this turn serves no file access through the client' }),
        ...(traceFile ? { traceFile } : {}),
      });
      return {
        command: resolved.command,
        args: [...(resolved.args ?? []), ...(member.additionalArgs ?? [])],
        ...(cwd !== undefined ? { cwd } : {}),
        env,
        messageDelivery: 'stdin',
        control,
        ...(resolved.installHint ? { installHint: resolved.installHint } : {}),
        secrets: [...secretValuesFromEnv(env), ...(prepared.secrets ?? []), ...Object.values(servers).flatMap((server) => mcpServerSecrets(server))],
        ...(prepared.cleanup ? { cleanup: prepared.cleanup } : {}),
      };
    },

    prepareMessage(message: string, member: MemberAgentConfig): string {
      if (typeof message !== 'string') throw new InvalidArgumentError('message', `expected a string, got ${typeof message}`);
      // ACP's permission answer carries no reason the agent must read (Gemini tells its model "canceled by the user"):
      // the reasons of the last turn's denials go with the next message.
      const notes = untoldDenials.length > 0 ? `[Troupe] In the previous turn, ${untoldDenials.join('; ')}. That call did not run.\n\n` : '';
      untoldDenials = [];
      const text = `${notes}${message}`;
      return capabilities.systemPrompt === 'message' && member.systemInstruction ? `${member.systemInstruction}\n\n${text}` : text;
    },

    parseResponse: (rawOutput: string) => parseAcpResponse(rawOutput),

    getCompletionStrategy: () => ({ type: 'jsonl', completionTypes: ACP_COMPLETION_TYPES }),

    parseLine(_line: string, json: unknown): AgentStreamPart[] {
      const parts = parser.parse(json);
      observeHooks?.(subagentGate.filter(json, parts));
      return parts;
    },
  };
}

function toPermissionRequest(params: unknown): AcpPermissionRequest {
  const value = (params ?? {}) as {
    sessionId?: unknown;
    toolCall?: { toolCallId?: unknown; title?: unknown; kind?: unknown; rawInput?: unknown; locations?: unknown; _meta?: unknown };
    options?: unknown;
  };
  const call = value.toolCall ?? {};
  const toolCallId = typeof call.toolCallId === 'string' ? call.toolCallId : '';
  const title = typeof call.title === 'string' ? call.title : undefined;
  const kind = typeof call.kind === 'string' ? call.kind : undefined;
  const options = Array.isArray(value.options)
    ? value.options.filter((option): option is AcpPermissionOption => typeof option?.optionId === 'string' && typeof option?.kind === 'string').map((option) => ({
        optionId: option.optionId,
        name: typeof option.name === 'string' ? option.name : option.optionId,
        kind: option.kind,
      }))
    : [];
  return {
    sessionId: typeof value.sessionId === 'string' ? value.sessionId : '',
    toolCallId,
    toolName: acpToolName({ toolCallId, ...(kind !== undefined ? { kind } : {}), ...(title !== undefined ? { title } : {}), _meta: call._meta }),
    title,
    kind,
    input: call.rawInput,
    locations: Array.isArray(call.locations) ? (call.locations as Array<{ path: string; line?: number | null }>).filter((location) => typeof location?.path === 'string') : [],
    options,
  };
}
