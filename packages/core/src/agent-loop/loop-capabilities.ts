import type { ActResult } from '../loop/loop-action';
import type { ToolCapability } from '../loop/loop-stage';

interface Counts {
  calls: number;
  failures: number;
  totalMs: number;
  lastError?: string;
}

/**
 * Per-tool success statistics: the "capability update" of the Reflect phase.
 * Planners read them (`context.capabilities()`) to prefer tools that work.
 */
export class ToolCapabilityTracker {
  private readonly counts = new Map<string, Counts>();

  /** Counts the calls of an Act result; returns the updated entries. */
  update(result: ActResult): ToolCapability[] {
    const calls = result.results;
    if (calls.length === 0) return [];
    if (calls.length === 1) {
      const call = calls[0] as ActResult['results'][number];
      return call.status === 'skipped' ? [] : [this.entry(call.tool, this.count(call))];
    }
    return this.updateMany(calls);
  }

  /** `update` for several calls (apart: its closure would make every `update` allocate a context). */
  private updateMany(calls: ActResult['results']): ToolCapability[] {
    const touched = new Set<string>();
    for (const call of calls) {
      if (call.status === 'skipped') continue;
      this.count(call);
      touched.add(call.tool);
    }
    return [...touched].map((tool) => this.entry(tool, this.counts.get(tool) as Counts));
  }

  private count(call: ActResult['results'][number]): Counts {
    let counts = this.counts.get(call.tool);
    if (!counts) {
      counts = { calls: 0, failures: 0, totalMs: 0 };
      this.counts.set(call.tool, counts);
    }
    counts.calls++;
    counts.totalMs += call.durationMs;
    if (call.status === 'failed') {
      counts.failures++;
      if (call.error) counts.lastError = call.error.message;
    }
    return counts;
  }

  list(): ToolCapability[] {
    return [...this.counts].map(([tool, counts]) => this.entry(tool, counts));
  }

  /** Restores counts saved with the loop's state. */
  restore(capabilities: readonly ToolCapability[]): void {
    this.counts.clear();
    for (const capability of capabilities) {
      this.counts.set(capability.tool, {
        calls: capability.calls,
        failures: capability.failures,
        totalMs: capability.meanDurationMs * capability.calls,
        ...(capability.lastError === undefined ? {} : { lastError: capability.lastError }),
      });
    }
  }

  private entry(tool: string, counts: Counts): ToolCapability {
    const entry: ToolCapability = {
      tool,
      calls: counts.calls,
      failures: counts.failures,
      successRate: counts.calls === 0 ? 1 : (counts.calls - counts.failures) / counts.calls,
      meanDurationMs: counts.calls === 0 ? 0 : counts.totalMs / counts.calls,
    };
    // Set after the literal: V8 is much slower at a trailing conditional spread.
    if (counts.lastError !== undefined) entry.lastError = counts.lastError;
    return entry;
  }
}
