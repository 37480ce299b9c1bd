import { InvalidArgumentError, InvalidStateError, type ChatMessage } from '@troupe/core';
import type { AgentOrchestratorOptions } from './agent-orchestrator-options';
import { freshRecordState, type AgentRecord } from './agent-record';
import { isTerminalStatus } from './agent-status';
import { defineAgentStrategy, renderSystemPrompt, type AgentPromptVariables, type AgentStrategy } from './agent-strategy';
import type { AgentTree } from './agent-tree';
import type { AgentTaskContext } from './orchestrator-types';
import type { ToolManager } from './tool-manager';

/**
 * @internal Makes agents: resolves strategies (objects or registered
 * types), checks contexts, assigns ids, renders system prompts, and adds the
 * new record to the tree (stored with the session, its first messages too).
 */
export class AgentFactory {
  readonly strategies = new Map<string, AgentStrategy>();
  /** Number of the next agent (`<idPrefix>-<n>`); moved past stored agents on resume. */
  nextAgent = 1;

  constructor(
    private readonly tree: AgentTree,
    private readonly tools: ToolManager,
    private readonly options: AgentOrchestratorOptions,
    readonly idPrefix: string,
    readonly subAgentStrategy: AgentStrategy,
  ) {}

  registerStrategy(strategy: AgentStrategy): () => void {
    const checked = defineAgentStrategy(strategy);
    if (this.strategies.has(checked.type)) {
      throw new InvalidArgumentError('strategy.type', `a strategy of type "${checked.type}" is already registered`);
    }
    this.strategies.set(checked.type, checked);
    return () => {
      if (this.strategies.get(checked.type) === checked) this.strategies.delete(checked.type);
    };
  }

  /** A strategy object, or the registered one of a type (`fallback` when none is given). */
  resolveStrategy(strategy: AgentStrategy | string | undefined, fallback?: AgentStrategy): AgentStrategy {
    if (strategy === undefined && fallback) return fallback;
    if (typeof strategy === 'string') {
      const found = this.strategies.get(strategy) ?? (strategy === this.subAgentStrategy.type ? this.subAgentStrategy : undefined);
      if (!found) {
        const known = [...this.strategies.keys()];
        throw new InvalidArgumentError('strategy', `no strategy of type "${strategy}" is registered${known.length > 0 ? `; registered: ${known.join(', ')}` : ''}`);
      }
      return found;
    }
    if (strategy === undefined) throw new InvalidArgumentError('strategy', 'expected an AgentStrategy or the type of a registered one');
    return defineAgentStrategy(strategy);
  }

  createRecord(context: AgentTaskContext, strategyInput: AgentStrategy | string | undefined, attempt: number, retryOf: string | undefined, fallback?: AgentStrategy): AgentRecord {
    if (context === null || typeof context !== 'object') throw new InvalidArgumentError('context', 'expected an AgentTaskContext object');
    const { task, messages, parentId } = context;
    if (task !== undefined && (typeof task !== 'string' || task.trim() === '')) throw new InvalidArgumentError('context.task', 'expected a non-empty string');
    if (messages !== undefined && !Array.isArray(messages)) throw new InvalidArgumentError('context.messages', 'expected an array of chat messages');
    if (context.waitForInput !== undefined && typeof context.waitForInput !== 'boolean') throw new InvalidArgumentError('context.waitForInput', 'expected a boolean');
    if (task === undefined && (messages === undefined || messages.length === 0)) {
      throw new InvalidArgumentError('context', 'give the agent a task or at least one message');
    }
    const parent = parentId === undefined ? undefined : this.tree.require(parentId);
    if (parent && isTerminalStatus(parent.status)) {
      throw new InvalidStateError(`Agent "${parent.id}" is ${parent.status}; it cannot get new sub-agents`);
    }
    const strategy = this.resolveStrategy(strategyInput, fallback);
    if (!(strategy.model ?? this.options.model)) {
      throw new InvalidArgumentError('strategy.model', `strategy "${strategy.type}" has no model and the orchestrator has no default model (options.model)`);
    }
    const kind = parent ? 'sub' : 'main';
    const id = `${this.idPrefix}-${this.nextAgent++}`;
    const systemPrompt = renderSystemPrompt(strategy, this.promptVariables(id, parent?.id, strategy, context));
    const conversation: ChatMessage[] = [...(messages ?? []), ...(task !== undefined ? [{ role: 'user' as const, content: task }] : [])];
    const record: AgentRecord = {
      ...freshRecordState(),
      id,
      parentId: parent?.id,
      rootId: parent?.rootId ?? id,
      kind,
      strategy,
      // The messages live in `conversation` until the run starts, then in the runner.
      context: { ...context, messages: undefined, ...(context.labels ? { labels: [...context.labels] } : {}) },
      systemPrompt,
      createdAt: Date.now(),
      attempt,
      retryOf,
      children: [],
      waitForInput: context.waitForInput ?? strategy.waitForInput ?? false,
      status: 'idle',
      conversation,
    };
    this.tree.add(record);
    this.tree.session?.appendMessages(record, conversation);
    this.tree.bus.emit('orchestrator:agent-created', {
      agentId: id,
      parentId: record.parentId,
      rootId: record.rootId,
      kind,
      strategyType: strategy.type,
      attempt,
      retryOf,
      task,
    });
    return record;
  }

  /** Throws if the strategy's template or whitelist does not fit a sub-agent of `parentId` (before the real id is known). */
  checkAgent(parentId: string, strategy: AgentStrategy, context: AgentTaskContext): void {
    renderSystemPrompt(strategy, this.promptVariables(`${this.idPrefix}-0`, parentId, strategy, context));
  }

  /** The template variables of an agent (also checks its tool whitelist). */
  private promptVariables(agentId: string, parentId: string | undefined, strategy: AgentStrategy, context: AgentTaskContext): AgentPromptVariables {
    const kind = parentId === undefined ? 'main' : 'sub';
    return {
      task: context.task ?? '',
      agentId,
      parentId: parentId ?? '',
      kind,
      strategy: strategy.type,
      tools: this.tools
        .getToolsForAgent(kind, strategy.tools)
        .map((tool) => tool.name)
        .join(', '),
      strategies: [...this.strategies.values()].map((known) => `- ${known.type}${known.description ? `: ${known.description}` : ''}`).join('\n'),
      ...context.variables,
    };
  }
}
