import type { TroupeEvent } from '@troupe/core';
import { currentEventScope, eventScopeChain, type EventScope } from '@troupe/core';
import { InvalidArgumentError } from '@troupe/core';
import { priceUsage, type PriceTable } from './usage-prices';
import type { UsageRecord } from '@troupe/core';

/** What a runner reports when it feeds the ledger directly. */
export interface UsageInput {
  kind: UsageRecord['kind'];
  /** Adapter id or model provider. */
  source: string;
  model?: string | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  cachedInputTokens?: number | undefined;
  reasoningTokens?: number | undefined;
  /** The cost the CLI reported, if any (else the price table's). */
  reportedCostUsd?: number | undefined;
  /** Default: the innermost agent of the current event scope. */
  agentId?: string | undefined;
  /** Added to the runs of the current event scope. */
  runs?: Record<string, string>;
}

/** What turns a checked input into a record: the ledger's prices, id, clock reading and session. */
export interface UsageRecordContext {
  prices: PriceTable;
  id: string;
  timestamp: number;
  sessionId?: string | undefined;
}

/**
 * Checks what a runner reported and makes it a priced record, charged to the
 * agent and the runs of the current event scope (unless the input names
 * them), so every way into the ledger prices and attributes alike.
 *
 * @throws InvalidArgumentError naming the field that is wrong (kind, source, a token count).
 */
export function usageRecordFromInput(input: UsageInput, context: UsageRecordContext): UsageRecord {
  if (input === null || typeof input !== 'object' || (input.kind !== 'agent-turn' && input.kind !== 'model-call')) {
    throw new InvalidArgumentError('input', "expected { kind: 'agent-turn' | 'model-call', source, … }");
  }
  if (typeof input.source !== 'string' || input.source === '') throw new InvalidArgumentError('input.source', 'expected the adapter id or model provider');
  const tokens = {
    inputTokens: count(input.inputTokens, 'inputTokens'),
    outputTokens: count(input.outputTokens, 'outputTokens'),
    cachedInputTokens: count(input.cachedInputTokens, 'cachedInputTokens'),
    reasoningTokens: count(input.reasoningTokens, 'reasoningTokens'),
  };
  const scope = currentEventScope();
  const runs = { ...runsOf(scope), ...input.runs };
  const agentId = input.agentId ?? agentOf(scope);
  return {
    id: context.id,
    kind: input.kind,
    timestamp: context.timestamp,
    source: input.source,
    ...(input.model !== undefined && input.model !== '' ? { model: input.model } : {}),
    ...tokens,
    ...priceUsage(context.prices, input.model, tokens, input.reportedCostUsd),
    ...(agentId !== undefined ? { agentId } : {}),
    runs,
    ...(context.sessionId !== undefined ? { sessionId: context.sessionId } : {}),
  };
}

/** The usage of an agent turn seen on the bus, with the CLI's own cost; undefined for a turn that reported none. */
export function usageInputFromTurn(event: TroupeEvent<'agent:turn-completed'>): UsageInput | undefined {
  const { usage } = event.payload;
  if (!usage) return undefined;
  return {
    kind: 'agent-turn',
    source: event.payload.adapterType ?? 'agent',
    model: event.payload.model,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
    reportedCostUsd: usage.costUsd,
    agentId: event.payload.roleId,
  };
}

/** The usage of a model call seen on the bus, under the model that answered; undefined for a call that counted no tokens. */
export function usageInputFromModelCall(event: TroupeEvent<'model:call-completed'>): UsageInput | undefined {
  const { usage } = event.payload;
  if (!usage || (usage.inputTokens === undefined && usage.outputTokens === undefined)) return undefined;
  return {
    kind: 'model-call',
    source: event.payload.provider,
    model: event.payload.responseModelId ?? event.payload.modelId,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: usage.cachedInputTokens,
    reasoningTokens: usage.reasoningTokens,
  };
}

function count(value: number | undefined, what: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new InvalidArgumentError(`input.${what}`, `expected a token count >= 0, got ${String(value)}`);
  return value;
}

function runsOf(scope: EventScope | undefined): Record<string, string> {
  const runs: Record<string, string> = {};
  for (const current of eventScopeChain(scope)) {
    if (current.run && runs[current.run.kind] === undefined) runs[current.run.kind] = current.run.id;
  }
  return runs;
}

function agentOf(scope: EventScope | undefined): string | undefined {
  for (const current of eventScopeChain(scope)) if (current.agentId !== undefined) return current.agentId;
  return undefined;
}
