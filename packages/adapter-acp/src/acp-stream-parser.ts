import type { AgentStreamPart, AgentUsage } from '@troupe/core';
import { z } from 'zod';
import type { AcpPermissionRequest } from './acp-permissions';

type AcpLocation = AcpPermissionRequest['locations'][number];

/** Event types (`type` of the ACP client's own lines) that end a turn. */
export const ACP_COMPLETION_TYPES: readonly string[] = ['acp.prompt-result', 'acp.error'];

const toolCallSchema = z.looseObject({
  toolCallId: z.string(),
  title: z.string().optional(),
  kind: z.string().optional(),
  status: z.string().optional(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  content: z.unknown().optional(),
  locations: z.unknown().optional(),
  _meta: z.unknown().optional(),
});

const updateSchema = z.looseObject({
  method: z.literal('session/update'),
  params: z.looseObject({ update: z.looseObject({ sessionUpdate: z.string() }) }),
});

const permissionRequestSchema = z.looseObject({
  method: z.literal('session/request_permission'),
  params: z.looseObject({
    toolCall: toolCallSchema,
    options: z.array(z.looseObject({ optionId: z.string(), kind: z.string() })).optional().catch(undefined),
  }),
});

const permissionAnswerSchema = z.looseObject({
  type: z.literal('acp.permission'),
  toolCallId: z.string(),
  outcome: z.looseObject({ outcome: z.string(), optionId: z.string().optional(), _meta: z.record(z.string(), z.unknown()).nullish() }),
});

/** Reason key in a selected outcome's `_meta` (mirrors `ACP_DENY_REASON_META_KEY`). */
const DENY_REASON_KEY = 'troupe/reason';

/** A tool call whose permission was refused in this turn. */
interface AcpDenial {
  toolCallId: string;
  toolName: string;
  input: unknown;
  reason: string;
  /** The agent reported a result of its own for the call. */
  answered: boolean;
}

const textChunkSchema = z.looseObject({ content: z.looseObject({ type: z.literal('text'), text: z.string() }) });

const tokenCountSchema = z.looseObject({ input_tokens: z.number().optional(), output_tokens: z.number().optional() });
const promptResultSchema = z.looseObject({
  type: z.literal('acp.prompt-result'),
  response: z
    .looseObject({
      stopReason: z.string().optional(),
      usage: z
        .looseObject({
          inputTokens: z.number().optional(),
          outputTokens: z.number().optional(),
          cachedReadTokens: z.number().optional(),
          thoughtTokens: z.number().optional(),
        })
        .nullish(),
      _meta: z.looseObject({ quota: z.looseObject({ token_count: tokenCountSchema.optional() }).optional() }).nullish(),
    })
    .optional(),
});

const errorSchema = z.looseObject({ type: z.literal('acp.error'), message: z.string(), code: z.unknown().optional(), data: z.unknown().optional() });
const sessionSchema = z.looseObject({ type: z.literal('acp.session'), sessionId: z.string().min(1) });

/**
 * Turns what the ACP client passes on (the agent's `session/update`
 * notifications and permission requests as sent, plus its own `acp.*` lines)
 * into Troupe stream parts:
 *
 * | line | parts |
 * |---|---|
 * | `acp.session` | `session` |
 * | `session/update` `agent_message_chunk` | `text-delta` |
 * | `session/update` `tool_call`, `session/request_permission` | `tool-call` (once per id) |
 * | `session/update` `tool_call_update`, status `completed` / `failed` | `tool-result` |
 * | `acp.permission` rejecting or cancelling the request | `warning` (`permission-denied`, with the reason) |
 * | `acp.prompt-result` | a failed `tool-result` (the reason) for each refused call the agent gave no result for, `usage` (ACP `usage`, or Gemini's `_meta.quota`), `turn-end` with the stop reason |
 * | `acp.error` | `error` (HTTP status when the message embeds a provider error), `turn-end` with `isError` |
 * | `acp.agent-exited` | `error` (the process then fails with the agent's exit code) |
 *
 * Keep one parser per agent member: it holds the turn's text and tool names.
 */
export class AcpStreamParser {
  private text = '';
  private sessionId: string | undefined;
  private readonly toolNames = new Map<string, string>();
  private readonly toolInputs = new Map<string, unknown>();
  /** The ACP kind, title and locations of each call reported in this turn (for the hooks' requests). */
  private readonly toolDetails = new Map<string, { kind?: string; title?: string; locations: AcpLocation[] }>();
  /** Option kinds by tool call id and option id, from the permission requests. */
  private readonly optionKinds = new Map<string, Map<string, string>>();
  private readonly denials = new Map<string, AcpDenial>();

  /**
   * @param denyReason The reason a host gave for refusing a call (the
   * adapter's `canUseTool` message), when it is not in the answer's `_meta`.
   */
  constructor(private readonly denyReason: (toolCallId: string) => string | undefined = () => undefined) {}

  /** The calls refused in the current turn so far. */
  get turnDenials(): readonly Readonly<AcpDenial>[] {
    return [...this.denials.values()];
  }

  /**
   * A call the agent reported in the current turn, as a permission request would describe it (with no options),
   * or `undefined` for one it did not report.
   */
  reportedCall(toolCallId: string): AcpPermissionRequest | undefined {
    const toolName = this.toolNames.get(toolCallId);
    if (toolName === undefined) return undefined;
    const details = this.toolDetails.get(toolCallId);
    return {
      sessionId: this.sessionId ?? '',
      toolCallId,
      toolName,
      title: details?.title,
      kind: details?.kind,
      input: this.toolInputs.get(toolCallId),
      locations: details?.locations ?? [],
      options: [],
    };
  }

  /** The assistant text of the current turn so far. */
  get turnText(): string {
    return this.text;
  }

  /** Parts for one parsed JSON line (anything else yields `[]`). */
  parse(json: unknown): AgentStreamPart[] {
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return [];
    const record = json as { method?: unknown; type?: unknown };
    if (record.method === 'session/update') return this.onUpdate(json);
    if (record.method === 'session/request_permission') {
      const parsed = permissionRequestSchema.safeParse(json);
      if (!parsed.success) return [];
      const { toolCall, options } = parsed.data.params;
      this.optionKinds.set(toolCall.toolCallId, new Map((options ?? []).map((option) => [option.optionId, option.kind])));
      return this.toolCall(toolCall);
    }
    switch (record.type) {
      case 'acp.session': {
        const parsed = sessionSchema.safeParse(json);
        if (!parsed.success) return [];
        this.reset();
        this.sessionId = parsed.data.sessionId;
        return [{ type: 'session', sessionId: parsed.data.sessionId }];
      }
      case 'acp.prompt-result':
        return this.onResult(json);
      case 'acp.permission':
        return this.onPermission(json);
      case 'acp.agent-exited': {
        const message = (json as { message?: unknown }).message;
        return typeof message === 'string' ? [{ type: 'error', message }] : [];
      }
      case 'acp.error': {
        const parsed = errorSchema.safeParse(json);
        if (!parsed.success) return [];
        const status = httpStatusOf(parsed.data.message, parsed.data.code);
        const message = describeError(parsed.data.message, parsed.data.data);
        this.reset();
        return [
          { type: 'error', message, ...(status !== undefined ? { status } : {}) },
          { type: 'turn-end', text: message, isError: true, stopReason: 'error' },
        ];
      }
      default:
        return [];
    }
  }

  private onPermission(json: unknown): AgentStreamPart[] {
    const parsed = permissionAnswerSchema.safeParse(json);
    if (!parsed.success) return [];
    const { toolCallId, outcome } = parsed.data;
    const kind = outcome.optionId !== undefined ? this.optionKinds.get(toolCallId)?.get(outcome.optionId) : undefined;
    const cancelled = outcome.outcome === 'cancelled';
    if (!cancelled && !kind?.startsWith('reject')) return [];
    const metaReason = outcome._meta?.[DENY_REASON_KEY];
    const reason =
      (typeof metaReason === 'string' && metaReason !== '' ? metaReason : undefined) ??
      this.denyReason(toolCallId) ??
      (cancelled ? 'the permission request was cancelled' : 'the permission was refused');
    const toolName = this.toolNames.get(toolCallId) ?? acpToolName({ toolCallId });
    const input = this.toolInputs.get(toolCallId);
    this.denials.set(toolCallId, { toolCallId, toolName, input, reason, answered: false });
    return [
      {
        type: 'warning',
        code: 'permission-denied',
        message: `permission for ${toolName} was denied: ${reason}`,
        toolName,
        toolCallId,
        ...(input !== undefined ? { input } : {}),
      },
    ];
  }

  private onResult(json: unknown): AgentStreamPart[] {
    const parsed = promptResultSchema.safeParse(json);
    const response = parsed.success ? parsed.data.response : undefined;
    const parts: AgentStreamPart[] = [];
    // A refused call the agent reported no result for still gets one, carrying the reason.
    for (const denial of this.denials.values()) {
      if (denial.answered) continue;
      parts.push({ type: 'tool-result', toolCallId: denial.toolCallId, toolName: denial.toolName, output: `Permission denied: ${denial.reason}`, isError: true });
    }
    const usage: AgentUsage = {};
    const acpUsage = response?.usage;
    const quota = response?._meta?.quota?.token_count;
    const input = acpUsage?.inputTokens ?? quota?.input_tokens;
    const output = acpUsage?.outputTokens ?? quota?.output_tokens;
    if (input !== undefined) usage.inputTokens = input;
    if (output !== undefined) usage.outputTokens = output;
    if (acpUsage?.cachedReadTokens !== undefined) usage.cachedInputTokens = acpUsage.cachedReadTokens;
    if (acpUsage?.thoughtTokens !== undefined) usage.reasoningTokens = acpUsage.thoughtTokens;
    if (Object.keys(usage).length > 0) parts.push({ type: 'usage', usage });
    const stopReason = response?.stopReason;
    // `refusal` ends the turn without an answer; `cancelled` after session/cancel.
    const failed = stopReason === 'refusal' || stopReason === 'cancelled';
    parts.push({ type: 'turn-end', text: failed && this.text === '' ? `the agent stopped: ${stopReason}` : this.text, isError: failed, ...(stopReason ? { stopReason } : {}) });
    this.reset();
    return parts;
  }

  private onUpdate(json: unknown): AgentStreamPart[] {
    const parsed = updateSchema.safeParse(json);
    if (!parsed.success) return [];
    const update = parsed.data.params.update;
    switch (update.sessionUpdate) {
      case 'agent_message_chunk': {
        const chunk = textChunkSchema.safeParse(update);
        if (!chunk.success || chunk.data.content.text === '') return [];
        this.text += chunk.data.content.text;
        return [{ type: 'text-delta', text: chunk.data.content.text }];
      }
      case 'tool_call': {
        const call = toolCallSchema.safeParse(update);
        if (!call.success) return [];
        const parts = this.toolCall(call.data);
        return call.data.status === 'completed' || call.data.status === 'failed' ? [...parts, this.toolResult(call.data)] : parts;
      }
      case 'tool_call_update': {
        const call = toolCallSchema.safeParse(update);
        if (!call.success || (call.data.status !== 'completed' && call.data.status !== 'failed')) return [];
        return [this.toolResult(call.data)];
      }
      default:
        return [];
    }
  }

  private toolCall(call: z.infer<typeof toolCallSchema>): AgentStreamPart[] {
    if (this.toolNames.has(call.toolCallId)) return [];
    // claude-code-acp announces a call before its input has streamed (`rawInput: {}`); the full one follows.
    if (isEmptyObject(call.rawInput) && call.status === 'pending' && (!Array.isArray(call.content) || call.content.length === 0)) return [];
    const toolName = acpToolName(call);
    this.toolNames.set(call.toolCallId, toolName);
    const input =
      call.rawInput ??
      Object.fromEntries(Object.entries({ title: call.title, kind: call.kind, locations: call.locations, content: call.content }).filter(([, value]) => value !== undefined));
    this.toolInputs.set(call.toolCallId, input);
    const locations = Array.isArray(call.locations) ? (call.locations as AcpLocation[]).filter((location) => typeof location?.path === 'string') : [];
    this.toolDetails.set(call.toolCallId, { ...(call.kind !== undefined ? { kind: call.kind } : {}), ...(call.title !== undefined ? { title: call.title } : {}), locations });
    return [{ type: 'tool-call', toolCallId: call.toolCallId, toolName, input }];
  }

  private toolResult(call: z.infer<typeof toolCallSchema>): AgentStreamPart {
    const denial = this.denials.get(call.toolCallId);
    if (denial) denial.answered = true;
    return {
      type: 'tool-result',
      toolCallId: call.toolCallId,
      toolName: this.toolNames.get(call.toolCallId) ?? acpToolName(call),
      output: call.rawOutput ?? call.content ?? null,
      isError: call.status === 'failed',
    };
  }

  private reset(): void {
    this.text = '';
    this.toolNames.clear();
    this.toolInputs.clear();
    this.toolDetails.clear();
    this.optionKinds.clear();
    this.denials.clear();
  }
}

/**
 * The tool's name as best known: Claude Code's (`_meta.claudeCode.toolName`),
 * Gemini CLI's (its tool call ids start with it: `write_file__…`), else the
 * ACP kind, else the title.
 */
export function acpToolName(call: { toolCallId: string; kind?: string | undefined; title?: string | undefined; _meta?: unknown }): string {
  const claude = (call._meta as { claudeCode?: { toolName?: unknown } } | undefined)?.claudeCode?.toolName;
  if (typeof claude === 'string' && claude !== '') return claude;
  const separator = call.toolCallId.indexOf('__');
  if (separator > 0) return call.toolCallId.slice(0, separator);
  return call.kind ?? call.title ?? 'tool';
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** The HTTP status of a provider error embedded in an ACP error (`{"error":{"code":401,…}}`), or a JSON-RPC code in the HTTP range. */
function httpStatusOf(message: string, code: unknown): number | undefined {
  const embedded = /"code"\s*:\s*(\d{3})\b/.exec(message) ?? /\b(?:status|API error)\s*:?\s*(\d{3})\b/i.exec(message);
  const status = embedded ? Number(embedded[1]) : typeof code === 'number' ? code : undefined;
  return status !== undefined && status >= 400 && status <= 599 ? status : undefined;
}

function describeError(message: string, data: unknown): string {
  const details = typeof (data as { details?: unknown } | undefined)?.details === 'string' ? (data as { details: string }).details : undefined;
  const embedded = /"message"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(message)?.[1];
  const text = embedded !== undefined ? JSON.parse(`"${embedded}"`) as string : message;
  return details ? `${text}: ${details}` : text;
}

/** The final text of a whole raw output (the turn's assistant text; `''` for a failed turn). */
export function parseAcpResponse(rawOutput: string): string {
  const parser = new AcpStreamParser();
  let text = '';
  for (const line of rawOutput.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch {
      continue;
    }
    for (const part of parser.parse(json)) {
      if (part.type === 'text-delta') text += part.text;
      else if (part.type === 'turn-end') text = part.isError ? '' : part.text;
    }
  }
  return text;
}
