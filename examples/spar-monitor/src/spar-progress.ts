import type { AgentLoop, LoopStats } from '@troupe/core/agent-loop';

type Json = unknown;

const ms = (value: number): string => `${value.toFixed(1)} ms`;
const at = (iterationId: string): string => `#${iterationId.split('#').at(-1) ?? iterationId}`.padEnd(5);

function senseLine(output: Json): string {
  const list = Array.isArray(output) ? (output as { subject?: string; source?: string; category?: string; intent?: { name?: string }; priority?: number }[]) : [];
  const shown = list
    .filter((item) => typeof item === 'object')
    .slice(0, 4)
    .map((p) => `${p.subject ?? p.source} [${[p.category, p.intent?.name].filter(Boolean).join('/')} ${(p.priority ?? 0).toFixed(2)}]`);
  return `${list.length} perception${list.length === 1 ? '' : 's'}${shown.length > 0 ? `: ${shown.join(', ')}` : ''}${list.length > 4 ? ', …' : ''}`;
}

function planLine(output: Json): string {
  if (output === null) return 'nothing to do';
  const action = output as { task?: string; toolCalls?: { tool?: string }[]; reason?: string };
  return `"${action.task}" → ${(action.toolCalls ?? []).map((call) => call.tool).join(' + ') || 'no tools'}${action.reason ? ` (${action.reason})` : ''}`;
}

function actLine(output: Json): string {
  const result = output as { ok?: boolean; results?: { tool?: string; status?: string; error?: { code?: string; name?: string } }[] };
  const calls = (result.results ?? []).map((call) => `${call.tool} ${call.status === 'succeeded' ? '✓' : `✗ ${call.error?.code ?? call.error?.name ?? call.status}`}`);
  return `${result.ok ? 'ok' : 'FAILED'}  ${calls.join(', ')}`;
}

function reflectLine(output: Json): string {
  const reflection = output as { experiences?: { outcome?: string; analysis?: string; tags?: string[] }[] };
  const first = reflection.experiences?.[0];
  if (!first) return 'no experience recorded';
  const analysis = (first.analysis ?? '').length > 140 ? `${first.analysis?.slice(0, 140)}…` : first.analysis;
  return `${first.outcome}: ${analysis} [${(first.tags ?? []).join(' ')}]`;
}

/**
 * Prints live, per-phase progress of a loop from its bus events. Returns a
 * function that stops printing.
 */
export function printLoopProgress(loop: AgentLoop, print: (line: string) => void): () => void {
  const offs = [
    loop.bus.on('loop:phase-completed', ({ payload }) => {
      const line = { sense: senseLine, plan: planLine, act: actLine, reflect: reflectLine }[payload.phase](payload.output);
      print(`${at(payload.iterationId)} ${payload.phase.padEnd(7)} ${line}  (${ms(payload.durationMs)})`);
    }),
    loop.bus.on('loop:error', ({ payload }) => {
      print(`${at(payload.iterationId ?? '-')} ${payload.phase.padEnd(7)} error${payload.stage ? ` in ${payload.stage}` : ''}: ${payload.error.message} → ${payload.handling}`);
    }),
    loop.bus.on('loop:completed', ({ payload }) => {
      if (payload.outcome !== 'idle') print(`${at(payload.iterationId)} done    ${payload.outcome} in ${ms(payload.durationMs)}`);
    }),
    loop.bus.on('loop:health', ({ payload }) => print(`      health  ${payload.status} (${payload.action}) after ${payload.consecutiveFailures} failures`)),
    loop.bus.on('loop:stuck', ({ payload }) => print(`${at(payload.iterationId)} stuck   ${payload.phase} running for ${ms(payload.runningMs)}`)),
    loop.bus.on('loop:state-changed', ({ payload }) => print(`      state   ${payload.from} → ${payload.to}`)),
  ];
  return () => offs.forEach((off) => off());
}

/** A few lines summing up a loop's statistics. */
export function formatStats(stats: LoopStats): string[] {
  const phases = (['sense', 'plan', 'act', 'reflect'] as const).map(
    (phase) => `${phase} ${stats.phases[phase].meanMs.toFixed(1)}/${stats.phases[phase].p95Ms.toFixed(1)} ms`,
  );
  return [
    `iterations: ${stats.iterations} (${stats.completed} completed, ${stats.idle} idle, ${stats.failed} failed, error rate ${(stats.errorRate * 100).toFixed(0)}%)`,
    `phase mean/p95: ${phases.join(', ')}`,
  ];
}
