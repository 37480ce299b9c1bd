import type { Action, LoopPlanner, Perception, ToolCall } from '@troupe/core';

/** Perceptions at or above this priority (or in the `error` category) are alerts. */
export const ALERT_PRIORITY = 0.5;

function describe(perception: Perception): string {
  const tags = [perception.category, perception.intent?.name].filter(Boolean).join('/');
  const merged = perception.mergedFrom ? ` ×${perception.mergedFrom.length}` : '';
  return `[${tags} p=${(perception.priority ?? 0).toFixed(2)}${merged}] ${perception.subject ?? perception.source}: ${perception.content.replace(/\n/g, ' ⏎ ')}`;
}

/**
 * Plans from the processed perceptions (already sorted by priority):
 * alerts get a `file-stats` call on their file (unless the memory says that
 * tool kept failing on this task), and everything goes into one report
 * section through `append-report`; both calls run in parallel.
 */
export function createSparPlanner(): LoopPlanner {
  return {
    kind: 'planner',
    name: 'spar:planner',
    description: 'Triages alerts and records every change in the report.',
    async plan(perceptions, { memory, tools }): Promise<Action | null> {
      if (perceptions.length === 0) return null;
      const alerts = perceptions.filter((p) => (p.priority ?? 0) >= ALERT_PRIORITY || p.category === 'error');
      const files = [...new Set(alerts.filter((p) => p.subject && !p.content.startsWith('deleted')).map((p) => p.subject as string))];
      const task = alerts.length > 0 ? `triage alerts in ${files.join(', ') || 'the folder'}` : 'record folder changes';
      const past = await memory.query({ task, limit: 10 });
      const notFound = past.filter((experience) => experience.tags.includes('cause:not-found')).length;
      const toolCalls: ToolCall[] = [];
      if (notFound < 3 && tools.some((tool) => tool.name === 'file-stats')) {
        for (const file of files) toolCalls.push({ tool: 'file-stats', input: { file } });
      }
      toolCalls.push({ tool: 'append-report', input: { heading: `${task} (${new Date().toISOString()})`, lines: perceptions.map(describe) } });
      return {
        task,
        toolCalls,
        execution: { mode: 'parallel' },
        reason: `${alerts.length} alert(s) among ${perceptions.length} perception(s); ${past.length} similar past task(s), ${past.filter((e) => e.outcome === 'failure').length} failed`,
        perceptionIds: perceptions.map((p) => p.id),
      };
    },
  };
}
