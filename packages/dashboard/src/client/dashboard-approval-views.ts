// The Approvals panel: the tool calls a permission callback deferred, each with Allow and Deny (a denial takes the
// reason the agent is told). Read from the server every few seconds; hidden when the dashboard has no approval store.
import { html } from 'htm/preact';
import { useEffect, useState } from 'preact/hooks';

/** A pending approval as the server lists it (never its input). */
export interface ApprovalView {
  id: string;
  agent: string;
  tool: string;
  kind: string;
  target?: string;
  reason?: string;
  createdAt: number;
}

/** Reads and decides approvals over `/api/approvals`. `list` resolves `null` when the dashboard has no store. */
export interface ApprovalsApi {
  list(): Promise<ApprovalView[] | null>;
  decide(id: string, behavior: 'allow' | 'deny', reason: string): Promise<{ ok: boolean; text: string }>;
}

const POLL_MS = 2000;

function ApprovalRow({ item, api, done }: { item: ApprovalView; api: ApprovalsApi; done: (text: { ok: boolean; text: string }) => void }) {
  const [reason, setReason] = useState('');
  const decide = async (behavior: 'allow' | 'deny') => done(await api.decide(item.id, behavior, reason));
  return html`<tr data-testid="approval">
    <td><code>${item.id}</code></td>
    <td>${item.agent}</td>
    <td>${item.tool} <span class="muted">(${item.kind})</span></td>
    <td><code>${item.target ?? ''}</code>${item.reason ? html`<div class="muted">${item.reason}</div>` : ''}</td>
    <td class="controls">
      <input aria-label="reason" placeholder="reason (needed to deny)" value=${reason} onInput=${(event: Event) => setReason((event.target as HTMLInputElement).value)} />
      <button type="button" data-testid="approval-allow" onClick=${() => decide('allow')}>Allow</button>
      <button type="button" class="stop" data-testid="approval-deny" onClick=${() => decide('deny')} disabled=${reason.trim() === ''}>Deny</button>
    </td>
  </tr>`;
}

export function ApprovalsPanel({ api }: { api: ApprovalsApi }) {
  const [items, setItems] = useState<ApprovalView[] | null | undefined>(undefined);
  const [reply, setReply] = useState<{ ok: boolean; text: string } | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let current = true;
    void api.list().then((listed) => current && setItems(listed));
    const timer = setTimeout(() => setTick(tick + 1), POLL_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [tick]);
  if (items === null || items === undefined) return '';
  const done = (answer: { ok: boolean; text: string }) => {
    setReply(answer);
    setTick(tick + 1);
  };
  return html`<section class="wide" data-testid="approvals">
    <h2>Approvals</h2>
    ${items.length === 0 ? html`<p class="muted">No tool call is waiting for an approval.</p>` : ''}
    ${items.length > 0
      ? html`<table>
          <thead><tr><th>id</th><th>agent</th><th>tool</th><th>target</th><th></th></tr></thead>
          <tbody>${items.map((item) => html`<${ApprovalRow} key=${item.id} item=${item} api=${api} done=${done} />`)}</tbody>
        </table>`
      : ''}
    ${reply ? html`<div class=${`reply${reply.ok ? '' : ' bad'}`} data-testid="approval-reply">${reply.text}</div>` : ''}
  </section>`;
}
