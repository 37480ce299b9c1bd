import { createWorkspaceTools, type WorkspaceToolsOptions } from '@troupe/workspace-tools';
import {
  InvalidArgumentError,
  ToolRegistry,
  type AnyTool,
  type ChatToolSpec,
  type ToolAgentKind,
  type ToolContext,
  type ToolResult,
  type ToolScope,
  type UnregisterTool,
} from '@troupe/core';
import { createForkAgentsTool, FORK_AGENTS_TOOL_NAME } from './fork-agents-tool';
import { createTaskFinishTool, TASK_FINISH_TOOL_NAME } from './task-finish-tool';

/** Settings of a {@link ToolManager}. */
export interface ToolManagerOptions {
  /** The core registry to manage (shared with other code). Default: a new one. */
  registry?: ToolRegistry;
  /**
   * The common workspace tools (`read_file`, `write_file`, `list_files`,
   * confined to a root, and `shell_exec` when `shellExec` is given) to
   * register; `false` for none. Default: the three file tools, rooted at
   * each agent's workspace root (the orchestrator's `workspaceRoot`). See
   * core's `createWorkspaceTools`.
   */
  workspaceTools?: WorkspaceToolsOptions | false;
  /** Register `task_finish` (scope `sub`). Default true. */
  taskFinish?: boolean;
  /** Register `fork_agents` (scope `main`). Default true. */
  forkAgents?: boolean;
}

/** The context `ToolManager.executeTool` needs: a tool context whose agent kind is known. */
export type AgentToolContext = ToolContext & { agentKind: ToolAgentKind };

/**
 * Seed 004's ToolManager as a thin layer over core's {@link ToolRegistry}
 * (the registry is the single source of truth; this adds the defaults and
 * whitelists). Scopes: `common` — every agent (`read_file`, `write_file`,
 * `list_files`, and `shell_exec` when opted in, confined to the workspace); `main` — the main
 * agent only (`fork_agents`); `sub` — sub-agents only (`task_finish`).
 *
 * @example
 * ```ts
 * const tools = new ToolManager({ workspaceTools: { root: '/path/to/repo', shellExec: { allowedCommands: ['git', 'ls'] } } });
 * tools.registerTool(searchDocsTool);                  // scope from the tool (default common)
 * tools.getToolsForAgent('sub').map((t) => t.name);     // read_file, write_file, list_files, shell_exec, search_docs, task_finish
 * tools.getToolSchema('task_finish');                   // { name, description, inputSchema }
 * ```
 */
export class ToolManager {
  /** The core registry behind this manager. */
  readonly registry: ToolRegistry;

  constructor(options: ToolManagerOptions = {}) {
    this.registry = options.registry ?? new ToolRegistry();
    if (options.workspaceTools !== false) {
      for (const tool of createWorkspaceTools(options.workspaceTools ?? {})) this.registerDefault(tool);
    }
    if (options.taskFinish !== false) this.registerDefault(createTaskFinishTool());
    if (options.forkAgents !== false) this.registerDefault(createForkAgentsTool());
  }

  /** Registers a tool in `scope` (default: the tool's own). Returns a function that removes it. Throws on a taken name. */
  registerTool(tool: AnyTool, scope?: ToolScope): UnregisterTool {
    return this.registry.register(tool, scope);
  }

  /** Removes a tool; with `scope`, only if it is registered in that scope. True when one was removed. */
  unregisterTool(name: string, scope?: ToolScope): boolean {
    if (scope !== undefined && this.registry.getScope(name) !== scope) return false;
    return this.registry.unregister(name);
  }

  /**
   * The tools an agent of this kind may use: `common` plus its own scope, in
   * registration order, filtered by `whitelist` when given. Throws for a
   * whitelisted name that is unknown or outside the kind's scope.
   */
  getToolsForAgent(agentKind: ToolAgentKind, whitelist?: readonly string[]): AnyTool[] {
    const tools = this.registry.getToolsForAgent(agentKind);
    if (whitelist === undefined) return tools;
    if (!Array.isArray(whitelist)) throw new InvalidArgumentError('whitelist', 'expected an array of tool names');
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of whitelist) {
      if (byName.has(name)) continue;
      const scope = this.registry.getScope(name);
      throw new InvalidArgumentError(
        'tools',
        scope === undefined
          ? `no tool named "${name}" is registered; registered: ${this.registry.list().map((tool) => tool.name).join(', ') || '(none)'}`
          : `tool "${name}" has scope ${scope}, which a ${agentKind} agent cannot use`,
      );
    }
    const allowed = new Set(whitelist);
    return tools.filter((tool) => allowed.has(tool.name));
  }

  /**
   * The tools served to a CLI agent (see `AgentStrategy.cli`): by default
   * only the orchestrator's agent tools of its scope — `fork_agents` for a
   * main agent — plus `task_finish`, which ends any CLI agent with its
   * result (the CLI has its own file and shell tools). A `whitelist` picks
   * tools of its scope as for a model agent (`task_finish` allowed for both kinds).
   */
  getToolsForCliAgent(agentKind: ToolAgentKind, whitelist?: readonly string[]): AnyTool[] {
    const names = whitelist ?? [FORK_AGENTS_TOOL_NAME, TASK_FINISH_TOOL_NAME];
    const finish = names.includes(TASK_FINISH_TOOL_NAME) ? this.registry.getTool(TASK_FINISH_TOOL_NAME) : undefined;
    const others = names.filter((name) => name !== TASK_FINISH_TOOL_NAME);
    const scoped = whitelist === undefined ? this.getToolsForAgent(agentKind).filter((tool) => others.includes(tool.name)) : this.getToolsForAgent(agentKind, others);
    if (whitelist !== undefined && names.includes(TASK_FINISH_TOOL_NAME) && !finish) {
      throw new InvalidArgumentError('tools', `no tool named "${TASK_FINISH_TOOL_NAME}" is registered`);
    }
    return finish ? [...scoped, finish] : scoped;
  }

  /** The provider-facing schema of a tool (name, description, JSON Schema). Throws for an unknown name. */
  getToolSchema(name: string): ChatToolSpec {
    return this.registry.getToolSchema(name);
  }

  /**
   * Runs a registered tool for an agent: validation, scope check and error
   * capture come from core (a failure is an error result, never a throw).
   */
  executeTool(name: string, args: unknown, context: AgentToolContext): Promise<ToolResult> {
    if (context === null || typeof context !== 'object' || (context.agentKind !== 'main' && context.agentKind !== 'sub')) {
      throw new InvalidArgumentError('context.agentKind', 'expected "main" or "sub"');
    }
    return this.registry.executeTool(name, args, context);
  }

  private registerDefault(tool: AnyTool): void {
    // A shared registry may already hold the default (e.g. two managers over one registry).
    if (this.registry.getTool(tool.name) === undefined) this.registry.register(tool);
  }
}
