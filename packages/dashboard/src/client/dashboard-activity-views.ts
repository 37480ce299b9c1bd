// The other panels: an orchestrator's agent tree, team conversations, pipeline batches (Gantt), usage per agent.
import { html } from 'htm/preact';
import type { AgentView, ConversationView, PipelineView, QueueView, UsageView } from '../state/dashboard-state';
import { formatCost, formatCount, formatDuration } from './dashboard-format';

function AgentNode({ agent, children }: { agent: AgentView; children: Map<string, AgentView[]> }): unknown {
  const kids = children.get(agent.agentId) ?? [];
  return html`<li data-testid="agent">
    <span class=${`badge s-${agent.status}`}>${agent.status}</span> <b>${agent.agentId}</b>
    <span class="muted"> ${agent.kind}${agent.strategyType ? ` · ${agent.strategyType}` : ''}${agent.attempt > 1 ? ` · attempt ${agent.attempt}` : ''} · ${agent.tools} tool call(s)${agent.forks ? ` · ${agent.forks} fork(s)` : ''}</span>
    ${agent.task ? html`<div class="task">${agent.task}</div>` : ''}
    ${agent.error ? html`<div class="reply bad">${agent.error}</div>` : ''}
    ${kids.length > 0 ? html`<ul>${kids.map((kid) => html`<${AgentNode} key=${kid.agentId} agent=${kid} children=${children} />`)}</ul>` : ''}
  </li>`;
}

export function AgentTreePanel({ agents }: { agents: AgentView[] }) {
  const known = new Set(agents.map((agent) => agent.agentId));
  const children = new Map<string, AgentView[]>();
  const roots: AgentView[] = [];
  for (const agent of agents) {
    if (agent.parentId && known.has(agent.parentId)) children.set(agent.parentId, [...(children.get(agent.parentId) ?? []), agent]);
    else roots.push(agent);
  }
  return html`<section class="tree" data-testid="agents">
    <h2>Agent tree</h2>
    ${roots.length === 0 ? html`<p class="muted">No orchestrator agent yet.</p>` : html`<ul>${roots.map((agent) => html`<${AgentNode} key=${agent.agentId} agent=${agent} children=${children} />`)}</ul>`}
  </section>`;
}

export function TeamPanel({ conversations }: { conversations: ConversationView[] }) {
  return html`<section data-testid="team">
    <h2>Team conversation</h2>
    ${conversations.length === 0 ? html`<p class="muted">No team conversation yet.</p>` : ''}
    ${[...conversations].reverse().map(
      (conversation) => html`<div key=${conversation.conversationId}>
        <div>
          <b>${conversation.teamName}</b>
          ${conversation.completed ? html` <span class="badge s-completed">${conversation.completed.reason}</span> <span class="muted">${conversation.completed.turns} turn(s)</span>` : conversation.turn ? html` <span class="badge s-running">turn ${conversation.turn.turn}: ${conversation.turn.memberName}</span>` : ''}
          ${conversation.failures > 0 ? html` <span class="badge s-failed">${conversation.failures} failure(s)</span>` : ''}
        </div>
        <div class="chat">
          ${conversation.messages.map(
            (message) => html`<div class="msg" key=${message.id} data-testid="team-message">
              <b>${message.speakerName}</b><span class="muted">${message.kind === 'notice' ? 'notice' : `turn ${message.turn}`}${message.next.length ? ` → ${message.next.join(', ')}` : ''}${message.isDone ? ' · [DONE]' : ''}</span>
              <div class="body">${message.content}</div>
            </div>`,
          )}
        </div>
      </div>`,
    )}
  </section>`;
}

function Bar({ kind, from, to, start, span, open, failed, label }: { kind: string; from?: number; to?: number; start: number; span: number; open: boolean; failed?: boolean; label: string }) {
  if (from === undefined) return '';
  const left = ((from - start) / span) * 100;
  const width = Math.max(0.5, (((to ?? from) - from) / span) * 100);
  return html`<div class=${`bar ${kind}${open ? ' open' : ''}${failed ? ' failed' : ''}`} style=${`left:${left}%;width:${width}%`} title=${label}></div>`;
}

