import type { ForkResult } from './orchestrator-types';

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/\n/g, ' ');
}

/**
 * A fork's results as the text merged back into the parent's context (the
 * `fork_agents` tool result, or the message injected after `requestFork`):
 * one `<sub_agent_result>` block per sub-agent, failures included.
 */
export function formatForkResult(result: ForkResult): string {
  const header = `${result.results.length} sub-agent${result.results.length === 1 ? '' : 's'} finished: ${result.succeeded} completed, ${result.failed} failed.`;
  const blocks = result.results.map((sub) => {
    const attributes = `agent="${escapeAttribute(sub.agentId)}" task="${escapeAttribute(sub.task)}" status="${sub.status}" attempts="${sub.attempts}"`;
    const body = sub.status === 'completed' ? (sub.text ?? '') : `${sub.error?.name ?? 'Error'}: ${sub.error?.message ?? sub.status}`;
    return `<sub_agent_result ${attributes}>\n${body}\n</sub_agent_result>`;
  });
  return [header, ...blocks].join('\n');
}
