import { serializedErrorSchema, type ChatMessage, type Store, type ToolResult } from '@troupe/core';
import { z } from 'zod';
import type { AgentRecord } from './agent-record';
import { OrchestratorSessionError } from './orchestrator-errors';
import type { AgentTaskContext, ForkResult } from './orchestrator-types';

/** Version of the records the orchestrator stores; another version is refused, never overwritten. */
export const SESSION_RECORD_VERSION = 1;

const storedCallSchema = z.object({
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  rawInput: z.string().optional(),
  source: z.enum(['native', 'tag']),
  iteration: z.number().int().positive(),
});

const storedContextSchema = z.object({
  task: z.string().optional(),
  variables: z.record(z.string(), z.string()).optional(),
  labels: z.array(z.string()).optional(),
  workspaceRoot: z.string().optional(),
  waitForInput: z.boolean().optional(),
});

const storedAgentSchema = z.object({
  version: z.literal(SESSION_RECORD_VERSION),
  id: z.string().min(1),
  parentId: z.string().optional(),
  rootId: z.string().min(1),
  kind: z.enum(['main', 'sub']),
  strategyType: z.string().min(1),
  systemPrompt: z.string(),
  context: storedContextSchema,
  attempt: z.number().int().positive(),
  retryOf: z.string().optional(),
  children: z.array(z.string()),
  status: z.enum(['idle', 'running', 'forking', 'waiting', 'completed', 'error', 'terminated']),
  started: z.boolean(),
  waitForInput: z.boolean(),
  iterations: z.number().int().nonnegative(),
  inputs: z.number().int().nonnegative(),
  result: z.string().optional(),
  /** The validated object of its typed result (`{ value }`: a `null` object is kept apart from none). */
  object: z.object({ value: z.unknown() }).optional(),
  error: serializedErrorSchema.optional(),
  terminationReason: z.string().optional(),
  createdAt: z.number(),
  updatedAt: z.number(),
  pendingCalls: z.object({ afterMessage: z.number().int().nonnegative(), calls: z.array(storedCallSchema) }).optional(),
});

/** @internal An agent as stored: what a new process needs to rebuild it (its messages are stored apart). */
export type StoredAgent = z.infer<typeof storedAgentSchema>;

const storedForkSchema = z.object({
  version: z.literal(SESSION_RECORD_VERSION),
  forkId: z.string().min(1),
  parentId: z.string().min(1),
  /** `tool`: the parent's `fork_agents` call (`toolCallId`) gets the results; `request`: `requestFork`, results injected as a message. */
  origin: z.enum(['tool', 'request']),
  toolCallId: z.string().optional(),
  retry: z.object({ maxRetries: z.number().int().nonnegative(), delayMs: z.number().int().nonnegative().optional() }).optional(),
  entries: z.array(z.object({ task: z.string(), strategyType: z.string(), context: storedContextSchema, agentIds: z.array(z.string()).min(1) })).min(1),
  status: z.enum(['running', 'completed', 'abandoned']),
  result: z.custom<ForkResult>((value) => typeof value === 'object' && value !== null && Array.isArray((value as ForkResult).results)).optional(),
  startedAt: z.number(),
});

/** @internal A fork as stored: its sub-agents (every attempt), so it can go on in a new process. */
export type StoredFork = z.infer<typeof storedForkSchema>;

const messageSchema = z.union([
  z.object({ role: z.literal('user'), content: z.string() }),
  z.object({ role: z.literal('assistant'), content: z.string(), toolCalls: z.array(z.object({ toolCallId: z.string(), toolName: z.string() }).passthrough()).optional() }).passthrough(),
  z.object({ role: z.literal('tool'), results: z.array(z.object({ toolCallId: z.string(), toolName: z.string(), content: z.string(), isError: z.boolean() })) }),
]);

const toolResultSchema = z.object({ success: z.boolean(), content: z.string(), error: z.string().optional() }).passthrough();

/** @internal What a session holds. */
export interface LoadedSession {
  agents: StoredAgent[];
  forks: StoredFork[];
}

/** Zero-padded message index: keys sort in conversation order. */
const messageKey = (index: number): string => String(index).padStart(10, '0');

/** Sorts ids like `agent-2` before `agent-10` (creation order). */
export function compareIds(a: string, b: string): number {
  const na = Number(/(\d+)$/.exec(a)?.[1] ?? Number.NaN);
  const nb = Number(/(\d+)$/.exec(b)?.[1] ?? Number.NaN);
  return Number.isNaN(na) || Number.isNaN(nb) || na === nb ? a.localeCompare(b) : na - nb;
}

