import type { AgentTreeNode, AgentTreeSnapshot } from './orchestrator-types';

/** Settings of {@link formatAgentTree}. */
export interface FormatAgentTreeOptions {
  /** Longest task text shown per agent (longer ones are cut with `…`). Default 60. */
  maxTaskLength?: number;
}

function describe(node: AgentTreeNode, maxTaskLength: number): string {
  const flags = [node.queued ? 'queued' : undefined, node.paused ? 'paused' : undefined, node.attempt > 1 ? `attempt ${node.attempt}` : undefined].filter(
    (flag): flag is string => flag !== undefined,
  );
  const task = node.task === undefined ? '' : ` — ${node.task.length > maxTaskLength ? `${node.task.slice(0, maxTaskLength - 1)}…` : node.task}`;
  return `${node.id} [${node.strategyType}] ${node.status}${flags.length > 0 ? ` (${flags.join(', ')})` : ''}${task}`;
}

/**
 * Renders a tree snapshot as text, one agent per line with box-drawing
 * branches (for logs and terminals).
 *
 * @example
 * ```ts
 * orchestrator.onAgentStatusChanged(() => console.log(formatAgentTree(orchestrator.getAgentTree())));
 * // agent-1 [main] forking — Compare three libraries
 * // ├─ agent-2 [sub-agent] completed — Research zod
 * // └─ agent-3 [sub-agent] running — Research valibot
 * ```
 */
export function formatAgentTree(snapshot: AgentTreeSnapshot, options: FormatAgentTreeOptions = {}): string {
  const maxTaskLength = options.maxTaskLength ?? 60;
  const lines: string[] = [];
  const visit = (node: AgentTreeNode, prefix: string, branch: string) => {
    lines.push(`${prefix}${branch}${describe(node, maxTaskLength)}`);
    const childPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    node.children.forEach((child, index) => visit(child, childPrefix, index === node.children.length - 1 ? '└─ ' : '├─ '));
  };
  for (const root of snapshot.roots) visit(root, '', '');
  return lines.join('\n');
}
