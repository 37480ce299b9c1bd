import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
import { startAcpPermissionSocket } from './acp-permission-socket';
import { askInTerminal, permissionOutcome, type AcpCanUseTool, type AcpPermissionOption, type AcpPermissionRequest } from './acp-permissions';
import { ACP_COMPLETION_TYPES, AcpStreamParser, acpToolName, parseAcpResponse } from './acp-stream-parser';
import { AcpSubagentGate } from './acp-subagent-gate';
import { acpSubagentOf, acpToolCall } from './acp-tool-use';

/**
 * Absolute path of the ACP driver script (plain JavaScript on the official
 * `@agentclientprotocol/sdk`, run with the current `node`): it holds the
 * conversation with the agent for one turn.
 */
export const acpDriverPath: string = fileURLToPath(new URL('./bin/acp-driver.mjs', import.meta.url));

/** An ACP adapter: the v1 contract plus its settings. */
export interface AcpAdapter extends AgentAdapterV1 {
  /** Always async: it may write the MCP config and open the permission socket. */
  getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): Promise<ProcessConfig>;
  readonly settings: Readonly<ResolvedAcpAdapterSettings>;
}

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;

/**
 * Creates an adapter that drives any Agent Client Protocol agent by command —
 * Gemini CLI (`gemini --acp`), Claude Code through `claude-code-acp`, or any
 * other ACP agent — with the official `@agentclientprotocol/sdk`. Each turn
 * is one process: a small driver starts the agent, sends `initialize` and
 * `session/new` (with the member's MCP servers) while the message is on its
 * way, sends `session/prompt`, and prints the agent's updates, which become
 * stream parts (text deltas, tool calls and results, usage, the stop
 * reason). The agent's permission requests go to `canUseTool` in this
 * process, with `acp:permission-requested` / `acp:permission-decided`
 * events on `eventBus`.
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
      const dir = await mkdtemp(join(tmpdir(), 'troupe-acp-'));
      const cleanups: Array<() => void | Promise<void>> = [() => rm(dir, { recursive: true, force: true })];
      const cleanup = async () => {
        for (const step of cleanups.reverse()) await Promise.resolve().then(step).catch(() => {});
      };
      const driverArgs: string[] = [];
      let prepared: Awaited<ReturnType<NonNullable<typeof resolved.prepareTurn>>> = {};
      try {
        if (resolved.prepareTurn) {
          prepared = await resolved.prepareTurn(member);
          if (prepared.cleanup) cleanups.push(prepared.cleanup);
        }
        if (Object.keys(servers).length > 0) {
          const file = join(dir, 'mcp-servers.json');
          await writeFile(file, JSON.stringify(acpMcpServers(servers)), { encoding: 'utf8', mode: 0o600 });
          driverArgs.push('--mcp-config', file);
        }
        if (typeof canUseTool === 'function' || resolved.permissions || resolved.eventBus) {
          const turn = { ...(context.roleId !== undefined ? { agent: context.roleId } : {}), ...(cwd !== undefined ? { workspace: cwd } : {}) };
          const bus = resolved.eventBus;
          const socket = await startAcpPermissionSocket(dir, (question, signal) =>
            question.method === undefined
              ? decide(question.params, signal, turn)
              : clientFs && servesFiles
                ? clientFs.decideFileAccess(question, { adapterId, signal, ...turn, ...(bus ? { bus } : {}) })
                : Promise.resolve({ outcome: 'deny', message: 'this turn serves no file access through the client' }),
          );
          cleanups.push(() => socket.close());
          driverArgs.push('--permission-socket', socket.path);
          if (servesFiles) driverArgs.push('--client-fs');
        } else {
          driverArgs.push('--permission', canUseTool);
        }
      } catch (error) {
        await cleanup();
        throw error;
      }
      if (resumeId !== undefined) driverArgs.push('--resume', resumeId);
      if (resolved.installHint) driverArgs.push('--install-hint', resolved.installHint);
      const env: Record<string, string | undefined> = { ...resolved.env, ...prepared.env, ...member.env };
      return {
        command: process.execPath,
        args: [acpDriverPath, ...driverArgs, '--', resolved.command, ...(resolved.args ?? []), ...(member.additionalArgs ?? [])],
        ...(cwd !== undefined ? { cwd } : {}),
        env,
        messageDelivery: 'stdin',
        ...(resolved.installHint ? { installHint: resolved.installHint } : {}),
        secrets: [...secretValuesFromEnv(env), ...(prepared.secrets ?? []), ...Object.values(servers).flatMap((server) => mcpServerSecrets(server))],
        cleanup,
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
