// The Looper's panels: state and controls, pending tasks, the iterations timeline, the [AUTO] stream.
import { html } from 'htm/preact';
import { useState } from 'preact/hooks';
import type { IterationView, LooperView, StepView } from '../state/dashboard-state';
import { formatClock, formatDuration } from './dashboard-format';

/** Sends a command to the Looper; resolves with its reply. */
export type SendCommand = (command: { type: 'add_pending'; task: string } | { type: 'stop' }) => Promise<{ ok: boolean; text: string }>;

export function LooperPanel({ looper, controls, send }: { looper: LooperView; controls: boolean; send: SendCommand }) {
  const [task, setTask] = useState('');
  const [reply, setReply] = useState<{ ok: boolean; text: string } | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (task.trim() === '') return;
    const answer = await send({ type: 'add_pending', task });
    setReply(answer);
    if (answer.ok) setTask('');
  };
  const stop = async () => setReply(await send({ type: 'stop' }));
  const last = looper.lastRun;
  return html`<section data-testid="looper">
    <h2>Looper ${looper.looperId && looper.looperId !== 'looper' ? html`<span class="muted">${looper.looperId}</span>` : ''}</h2>
    <dl class="kv">
      <dt>state</dt><dd><span class=${`badge s-${looper.state}`} data-testid="looper-state">${looper.state}</span>${looper.stopRequested ? html` <span class="badge s-canceled">stop requested</span>` : ''}</dd>
      <dt>run</dt><dd>${looper.runId ?? '—'}</dd>
      <dt>task</dt><dd>${looper.task ?? '—'}</dd>
      <dt>iteration</dt><dd>${looper.iteration > 0 ? `${looper.iteration}${looper.maxIterations ? ` / ${looper.maxIterations}` : ''}` : '—'}${looper.step ? html` <span class="badge s-running">${looper.step}</span>` : ''}</dd>
      ${last ? html`<dt>last run</dt><dd><span class=${`badge s-${last.outcome}`}>${last.outcome}</span> after ${last.iterations} iteration(s): ${last.reason}</dd>` : ''}
    </dl>
    ${
      controls
        ? html`<form class="controls" onSubmit=${submit}>
            <input id="pending-task" aria-label="task to queue" placeholder="Queue a task for the next iteration (add_pending)" value=${task} onInput=${(event: Event) => setTask((event.target as HTMLInputElement).value)} />
            <button type="submit" data-testid="add-pending">Add pending</button>
            <button type="button" class="stop" data-testid="stop" onClick=${stop} disabled=${looper.state !== 'RUNNING'}>Stop</button>
          </form>`
        : html`<p class="muted">Read-only: no Looper to send commands to.</p>`
    }
    ${reply ? html`<div class=${`reply${reply.ok ? '' : ' bad'}`} data-testid="reply">${reply.text}</div>` : ''}
    ${looper.warnings.map((warning) => html`<div class="reply bad">${warning}</div>`)}
  </section>`;
}

export function PendingPanel({ looper }: { looper: LooperView }) {
  return html`<section data-testid="pending">
    <h2>Pending tasks (${looper.pending.length})</h2>
    ${looper.pending.length === 0 ? html`<p class="muted">None queued.</p>` : html`<ol>${looper.pending.map((item) => html`<li data-testid="pending-item">${item.task} <span class="muted">${formatClock(item.addedAt)}</span></li>`)}</ol>`}
  </section>`;
}

function Step({ name, step }: { name: string; step: StepView | undefined }) {
  if (!step) return html`<span class="step badge muted">${name}</span>`;
  const title = [step.detail, step.startedAt ? `started ${formatClock(step.startedAt)}` : ''].filter(Boolean).join(' · ');
  return html`<span class=${`step badge s-${step.status}`} title=${title}>${name} ${step.status === 'running' ? '…' : formatDuration(step.durationMs)}${step.detail && step.status !== 'running' ? ` · ${step.detail}` : ''}</span>`;
}

function IterationRow({ iteration }: { iteration: IterationView }) {
  return html`<div class="row" data-testid="iteration" data-key=${iteration.key}>
    <div><b>#${iteration.iteration}</b><div class="muted">${formatClock(iteration.startedAt)}</div></div>
    <div>
      <div class="steps"><${Step} name="coder" step=${iteration.steps.coder} /><${Step} name="review" step=${iteration.steps.review} /><${Step} name="judge" step=${iteration.steps.judge} /></div>
      ${iteration.task ? html`<div class="task">${iteration.task}</div>` : ''}
      ${iteration.decision ? html`<div class="task"><span class=${`badge s-${iteration.decision.type}`}>${iteration.decision.type}</span> ${iteration.decision.reason}</div>` : ''}
    </div>
  </div>`;
}

export function TimelinePanel({ looper }: { looper: LooperView }) {
  const iterations = [...looper.iterations].reverse();
  return html`<section class="wide timeline" data-testid="timeline">
    <h2>Iterations</h2>
    ${iterations.length === 0 ? html`<p class="muted">No iteration yet.</p>` : iterations.map((iteration) => html`<${IterationRow} key=${iteration.key} iteration=${iteration} />`)}
  </section>`;
}

export function AutoStreamPanel({ looper }: { looper: LooperView }) {
  const messages = looper.messages.filter((message) => message.auto).slice(-100);
  return html`<section data-testid="auto-stream">
    <h2>[AUTO] stream</h2>
    ${messages.length === 0 ? html`<p class="muted">No progress message yet.</p>` : html`<div class="stream">${messages.map((message) => html`<div key=${message.id}><span class="muted">${formatClock(message.timestamp)}</span> ${message.content}</div>`)}</div>`}
  </section>`;
}
