import { createClaudeCodeAdapterPlugin } from '@troupe/adapter-claude';
import { createCodexAdapterPlugin } from '@troupe/adapter-codex';
import { createGeminiCliAdapterPlugin } from '@troupe/adapter-gemini';
import { AdapterRegistry, AgentManager, type ChatModel, type EventBus, type McpServers, type RunnableAgent } from '@troupe/core';
import { createLooperStateStore, Looper, type LooperMember, type LooperStateStore } from '@troupe/looper';
import type { AgentCliId } from '../doctor/detect-environment';
import type { SessionMessageLog } from '../workspace/session-message-log';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';
import { createTestRunReview } from './test-run-review';

/** Which agent does a Looper step: an agent CLI, or (Review only) the workspace's tests. */
export type CliMemberChoice = AgentCliId | 'tests';

/** How `troupe looper` sets up its Looper. */
export interface CliLooperSetup {
  coder: AgentCliId;
  reviewer: CliMemberChoice;
  /** Let the agent CLIs edit files and run commands without asking (`full-auto`); otherwise file edits only (`auto-edit`). */
  autoAllow: boolean;
  maxIterations: number | undefined;
  /** JUDGE's model; the rule policy without one. */
  judgeModel: ChatModel | undefined;
  /** The `tests` reviewer's command. */
  testCommand: readonly string[];
  /** One timeout per step, in ms. */
  stepTimeoutMs: number | undefined;
  /** MCP servers the Coder's and the Review's CLIs get (`--mcp FILE`). */
  mcpServers?: McpServers | undefined;
}

/** The adapter registry the CLI drives agent CLIs through. */
export function createCliAdapterRegistry(autoAllow: boolean): AdapterRegistry {
  const permissionMode = autoAllow ? 'full-auto' : 'auto-edit';
  const adapters = new AdapterRegistry();
  adapters.register(createClaudeCodeAdapterPlugin({ permissionMode }));
  adapters.register(createCodexAdapterPlugin({ permissionMode }));
  adapters.register(createGeminiCliAdapterPlugin({ permissionMode }));
  return adapters;
}

/**
 * A {@link LooperStateStore} on the workspace session whose checkpoints also
 * write the channel messages posted since the previous one, in the same
 * transaction (see {@link SessionMessageLog}).
 */
export function createSessionLooperStateStore(workspace: TroupeWorkspace, log: SessionMessageLog): LooperStateStore {
  const inner = createLooperStateStore(workspace.store, { namespace: workspace.looperNamespace() });
  return {
    async load(looperId, options) {
      const saved = await inner.load(looperId, options);
      if (saved) log.markCommitted(saved);
      return saved;
    },
    history: (looperId, options) => inner.history(looperId, options),
    async save(snapshot, entries, options) {
      // The messages posted up to now belong with this snapshot (the Looper posts right after each change).
      const batch = log.takeBatch(snapshot);
      await workspace.store.transaction(async (tx) => {
        await inner.save(snapshot, entries, options);
        await log.writeBatch(batch, tx);
      }, options);
      log.commitBatch(batch);
      log.markCommitted(snapshot);
    },
  };
}

function member(choice: CliMemberChoice, step: 'coder' | 'review', setup: CliLooperSetup): LooperMember | RunnableAgent {
  if (choice === 'tests') return createTestRunReview({ command: setup.testCommand });
  return { configId: choice, roleId: `looper-${step}`, ...(setup.mcpServers ? { member: { mcpServers: setup.mcpServers } } : {}) };
}

/**
 * The Looper `troupe looper` runs: Coder and Review as chosen (agent CLIs
 * through their adapters, or the workspace's tests), JUDGE on the model when
 * one is configured (rule policy otherwise), state and messages in the
 * workspace session.
 */
export function createCliLooper(options: {
  workspace: TroupeWorkspace;
  log: SessionMessageLog;
  bus: EventBus;
  setup: CliLooperSetup;
}): { looper: Looper; agentManager: AgentManager } {
  const { workspace, log, bus, setup } = options;
  const agentManager = new AgentManager({ adapters: createCliAdapterRegistry(setup.autoAllow), eventBus: bus });
  const looper = new Looper({
    coder: member(setup.coder, 'coder', setup),
    review: member(setup.reviewer, 'review', setup),
    ...(setup.judgeModel ? { model: setup.judgeModel } : {}),
    messages: log.messages,
    eventBus: bus,
    agentManager,
    stateStore: createSessionLooperStateStore(workspace, log),
    workspacePath: workspace.root,
    ...(setup.maxIterations !== undefined ? { maxIterations: setup.maxIterations } : {}),
    ...(setup.stepTimeoutMs !== undefined ? { stepTimeoutMs: setup.stepTimeoutMs } : {}),
  });
  log.trackLooper(() => looper.getStatus().revision);
  return { looper, agentManager };
}
