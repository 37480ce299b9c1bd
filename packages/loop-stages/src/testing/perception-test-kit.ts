// Helpers shared by the perception tests (not exported from the package).
import type { LoopContext, Perception } from '@troupe/core';

let next = 0;

/** A perception with defaults for the fields a test does not care about. */
export function perception(patch: Partial<Perception> & { content: string }): Perception {
  next++;
  return { id: `p${next}`, source: 'test', timestamp: 1_000_000, ...patch };
}

/** Runs a processor outside a loop (its context is not used by the built-ins). */
export async function run(
  processor: { process(perceptions: Perception[], context: LoopContext): Perception[] | Promise<Perception[]> },
  perceptions: Perception[],
): Promise<Perception[]> {
  return processor.process(perceptions, {} as LoopContext);
}
