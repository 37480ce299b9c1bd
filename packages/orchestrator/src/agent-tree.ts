import type { EventBus, SerializedError } from '@troupe/core';
import type { AgentRecord } from './agent-record';
import type { AgentSessionStore } from './agent-session-store';
import { assertTransition } from './agent-status';
import { UnknownAgentError } from './orchestrator-errors';
import type { AgentRuntimeStatus, AgentStatusChange } from './orchestrator-types';

/**
 * @internal The agents of one orchestrator: the records by id (in creation
 * order), their status machine — every move checked, published as
 * `orchestrator:agent-status-changed` and stored with the session — and
 * subtree walks.
 */
export class AgentTree {
  readonly records = new Map<string, AgentRecord>();

  constructor(
    readonly bus: EventBus,
    readonly session: AgentSessionStore | undefined,
  ) {}

  /** The record, or {@link UnknownAgentError}. */
  require(agentId: string): AgentRecord {
    const record = typeof agentId === 'string' ? this.records.get(agentId) : undefined;
    if (!record) throw new UnknownAgentError(String(agentId));
    return record;
  }

  /** Adds a new record (and links it to its parent). */
  add(record: AgentRecord): void {
    this.records.set(record.id, record);
    const parent = record.parentId === undefined ? undefined : this.records.get(record.parentId);
    if (parent) {
      parent.children.push(record.id);
      this.save(parent);
    }
    this.save(record);
  }

  /** Moves an agent in the status machine (throws for a move it does not allow), publishes it and stores it. */
  transition(record: AgentRecord, to: AgentRuntimeStatus, extra: { reason?: string; error?: SerializedError } = {}): void {
    const from = record.status;
    assertTransition(record.id, from, to);
    record.status = to;
    record.updatedAt = Date.now();
    if (extra.error) record.error = extra.error;
    else if (to === 'terminated' && extra.reason !== undefined) record.error = { name: 'AgentTerminatedError', message: extra.reason, code: 'ABORTED' };
    this.save(record);
    const change: AgentStatusChange = {
      agentId: record.id,
      parentId: record.parentId,
      rootId: record.rootId,
      kind: record.kind,
      strategyType: record.strategy.type,
      from,
      to,
      ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
      ...(extra.error !== undefined ? { error: extra.error } : {}),
      timestamp: record.updatedAt,
    };
    this.bus.emit('orchestrator:agent-status-changed', change);
  }

  /** Stores the record's current state (no-op without a session store). */
  save(record: AgentRecord): void {
    this.session?.saveAgent(record);
  }

  /** The agent and its descendants, parents first. */
  subtree(record: AgentRecord): AgentRecord[] {
    const out: AgentRecord[] = [];
    const visit = (member: AgentRecord) => {
      out.push(member);
      for (const childId of member.children) {
        const child = this.records.get(childId);
        if (child) visit(child);
      }
    };
    visit(record);
    return out;
  }

  /** Forgets an agent (its parent's link too). */
  remove(record: AgentRecord): void {
    this.records.delete(record.id);
    const parent = record.parentId === undefined ? undefined : this.records.get(record.parentId);
    if (parent) {
      const index = parent.children.indexOf(record.id);
      if (index !== -1) parent.children.splice(index, 1);
      this.save(parent);
    }
  }
}
