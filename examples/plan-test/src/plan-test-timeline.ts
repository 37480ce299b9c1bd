import type { BatchState } from '@troupe/pipeline';

/** A time interval in ms since the run started. */
interface Span {
  from: number;
  to: number;
}

/** Total length of the union of spans. */
function unionLength(spans: readonly Span[]): number {
  const sorted = [...spans].sort((a, b) => a.from - b.from);
  let total = 0;
  let current: Span | undefined;
  for (const span of sorted) {
    if (!current || span.from > current.to) {
      if (current) total += current.to - current.from;
      current = { ...span };
    } else current.to = Math.max(current.to, span.to);
  }
  return current ? total + current.to - current.from : total;
}

/** How long the planner and the executor were both busy (ms). */
export function overlapMs(states: readonly BatchState[], origin: number): number {
  const { planning, execution } = spans(states, origin);
  // |P ∩ E| = |P| + |E| − |P ∪ E|
  return Math.max(0, unionLength(planning) + unionLength(execution) - unionLength([...planning, ...execution]));
}

function spans(states: readonly BatchState[], origin: number): { planning: Span[]; execution: Span[] } {
  const planning: Span[] = [];
  const execution: Span[] = [];
  for (const state of states) {
    if (state.planningStartedAt !== undefined && state.planningCompletedAt !== undefined) {
      planning.push({ from: state.planningStartedAt - origin, to: state.planningCompletedAt - origin });
    }
    if (state.executionStartedAt !== undefined && state.executionCompletedAt !== undefined && !state.skipped) {
      execution.push({ from: state.executionStartedAt - origin, to: state.executionCompletedAt - origin });
    }
  }
  return { planning, execution };
}

/**
 * Renders batch states as rows of a timeline: `p` while a batch is planned,
 * `#` while it executes, one column per `msPerColumn`; then the planner and
 * executor rows and the columns where both were busy (`^`).
 */
export function renderTimeline(states: readonly BatchState[], origin: number, msPerColumn: number, width: number): string[] {
  const column = (ms: number) => Math.min(width - 1, Math.max(0, Math.floor(ms / msPerColumn)));
  const paint = (row: string[], span: Span, char: string) => {
    for (let c = column(span.from); c <= column(Math.max(span.from, span.to - 0.001)); c++) row[c] = char;
  };
  const lines: string[] = [];
  const plannerRow = Array<string>(width).fill(' ');
  const executorRow = Array<string>(width).fill(' ');
  const overlapRow = Array<string>(width).fill(' ');
  const all = spans(states, origin);
  for (const p of all.planning) {
    for (const e of all.execution) {
      const from = Math.max(p.from, e.from);
      const to = Math.min(p.to, e.to);
      if (to > from) paint(overlapRow, { from, to }, '^');
    }
  }
  for (const state of states) {
    const row = Array<string>(width).fill('·');
    const { planning, execution } = spans([state], origin);
    for (const span of planning) (paint(row, span, 'p'), paint(plannerRow, span, 'P'));
    for (const span of execution) (paint(row, span, '#'), paint(executorRow, span, 'E'));
    const note = state.skipped ? 'skipped (empty)' : `${state.executedTasks ?? 0}/${state.taskCount ?? 0} tasks${state.failedTasks ? `, ${state.failedTasks} failed` : ''}`;
    lines.push(`  batch ${String(state.batchIndex).padEnd(3)}|${row.join('')}| ${state.status.padEnd(8)} ${note}`);
  }
  lines.push(`  planner  |${plannerRow.join('')}|`);
  lines.push(`  executor |${executorRow.join('')}|`);
  lines.push(`  overlap  |${overlapRow.join('')}|`);
  return lines;
}
