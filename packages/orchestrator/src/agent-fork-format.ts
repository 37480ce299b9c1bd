import type { AgentWorkspaceResult } from './agent-isolation';
import type { ForkResult } from './orchestrator-types';

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/\n/g, ' ');
}

/**
 * Most characters of one sub-agent's diff put into its parent's fork result
 * (a model's context is finite); the rest is on the sub-agent's branch, and
 * whole in `SubAgentResult.workspace.diff`.
 */
export const FORK_RESULT_DIFF_LIMIT = 20_000;

/**
 * What a sub-agent changed in its workspace, as its parent reads it in the
 * fork result: a `<workspace>` block with its branch, base and head
 * commits, diffstat and diff, the diff cut at {@link FORK_RESULT_DIFF_LIMIT}
 * with a note saying how to get the whole of it.
 */
export function formatWorkspaceResult(workspace: AgentWorkspaceResult): string {
  const { branch, baseCommit, headCommit, diffstat, diff } = workspace;
  const attributes = [
    `branch="${escapeAttribute(branch)}"`,
    `base="${baseCommit}"`,
    `head="${headCommit}"`,
    `committed="${workspace.committed}"`,
    `uncommitted="${workspace.uncommitted}"`,
    ...(workspace.removed ? [] : [`path="${escapeAttribute(workspace.path)}"`]),
  ].join(' ');
  if (diff === '') return `<workspace ${attributes}>\nNo changes.\n</workspace>`;
  const files = diffstat.files.map((file) => ` ${file.file} | +${file.insertions} -${file.deletions}`);
  const total = `${diffstat.files.length} file${diffstat.files.length === 1 ? '' : 's'} changed, +${diffstat.insertions} -${diffstat.deletions}`;
  const cut = diff.length > FORK_RESULT_DIFF_LIMIT;
  const where = workspace.committed && !workspace.uncommitted ? `git diff ${baseCommit} ${branch}` : `git -C ${workspace.path} diff ${baseCommit}`;
  const note = cut ? [`[diff cut at ${FORK_RESULT_DIFF_LIMIT} of ${diff.length} characters; the whole change: ${where}]`] : [];
  const shown = cut ? diff.slice(0, FORK_RESULT_DIFF_LIMIT) : diff;
  return [`<workspace ${attributes}>`, ...files, total, '<diff>', shown.replace(/\n$/, ''), '</diff>', ...note, '</workspace>'].join('\n');
}

/**
 * A fork's results as the text merged back into the parent's context (the
 * `fork_agents` tool result, or the message injected after `requestFork`):
 * one `<sub_agent_result>` block per sub-agent, failures included, with
 * the `<workspace>` (branch, diffstat, diff) of a sub-agent that ran in one.
 */
export function formatForkResult(result: ForkResult): string {
  const header = `${result.results.length} sub-agent${result.results.length === 1 ? '' : 's'} finished: ${result.succeeded} completed, ${result.failed} failed.`;
  const blocks = result.results.map((sub) => {
    const attributes = `agent="${escapeAttribute(sub.agentId)}" task="${escapeAttribute(sub.task)}" status="${sub.status}" attempts="${sub.attempts}"`;
    // A typed result goes back as its validated object; an invalid one with the raw answer after the error.
    const text =
      sub.status !== 'completed'
        ? `${sub.error?.name ?? 'Error'}: ${sub.error?.message ?? sub.status}${sub.text !== undefined ? `\nRaw answer:\n${sub.text}` : ''}`
        : sub.object !== undefined
          ? `<object>${JSON.stringify(sub.object)}</object>`
          : (sub.text ?? '');
    const body = sub.workspace ? `${text}\n${formatWorkspaceResult(sub.workspace)}` : text;
    return `<sub_agent_result ${attributes}>\n${body}\n</sub_agent_result>`;
  });
  return [header, ...blocks].join('\n');
}
