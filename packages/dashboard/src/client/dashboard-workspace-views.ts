// The Workspaces panel: each isolated workspace's owner, branch, commits, state and diffstat; a click shows its
// diff, fetched from the server and rendered as text (Preact escapes it: a diff holding markup stays text).
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';
import type { WorkspaceView } from '../state/dashboard-state';

/** Fetches a finished workspace's diff from the server. */
export type FetchWorkspaceDiff = (name: string) => Promise<{ ok: true; diff: string; truncated: boolean } | { ok: false; error: string }>;

const shortCommit = (commit: string | undefined) => (commit ? commit.slice(0, 8) : '…');

function lineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ')) return 'd-file';
  if (line.startsWith('@@')) return 'd-hunk';
  if (line.startsWith('+')) return 'd-add';
  if (line.startsWith('-')) return 'd-del';
  return '';
}

/** A workspace's diff, fetched once per workspace shown (also the Best-of-N panel's winner diff). */
export function DiffView({ name, fetchDiff }: { name: string; fetchDiff: FetchWorkspaceDiff }) {
  const [loaded, setLoaded] = useState<{ name: string; result: Awaited<ReturnType<FetchWorkspaceDiff>> } | null>(null);
  // Fetched once per workspace shown, not on every redraw of the page.
  useEffect(() => {
    let current = true;
    void fetchDiff(name).then((result) => current && setLoaded({ name, result }));
    return () => {
      current = false;
    };
  }, [name]);
  if (loaded?.name !== name) return html`<p class="muted">Loading the diff of ${name}…</p>`;
  const { result } = loaded;
  if (!result.ok) return html`<div class="reply bad" data-testid="workspace-diff-error">${result.error}</div>`;
  return html`<div>
    ${result.truncated ? html`<div class="reply bad" data-testid="workspace-diff-truncated">diff truncated: the whole diff is on the workspace's branch</div>` : ''}
    <pre class="diff" data-testid="workspace-diff">${result.diff === '' ? html`<span class="muted">no change</span>` : result.diff.replace(/\n$/, '').split('\n').map((line) => html`<span class=${lineClass(line)}>${`${line}\n`}</span>`)}</pre>
  </div>`;
}

function Diffstat({ workspace }: { workspace: WorkspaceView }) {
  const stat = workspace.diffstat;
  if (!stat) return html`<span class="muted">running…</span>`;
  const lines = (value: number) => (value < 0 ? 'bin' : String(value));
  return html`<span data-testid="workspace-diffstat">
    ${stat.files.map((file) => html`<span class="stat" key=${file.file}>${file.file} <span class="d-add">+${lines(file.insertions)}</span> <span class="d-del">-${lines(file.deletions)}</span></span>${' '}`)}
    ${stat.filesOmitted > 0 ? html`<span class="muted">and ${stat.filesOmitted} more file(s) </span>` : ''}
    <span class="stat total">${stat.files.length + stat.filesOmitted} file(s) <span class="d-add">+${stat.insertions}</span> <span class="d-del">-${stat.deletions}</span></span>
  </span>`;
}

export function WorkspacesPanel({ workspaces, fetchDiff }: { workspaces: WorkspaceView[]; fetchDiff: FetchWorkspaceDiff }) {
  const [open, setOpen] = useState<string | null>(null);
  const shown = workspaces.find((workspace) => workspace.name === open);
  return html`<section class="wide" data-testid="workspaces">
    <h2>Workspaces</h2>
    ${workspaces.length === 0 ? html`<p class="muted">No isolated workspace yet.</p>` : ''}
    ${workspaces.length > 0
      ? html`<table>
          <thead><tr><th>owner</th><th>branch</th><th>base → head</th><th>state</th><th>diffstat</th></tr></thead>
          <tbody>
            ${[...workspaces].reverse().map(
              (workspace) => html`<tr key=${workspace.name} data-testid="workspace" class=${`ws${workspace.name === open ? ' open' : ''}`} title="show the diff" onClick=${() => setOpen(workspace.name === open ? null : workspace.name)}>
                <td>${workspace.owner}</td>
                <td><code>${workspace.branch}</code></td>
                <td><code>${shortCommit(workspace.baseCommit)} → ${workspace.headCommit ? shortCommit(workspace.headCommit) : '…'}</code></td>
                <td><span class=${`badge s-${workspace.status}`} data-testid="workspace-state">${workspace.status}</span>${workspace.escape ? html`<div class="reply bad">${workspace.escape.message}</div>` : ''}</td>
                <td><${Diffstat} workspace=${workspace} /></td>
              </tr>`,
            )}
          </tbody>
        </table>`
      : ''}
    ${shown
      ? html`<div class="ws-diff">
          <p><b>Diff of <code>${shown.branch}</code></b> <span class="muted">(${shown.owner}; click its row again to close)</span></p>
          ${shown.diffstat ? html`<${DiffView} name=${shown.name} fetchDiff=${fetchDiff} />` : html`<p class="muted">The diff is shown when the workspace has finished.</p>`}
        </div>`
      : ''}
  </section>`;
}
