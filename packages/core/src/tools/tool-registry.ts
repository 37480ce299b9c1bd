import { InvalidArgumentError } from '../errors/invalid-argument-error';
import type { ChatToolSpec } from '../model/v1/chat-message';
import { executeTool, toolErrorResult, toolSpec, type AnyTool, type ToolAgentKind, type ToolContext, type ToolResult, type ToolScope } from './define-tool';

/** Removes what `register` added. Calling it twice is harmless. */
export type UnregisterTool = () => void;

interface Entry {
  tool: AnyTool;
  scope: ToolScope;
}

const AGENT_KINDS: readonly ToolAgentKind[] = ['main', 'sub'];

/**
 * Tools by name and scope (seed 004's ToolManager): `common` tools go to every
 * agent, `main` tools only to the main agent, `sub` tools only to
 * sub-agents. Names are unique across scopes; registering a taken name, or
 * anything that is not a {@link defineTool} tool, throws.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * const unregister = registry.register(readFileTool);            // scope from the tool (default common)
 * registry.register(taskFinishTool, 'sub');
 * const tools = registry.getToolsForAgent('sub');                 // [read_file, task_finish]
 * await runToolLoop({ model, prompt, tools });
 * unregister();
 * ```
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();

  /**
   * Adds a tool in `scope` (default: the tool's own scope). Returns a function
   * that removes exactly this registration.
   */
  register(tool: AnyTool, scope?: ToolScope): UnregisterTool {
    assertTool(tool);
    const effectiveScope = scope ?? tool.scope;
    if (effectiveScope !== 'common' && effectiveScope !== 'main' && effectiveScope !== 'sub') {
      throw new InvalidArgumentError('scope', `expected common, main or sub, got ${JSON.stringify(effectiveScope)}`);
    }
    const existing = this.entries.get(tool.name);
    if (existing) {
      throw new InvalidArgumentError(
        'tool.name',
        `a tool named "${tool.name}" is already registered (scope ${existing.scope}); unregister it first or pick another name`,
      );
    }
    const entry: Entry = { tool, scope: effectiveScope };
    this.entries.set(tool.name, entry);
    return () => {
      if (this.entries.get(tool.name) === entry) this.entries.delete(tool.name);
    };
  }

  /** Removes a tool by name; `true` when one was removed. */
  unregister(name: string): boolean {
    return this.entries.delete(name);
  }

  /** Whether a tool with this name is registered. */
  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The tool with this name, or `undefined`. */
  getTool(name: string): AnyTool | undefined {
    return this.entries.get(name)?.tool;
  }

  /** The scope a tool was registered in, or `undefined`. */
  getScope(name: string): ToolScope | undefined {
    return this.entries.get(name)?.scope;
  }

  /** Every registered tool, in registration order. */
  list(): AnyTool[] {
    return [...this.entries.values()].map((entry) => entry.tool);
  }

  /** The tools an agent of this kind may use: `common` plus its own scope, in registration order. */
  getToolsForAgent(agentKind: ToolAgentKind): AnyTool[] {
    if (!AGENT_KINDS.includes(agentKind)) {
      throw new InvalidArgumentError('agentKind', `expected "main" or "sub", got ${JSON.stringify(agentKind)}`);
    }
    return [...this.entries.values()].filter((entry) => entry.scope === 'common' || entry.scope === agentKind).map((entry) => entry.tool);
  }

  /** The provider-facing schema of a tool (name, description, JSON Schema). Throws for an unknown name. */
  getToolSchema(name: string): ChatToolSpec {
    const entry = this.entries.get(name);
    if (!entry) throw new InvalidArgumentError('name', `no tool named ${JSON.stringify(name)} is registered${this.known()}`);
    return toolSpec(entry.tool);
  }

  /**
   * Runs a registered tool with validation (see `executeTool`). An unknown
   * name, or a tool outside the scope of `context.agentKind`, gives an error
   * result — the model called something it may not use — rather than a throw.
   */
  async executeTool(name: string, input: unknown, context: ToolContext): Promise<ToolResult> {
    const entry = this.entries.get(name);
    if (!entry) return toolErrorResult(`Unknown tool "${name}"${this.known()}`);
    if (context.agentKind && entry.scope !== 'common' && entry.scope !== context.agentKind) {
      return toolErrorResult(`Tool "${name}" is not available to a ${context.agentKind} agent`);
    }
    return executeTool(entry.tool, input, context);
  }

  private known(): string {
    const names = [...this.entries.keys()];
    return names.length > 0 ? `; available: ${names.join(', ')}` : '';
  }
}

function assertTool(tool: AnyTool): void {
  if (
    tool === null ||
    typeof tool !== 'object' ||
    typeof tool.name !== 'string' ||
    typeof tool.execute !== 'function' ||
    typeof tool.inputSchema !== 'object' ||
    tool.parameters === undefined
  ) {
    throw new InvalidArgumentError('tool', 'expected a tool made by defineTool()');
  }
}