/**
 * @internal The orchestrator's agent tree in a `Store`, written as it
 * changes: each agent record (coalesced: a burst of changes is one write),
 * each message as it joins a conversation, each tool result while its step
 * is not over, and each fork. Writes go one after another in the order they
 * were asked for, so what a crash leaves is always a prefix of the history.
 *
 * Layout under `['orchestrator', sessionId]`: `session` (version), `agents`
 * (one record per agent), `messages/<agentId>` (one item per message, keys
 * in order), `tool-results/<agentId>` (results of a step in progress) and
 * `forks`.
 */
export class AgentSessionStore {
  private chain: Promise<void> = Promise.resolve();
  private readonly scheduledAgents = new Map<string, AgentRecord>();
  private readonly scheduledForks = new Map<string, StoredFork>();
  private firstError: OrchestratorSessionError | undefined;
  private started = false;
  private readonly root: string[];

  constructor(
    readonly store: Store,
    readonly sessionId: string,
    private readonly onError: (error: OrchestratorSessionError) => void,
  ) {
    this.root = ['orchestrator', sessionId];
  }

  /** Stores the agent's record as it will be when the write runs. */
  saveAgent(record: AgentRecord): void {
    if (this.scheduledAgents.has(record.id)) return;
    this.scheduledAgents.set(record.id, record);
    this.enqueue('save-agent', record.id, () => {
      this.scheduledAgents.delete(record.id);
      return this.store.put([...this.root, 'agents'], record.id, toStoredAgent(record));
    });
  }

  /** Appends messages to the agent's stored conversation (at `record.storedMessages` onwards). */
  appendMessages(record: AgentRecord, messages: readonly ChatMessage[]): void {
    for (const message of messages) {
      const index = record.storedMessages++;
      this.enqueue('append-message', record.id, () => this.store.put([...this.root, 'messages', record.id], messageKey(index), message));
    }
  }

  /** Keeps a tool result until its step is over (a restarted agent then need not run the tool again). */
  saveToolResult(agentId: string, toolCallId: string, result: ToolResult): void {
    this.enqueue('save-tool-result', agentId, () => this.store.put([...this.root, 'tool-results', agentId], toolCallId, result));
  }

  /** Forgets the results of a step that is over. */
  dropToolResults(agentId: string, toolCallIds: readonly string[]): void {
    if (toolCallIds.length === 0) return;
    this.enqueue('drop-tool-results', agentId, async () => {
      for (const id of toolCallIds) await this.store.delete([...this.root, 'tool-results', agentId], id);
    });
  }

  /** Stores a fork's state (the latest one given when the write runs). */
  saveFork(fork: StoredFork): void {
    const scheduled = this.scheduledForks.has(fork.forkId);
    this.scheduledForks.set(fork.forkId, fork);
    if (scheduled) return;
    this.enqueue('save-fork', fork.parentId, () => {
      const latest = this.scheduledForks.get(fork.forkId) as StoredFork;
      this.scheduledForks.delete(fork.forkId);
      return this.store.put([...this.root, 'forks'], fork.forkId, latest);
    });
  }

  /** Deletes agents (records, messages, tool results) — `removeAgent`. */
  removeAgents(agentIds: readonly string[]): void {
    for (const agentId of agentIds) {
      this.enqueue('remove-agent', agentId, async () => {
        await this.store.delete([...this.root, 'agents'], agentId);
        for (const kind of ['messages', 'tool-results']) {
          for (const item of await this.store.list([...this.root, kind, agentId])) await this.store.delete([...this.root, kind, agentId], item.key);
        }
      });
    }
  }

  /** Resolves once every write asked for so far is done; rejects with the first write that failed since the last flush. */
  async flush(): Promise<void> {
    await this.chain;
    const error = this.firstError;
    this.firstError = undefined;
    if (error) throw error;
  }

  /** Reads the session's agents and forks (validated; a record it cannot use is an error, not skipped). */
  async load(signal?: AbortSignal): Promise<LoadedSession> {
    const options = signal ? { signal } : {};
    const meta = await this.read('load', undefined, () => this.store.get<{ version?: unknown }>(this.root, 'session', options));
    if (meta !== undefined && meta.value.version !== SESSION_RECORD_VERSION) {
      throw new OrchestratorSessionError(this.sessionId, 'load', `the session was stored by another version (record version ${JSON.stringify(meta.value.version)}; this one reads ${SESSION_RECORD_VERSION})`);
    }
    const agentItems = await this.read('load', undefined, () => this.store.list([...this.root, 'agents'], options));
    const agents = agentItems.map((item) => this.parse(storedAgentSchema, item.value, 'load', `stored agent "${item.key}"`, item.key)).sort((a, b) => compareIds(a.id, b.id));
    const forkItems = await this.read('load', undefined, () => this.store.list([...this.root, 'forks'], options));
    const forks = forkItems.map((item) => this.parse(storedForkSchema, item.value, 'load', `stored fork "${item.key}"`)).sort((a, b) => compareIds(a.forkId, b.forkId));
    return { agents, forks };
  }