export function PipelinePanel({ pipelines, now }: { pipelines: PipelineView[]; now: number }) {
  return html`<section class="wide" data-testid="pipelines">
    <h2>Pipeline batches</h2>
    ${pipelines.length === 0 ? html`<p class="muted">No pipeline run yet.</p>` : ''}
    ${pipelines.map((pipeline) => {
      const times = pipeline.batches.flatMap((batch) => [batch.planningStartedAt, batch.plannedAt, batch.executionStartedAt, batch.executedAt]).filter((time): time is number => time !== undefined);
      const start = Math.min(pipeline.startedAt, ...times);
      const end = Math.max(now, ...times);
      const span = Math.max(1, end - start);
      return html`<div class="gantt" key=${pipeline.channelId}>
        <div><b>${pipeline.threadId}</b> <span class="muted">${pipeline.mode ?? ''} · ${pipeline.batches.length}${pipeline.totalBatches !== null ? ` / ${pipeline.totalBatches}` : ''} batch(es) · ${formatDuration(end - start)}</span>
          ${pipeline.executionCompleted ? html` <span class="badge s-completed">done</span>` : pipeline.planningCompleted ? html` <span class="badge s-planned">planned</span>` : ''}</div>
        ${pipeline.batches.map((batch) => {
          const planOpen = batch.planningStartedAt !== undefined && batch.plannedAt === undefined;
          const execOpen = batch.executionStartedAt !== undefined && batch.executedAt === undefined;
          return html`<div class="lane" key=${batch.batchIndex} data-testid="batch">
            <span>batch ${batch.batchIndex} <span class=${`badge s-${batch.status}`}>${batch.status}</span></span>
            <div class="track">
              <${Bar} kind="plan" from=${batch.planningStartedAt} to=${batch.plannedAt ?? (planOpen ? now : undefined)} start=${start} span=${span} open=${planOpen} label=${`planning ${formatDuration((batch.plannedAt ?? now) - (batch.planningStartedAt ?? now))}`} />
              <${Bar} kind="exec" from=${batch.executionStartedAt} to=${batch.executedAt ?? (execOpen ? now : undefined)} start=${start} span=${span} open=${execOpen} failed=${(batch.failedTasks ?? 0) > 0} label=${`execution ${formatDuration((batch.executedAt ?? now) - (batch.executionStartedAt ?? now))} · ${batch.executedTasks ?? 0}/${batch.taskCount ?? '?'} task(s)`} />
            </div>
          </div>`;
        })}
      </div>`;
    })}
    ${pipelines.length > 0 ? html`<div class="legend"><span><i style="background:var(--plan)"></i>planning</span><span><i style="background:var(--ok)"></i>execution</span><span><i style="background:var(--bad)"></i>execution with failed tasks</span></div>` : ''}
  </section>`;
}

export function UsagePanel({ usage }: { usage: UsageView }) {
  const { total, others } = usage;
  const note = usage.source === 'ledger' ? 'from the usage ledger' : usage.source === 'turns' ? 'from agent turns (no usage ledger reports)' : '';
  return html`<section data-testid="usage">
    <h2>Tokens and cost per agent ${note ? html`<span class="muted">· ${note}</span>` : ''}</h2>
    ${
      usage.agents.length === 0
        ? html`<p class="muted">No usage recorded yet.</p>`
        : html`<table>
            <thead><tr><th>agent</th><th class="n">calls</th><th class="n">input</th><th class="n">output</th><th class="n">cached</th><th class="n">cost</th><th>models</th></tr></thead>
            <tbody>
              ${usage.agents.map(
                (agent) => html`<tr key=${agent.agentId} data-testid="usage-row"><td>${agent.agentId}</td><td class="n">${agent.calls}</td><td class="n">${formatCount(agent.inputTokens)}</td><td class="n">${formatCount(agent.outputTokens)}</td><td class="n">${formatCount(agent.cachedInputTokens)}</td><td class="n">${formatCost(agent.costUsd)}${agent.unpriced ? html`<span class="muted" title="calls without a known cost"> +${agent.unpriced}?</span>` : ''}</td><td>${agent.models.join(', ')}</td></tr>`,
              )}
              ${others.agents > 0 ? html`<tr data-testid="usage-others"><td class="muted">${others.agents} older agents</td><td class="n">${others.calls}</td><td class="n">${formatCount(others.inputTokens)}</td><td class="n">${formatCount(others.outputTokens)}</td><td class="n">${formatCount(others.cachedInputTokens)}</td><td class="n">${formatCost(others.costUsd)}</td><td></td></tr>` : ''}
              <tr><th>total</th><th class="n">${total.calls}</th><th class="n">${formatCount(total.inputTokens)}</th><th class="n">${formatCount(total.outputTokens)}</th><th></th><th class="n">${formatCost(total.costUsd)}</th><th></th></tr>
            </tbody>
          </table>`
    }
  </section>`;
}

/** Jobs of each BullMQ queue by state (`troupe dashboard --queue URL`); nothing when no queue is watched. */
export function QueuePanel({ queues }: { queues: Record<string, QueueView> }) {
  const names = Object.keys(queues ?? {}).sort();
  if (names.length === 0) return '';
  return html`<section data-testid="queues">
    <h2>Queues</h2>
    <table>
      <thead><tr><th>queue</th><th class="n">waiting</th><th class="n">active</th><th class="n">delayed</th><th class="n">done</th><th class="n">failed</th></tr></thead>
      <tbody>
        ${names.map((name) => {
          const queue = queues[name] as QueueView;
          return html`<tr key=${name} data-testid="queue-row"><td>${name}</td><td class="n">${queue.waiting}</td><td class="n">${queue.active}</td><td class="n">${queue.delayed}</td><td class="n">${queue.completed}</td><td class="n">${queue.failed}</td></tr>`;
        })}
      </tbody>
    </table>
  </section>`;
}
