import type { AgentAdapter } from '@troupe/core';

/** The members of an adapter a wrapper may replace. */
export type AgentAdapterOverrides = Partial<
  Pick<AgentAdapter, 'getProcessConfig' | 'prepareMessage' | 'parseResponse' | 'getCompletionStrategy' | 'startTurn' | 'parseLine'>
>;

/**
 * An adapter that forwards everything to `adapter` — its turn-start hook and
 * the turn context of every `parseLine` call included — except what
 * `overrides` replaces. For test wrappers that swap the command for a fake
 * CLI or record lines, without losing the adapter's per-turn state.
 *
 * @example
 * ```ts
 * const recording = wrapAgentAdapter(adapter, {
 *   parseLine: (line, json, context) => (lines.push(line), adapter.parseLine(line, json, context)),
 * });
 * ```
 */
export function wrapAgentAdapter(adapter: AgentAdapter, overrides: AgentAdapterOverrides = {}): AgentAdapter {
  return {
    specificationVersion: adapter.specificationVersion,
    adapterId: adapter.adapterId,
    capabilities: adapter.capabilities,
    getProcessConfig: (member, workDir, context) => adapter.getProcessConfig(member, workDir, context),
    prepareMessage: (message, member) => adapter.prepareMessage(message, member),
    parseResponse: (raw) => adapter.parseResponse(raw),
    getCompletionStrategy: () => adapter.getCompletionStrategy(),
    ...(adapter.startTurn ? { startTurn: (turn) => adapter.startTurn?.(turn) } : {}),
    parseLine: (line, json, context) => adapter.parseLine(line, json, context),
    ...(adapter.describeTurnError ? { describeTurnError: (error, stderr) => adapter.describeTurnError?.(error, stderr) ?? error } : {}),
    ...overrides,
  };
}