  /** An agent's stored conversation, in order. */
  async loadMessages(agentId: string, signal?: AbortSignal): Promise<ChatMessage[]> {
    const items = await this.read('load-messages', agentId, () => this.store.list([...this.root, 'messages', agentId], signal ? { signal } : {}));
    return items.map((item) => this.parse(messageSchema, item.value, 'load-messages', `stored message ${item.key}`, agentId) as ChatMessage);
  }

  /** Results kept for the agent's step in progress, by tool call id. */
  async loadToolResults(agentId: string, signal?: AbortSignal): Promise<Map<string, ToolResult>> {
    const items = await this.read('load-tool-results', agentId, () => this.store.list([...this.root, 'tool-results', agentId], signal ? { signal } : {}));
    return new Map(items.map((item) => [item.key, this.parse(toolResultSchema, item.value, 'load-tool-results', `stored tool result ${item.key}`, agentId) as ToolResult]));
  }

  private enqueue(operation: string, agentId: string | undefined, write: () => Promise<unknown>): void {
    if (!this.started) {
      this.started = true;
      const meta = { version: SESSION_RECORD_VERSION, sessionId: this.sessionId, createdAt: Date.now() };
      this.chain = this.chain.then(() => this.run('save-session', undefined, () => this.store.put(this.root, 'session', meta)));
    }
    this.chain = this.chain.then(() => this.run(operation, agentId, write));
  }

  private async run(operation: string, agentId: string | undefined, write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (cause) {
      const error = new OrchestratorSessionError(this.sessionId, operation, `the store failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
        cause,
        ...(agentId !== undefined ? { agentId } : {}),
      });
      this.firstError ??= error;
      this.onError(error);
    }
  }

  private async read<T>(operation: string, agentId: string | undefined, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (cause) {
      throw new OrchestratorSessionError(this.sessionId, operation, `the store failed: ${cause instanceof Error ? cause.message : String(cause)}`, {
        cause,
        ...(agentId !== undefined ? { agentId } : {}),
      });
    }
  }

  private parse<S extends z.ZodType>(schema: S, value: unknown, operation: string, what: string, agentId?: string): z.output<S> {
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`).join('; ');
    throw new OrchestratorSessionError(this.sessionId, operation, `${what} is not usable: ${issues}`, agentId !== undefined ? { agentId } : {});
  }
}

/** The record as stored (no runtime state: runner, slot, timers, data). */
function toStoredAgent(record: AgentRecord): StoredAgent {
  const stored: StoredAgent = {
    version: SESSION_RECORD_VERSION,
    id: record.id,
    rootId: record.rootId,
    kind: record.kind,
    strategyType: record.strategy.type,
    systemPrompt: record.systemPrompt,
    context: storedContext(record.context),
    attempt: record.attempt,
    children: [...record.children],
    status: record.status,
    started: record.started,
    waitForInput: record.waitForInput,
    iterations: record.iterations + (record.runner?.iterations ?? 0),
    inputs: record.inputs,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
  if (record.parentId !== undefined) stored.parentId = record.parentId;
  if (record.retryOf !== undefined) stored.retryOf = record.retryOf;
  if (record.result !== undefined) stored.result = record.result;
  if (record.object !== undefined) stored.object = { value: record.object.value };
  if (record.error !== undefined) stored.error = record.error;
  if (record.terminationReason !== undefined) stored.terminationReason = record.terminationReason;
  if (record.pendingCalls !== undefined) stored.pendingCalls = { afterMessage: record.pendingCalls.afterMessage, calls: record.pendingCalls.calls.map((call) => ({ ...call })) };
  return stored;
}

/** @internal The context part of a stored fork entry (what JSON can hold of a sub-agent's context). */
export function storedContext(context: AgentTaskContext): StoredAgent['context'] {
  const { task, variables, labels, workspaceRoot, waitForInput } = context;
  return {
    ...(task !== undefined ? { task } : {}),
    ...(variables !== undefined ? { variables: { ...variables } } : {}),
    ...(labels !== undefined ? { labels: [...labels] } : {}),
    ...(workspaceRoot !== undefined ? { workspaceRoot } : {}),
    ...(waitForInput !== undefined ? { waitForInput } : {}),
  };
}

