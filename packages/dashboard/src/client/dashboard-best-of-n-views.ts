// The Best-of-N panel: per run, each attempt's state, figures (tokens, cost, wall time, diffstat) and the judge's
// reasons; the winner's row is marked, and its diff (kept by the server from its `workspace:finished`) shows below.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { BestOfNAttemptView, BestOfNRunView } from '../state/dashboard-state';
import { formatCost, formatCount, formatDuration } from './dashboard-format';
import { DiffView, type FetchWorkspaceDiff } from './dashboard-workspace-views';

function AttemptRow({ attempt }: { attempt: BestOfNAttemptView }) {
  const stat = attempt.diffstat;
  return html`<tr key=${attempt.id} data-testid="bon-attempt" class=${attempt.winner ? 'won' : ''}>
    <td>${attempt.id}${attempt.winner ? html` <span class="badge s-passed" data-testid="bon-winner-mark">winner</span>` : ''}</td>
    <td>${attempt.agent}</td>
    <td><span class=${`badge s-${attempt.status}`} data-testid="bon-attempt-state">${attempt.status}</span></td>
    <td>${attempt.tested ? (attempt.passed ? 'pass' : `fail${attempt.test?.exitCode != null ? ` (exit ${attempt.test.exitCode})` : ''}`) : html`<span class="muted">${attempt.passed ? 'pass (no test)' : '—'}</span>`}</td>
    <td class="n">${formatCount(attempt.tokens.total)}</td>
    <td class="n">${formatCost(attempt.costUsd)}</td>
    <td class="n">${formatDuration(attempt.wallTimeMs)}</td>
    <td data-testid="bon-diffstat">${stat ? html`${stat.files} file(s) <span class="d-add">+${stat.insertions}</span> <span class="d-del">-${stat.deletions}</span>` : ''}</td>
    <td class="why" data-testid="bon-reasons">${attempt.reasons ?? ''}${attempt.error ? html`<div class="reply bad">${attempt.error}</div>` : ''}</td>
  </tr>`;
}

function RunView({ run, fetchDiff }: { run: BestOfNRunView; fetchDiff: FetchWorkspaceDiff }) {
  const [open, setOpen] = useState(false);
  const winner = run.attempts.find((attempt) => attempt.id === run.winner);
  const state = run.status === 'running' ? 'running' : run.winner ? 'finished' : 'failed';
  return html`<div data-testid="bon-run">
    <p>
      <b>${run.runId}</b> <span class=${`badge s-${state}`} data-testid="bon-run-state">${state}</span>
      <span class="muted"> select ${run.select}${run.mode === 'firstPass' ? ', first pass' : ''} · concurrency ${run.concurrency}${run.durationMs !== undefined ? ` · ${formatDuration(run.durationMs)}` : ''}${run.stoppedBy ? ` · stopped by ${run.stoppedBy}` : ''}</span>
      ${run.status === 'finished' ? html` · winner: <b data-testid="bon-winner">${run.winner ?? 'none'}</b>` : ''}
    </p>
    <table>
      <thead><tr><th>attempt</th><th>agent</th><th>state</th><th>tests</th><th class="n">tokens</th><th class="n">cost</th><th class="n">wall time</th><th>diffstat</th><th>judge's reasons</th></tr></thead>
      <tbody>${run.attempts.map((attempt) => html`<${AttemptRow} key=${attempt.id} attempt=${attempt} />`)}</tbody>
    </table>
    ${winner?.workspace && winner.kept
      ? html`<p><button data-testid="bon-show-diff" onClick=${() => setOpen(!open)}>${open ? 'Hide' : 'Show'} the winner's diff</button> <span class="muted">branch <code>${winner.branch ?? ''}</code></span></p>
          ${open ? html`<${DiffView} name=${winner.workspace} fetchDiff=${fetchDiff} />` : ''}`
      : ''}
  </div>`;
}

/** Best-of-N runs, newest first; nothing when none was seen. */
export function BestOfNPanel({ runs, fetchDiff }: { runs: BestOfNRunView[]; fetchDiff: FetchWorkspaceDiff }) {
  if (runs.length === 0) return '';
  return html`<section class="wide" data-testid="best-of-n">
    <h2>Best-of-N</h2>
    ${[...runs].reverse().map((run) => html`<${RunView} key=${run.runId} run=${run} fetchDiff=${fetchDiff} />`)}
  </section>`;
}
