import { processSingleton } from '@troupe/core/util';
import { AgentOrchestrator } from './agent-orchestrator';

/** The shared orchestrator: one slot per process, shared by the ESM and CJS builds. */
const slot = processSingleton('orchestrator.default.v1', (): { current: AgentOrchestrator | undefined } => ({ current: undefined }));

/**
 * A shared orchestrator for hosts that want one agent manager per process
 * (seed 004's singleton), created on first use with default options (no
 * default model: give strategies a `model`, or install your own with
 * {@link setDefaultOrchestrator}). Nothing forces its use: any number of
 * `new AgentOrchestrator()` can live side by side.
 */
export function getDefaultOrchestrator(): AgentOrchestrator {
  slot.current ??= new AgentOrchestrator();
  return slot.current;
}

/**
 * Replaces the shared orchestrator (`undefined` clears it; the next
 * `getDefaultOrchestrator()` creates a fresh one). Returns the previous one,
 * which keeps running: terminate its agents with `terminateAll()` if needed.
 *
 * @example
 * ```ts
 * setDefaultOrchestrator(new AgentOrchestrator({ model: createOpenAIModel(), maxConcurrency: 8 }));
 * ```
 */
export function setDefaultOrchestrator(orchestrator: AgentOrchestrator | undefined): AgentOrchestrator | undefined {
  const previous = slot.current;
  slot.current = orchestrator;
  return previous;
}
