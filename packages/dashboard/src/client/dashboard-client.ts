// The page's entry: reads the token from its own URL, opens the event stream, folds each input with the same
// reducer the server runs, and renders with Preact + htm (bundled at build time: no CDN, works offline).
import { html } from 'htm/preact';
import { render } from 'preact';
import { applyDashboardInput } from '../state/dashboard-reducer';
import type { DashboardInput, DashboardState } from '../state/dashboard-state';
import { ApprovalsPanel, type ApprovalsApi, type ApprovalView } from './dashboard-approval-views';
import { AgentTreePanel, PipelinePanel, QueuePanel, TeamPanel, UsagePanel } from './dashboard-activity-views';
import { BestOfNPanel } from './dashboard-best-of-n-views';
import { formatClock } from './dashboard-format';
import { AutoStreamPanel, LooperPanel, PendingPanel, TimelinePanel, type SendCommand } from './dashboard-looper-views';
import { WorkspacesPanel, type FetchWorkspaceDiff } from './dashboard-workspace-views';

/** The browser globals the page uses (the package's TypeScript has no DOM library). */
interface PageGlobals {
  location: { pathname: string; search: string };
  document: { getElementById(id: string): unknown; title: string };
  EventSource: new (url: string) => {
    onopen: (() => void) | null;
    onerror: (() => void) | null;
    addEventListener(type: string, listener: (event: { data: string }) => void): void;
  };
  fetch: typeof fetch;
}

const page = globalThis as unknown as PageGlobals;
const token = new URLSearchParams(page.location.search).get('token') ?? '';
const base = page.location.pathname.replace(/index\.html$/, '').replace(/\/?$/, '/');
const withToken = (path: string, query = '') => `${base}${path}?token=${encodeURIComponent(token)}${query}`;

let state: DashboardState | null = null;
let connection: 'connecting' | 'live' | 'reconnecting' = 'connecting';
let scheduled = false;

const send: SendCommand = async (command) => {
  try {
    const response = await page.fetch(withToken('api/looper'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(command) });
    const body = (await response.json()) as { ok?: boolean; text?: string; error?: string };
    return response.ok ? { ok: body.ok === true, text: body.text ?? '' } : { ok: false, text: body.error ?? `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, text: `the dashboard server did not answer: ${(error as Error).message}` };
  }
};

const fetchDiff: FetchWorkspaceDiff = async (name) => {
  try {
    const response = await page.fetch(withToken('api/workspaces/diff', `&name=${encodeURIComponent(name)}`));
    const body = (await response.json()) as { diff?: string; truncated?: boolean; error?: string };
    return response.ok && typeof body.diff === 'string' ? { ok: true, diff: body.diff, truncated: body.truncated === true } : { ok: false, error: body.error ?? `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, error: `the dashboard server did not answer: ${(error as Error).message}` };
  }
};

const approvalsApi: ApprovalsApi = {
  async list() {
    try {
      const response = await page.fetch(withToken('api/approvals'));
      if (!response.ok) return null;
      const body = (await response.json()) as { enabled: boolean; pending: ApprovalView[] };
      return body.enabled ? body.pending : null;
    } catch {
      return null;
    }
  },
  async decide(id, behavior, reason) {
    try {
      const response = await page.fetch(withToken('api/approvals'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id, behavior, ...(reason.trim() !== '' ? { reason } : {}) }) });
      const body = (await response.json()) as { decided?: { id: string; behavior: string }; error?: string };
      return response.ok ? { ok: true, text: `${behavior === 'allow' ? 'Allowed' : 'Denied'} ${id}.` } : { ok: false, text: body.error ?? `HTTP ${response.status}` };
    } catch (error) {
      return { ok: false, text: `the dashboard server did not answer: ${(error as Error).message}` };
    }
  },
};

function App({ state: current }: { state: DashboardState | null }) {
  if (!current) return html`<header><h1>Troupe</h1><span class="badge">${connection}</span></header><main><p class="muted">Waiting for the first snapshot…</p></main>`;
  return html`<header>
      <h1>Troupe</h1>
      <span class="muted">${current.source.label}</span>
      <span class=${`badge ${current.source.attached ? 's-running' : 's-failed'}`}>${current.source.attached ? 'attached' : 'detached'}</span>
      ${current.source.detail ? html`<span class="muted">${current.source.detail}</span>` : ''}
      <span class="muted" style="margin-left:auto">stream: <span data-testid="connection">${connection}</span> · ${formatClock(current.updatedAt)}</span>
    </header>
    <main>
      <${LooperPanel} looper=${current.looper} controls=${current.source.controls} send=${send} />
      <${ApprovalsPanel} api=${approvalsApi} />
      <${PendingPanel} looper=${current.looper} />
      <${TimelinePanel} looper=${current.looper} />
      <${AutoStreamPanel} looper=${current.looper} />
      <${UsagePanel} usage=${current.usage} />
      <${AgentTreePanel} agents=${current.agents} />
      <${TeamPanel} conversations=${current.conversations} />
      <${PipelinePanel} pipelines=${current.pipelines} now=${current.updatedAt} />
      <${QueuePanel} queues=${current.queues} />
      <${BestOfNPanel} runs=${current.bestOfN ?? []} fetchDiff=${fetchDiff} />
      <${WorkspacesPanel} workspaces=${current.workspaces ?? []} fetchDiff=${fetchDiff} />
    </main>`;
}

function draw(): void {
  scheduled = false;
  render(html`<${App} state=${state} />`, page.document.getElementById('app') as never);
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setTimeout(draw, 16);
}

const events = new page.EventSource(withToken('events'));
events.onopen = () => {
  connection = 'live';
  schedule();
};
events.onerror = () => {
  connection = 'reconnecting';
  schedule();
};
events.addEventListener('snapshot', (event) => {
  state = JSON.parse(event.data) as DashboardState;
  connection = 'live';
  schedule();
});
events.addEventListener('input', (event) => {
  if (!state) return;
  applyDashboardInput(state, JSON.parse(event.data) as DashboardInput);
  schedule();
});
draw();
