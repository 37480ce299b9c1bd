import { createAcpAdapterPlugin } from '@troupe/adapter-acp';
import type { BestOfNCandidateSpec } from '@troupe/best-of-n';
import { createClaudeCodeAdapterPlugin } from '@troupe/adapter-claude';
import { createCodexAdapterPlugin } from '@troupe/adapter-codex';
import { createGeminiCliAdapterPlugin } from '@troupe/adapter-gemini';
import { AdapterRegistry, AgentManager, createGenericAdapter, type AgentAdapterPlugin, type AgentDefinition } from '@troupe/core/cli-turn';
import { ConfigError, type ChatModel, type CompiledToolPolicy, type EventBus, type McpServers, type RunnableAgent } from '@troupe/core';
import { englishLooperTexts, Looper, type LooperMember, type LooperTexts } from '@troupe/looper';
import { cliPermissions } from '../permissions/cli-policy';
import { registryDefinitions, type AgentChoice, type CliRegistry } from '../registry/cli-registry';
import type { SessionMessageLog } from '../workspace/session-message-log';
import type { TroupeWorkspace } from '../workspace/troupe-workspace';
import { createSessionLooperStateStore } from './session-looper-state-store';
import { createBestOfNCoder } from './best-of-n-coder';
import { createTestRunReview, type TestRunReviewTexts } from './test-run-review';

/** Which agent does a Looper step: an agent (a registry entry or a built-in adapter), or (Review only) the workspace's tests. */
export type CliMemberChoice = AgentChoice | 'tests';

/** How `troupe looper` sets up its Looper. */
export interface CliLooperSetup {
  coder: AgentChoice;
  reviewer: CliMemberChoice;
  /** The agent registry the agents come from, if any. */
  registry: CliRegistry | undefined;
  /** The language of the Looper's messages. Default English. */
  texts?: LooperTexts;
  /** The language of the `tests` reviewer's report. Default English. */
  testsReviewTexts?: TestRunReviewTexts;
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
  /** `--isolate worktree`: each run works in its own git workspace of the workspace folder (a git checkout). */
  isolation?: 'none' | 'worktree';
  /** `--policy FILE`: the tool policy every agent CLI member is governed by. */
  policy?: CompiledToolPolicy | undefined;
  /** `--attempts claude:2,codex:2`: the Coder step is a best-of-N of these attempts, selected by `testCommand`. */
  coderAttempts?: readonly BestOfNCandidateSpec[] | undefined;
}

/** ACP tool kinds a file-edits-only turn (`auto-edit`, without `--auto-allow`) allows; commands, fetches and others are denied. */
const ACP_AUTO_EDIT_KINDS: ReadonlySet<string> = new Set(['read', 'edit', 'delete', 'move', 'search', 'think']);

/**
 * The adapter registry the CLI drives agent CLIs through: Claude Code, Codex
 * and Gemini CLI with the permission mode of `--auto-allow`, any ACP agent
 * for entries with `"adapter": "acp"` (its `command`, `baseArgs`, `env`;
 * permission requests allowed with `--auto-allow`, else file reads and edits
 * only), and, for each registry entry of another adapter type, core's
 * generic adapter (its `baseArgs`, `env`, `home` and declared completion detection).
 *
 * With a `policy` (`--policy FILE`), or for a registry entry with its own `policy`, Claude Code, Codex, Gemini CLI
 * (its BeforeTool hook; it needs a settings home Troupe may write: a registry entry's `home`, or a private one when an
 * API key is set) and ACP agents decide every tool call through the permission contract: the policy's rules first,
 * then {@link cliPermissions}'s callback for the calls it leaves open. Generic adapters cannot decide tool calls, so
 * with a policy they are refused (a policy nothing enforces would let every call through).
 */
export function createCliAdapterRegistry(autoAllow: boolean, registry?: CliRegistry, policy?: CompiledToolPolicy): AdapterRegistry {
  const permissionMode = autoAllow ? 'full-auto' : 'auto-edit';
  const permissions = cliPermissions(policy, autoAllow);
  const governs = (definition?: AgentDefinition) => policy !== undefined || definition?.policy !== undefined;
  const adapters = new AdapterRegistry();
  adapters.register(governed(createClaudeCodeAdapterPlugin({ permissionMode }), createClaudeCodeAdapterPlugin({ permissionMode, permissions }), governs, policy !== undefined));
  adapters.register(governed(createCodexAdapterPlugin({ permissionMode }), createCodexAdapterPlugin({ permissionMode, permissions }), governs, policy !== undefined));
  adapters.register(governed(createGeminiCliAdapterPlugin({ permissionMode }), createGeminiCliAdapterPlugin({ permissionMode, permissions }), governs, policy !== undefined));
  adapters.register(
    governed(
      createAcpAdapterPlugin({ canUseTool: autoAllow ? 'allow' : (request) => request.kind !== undefined && ACP_AUTO_EDIT_KINDS.has(request.kind) }),
      createAcpAdapterPlugin({ permissions }),
      governs,
      policy !== undefined,
    ),
  );
  for (const [key, definition] of Object.entries(registry?.parsed.config.agents ?? {})) {
    const type = definition.adapter ?? definition.name;
    if (adapters.has(type)) continue;
    try {
      adapters.register(governed({ type, displayName: definition.displayName ?? type, create: (entry?: AgentDefinition) => createGenericAdapter(entry ?? definition) }, undefined, () => policy !== undefined, policy !== undefined));
    } catch (error) {
      const field = definition.adapter !== undefined ? 'adapter' : 'name';
      throw new ConfigError(registry?.path ?? 'agent registry', [{ path: ['agents', key, field], message: `${(error as Error).message} (the adapter type)` }], { cause: error });
    }
  }
  return adapters;
}

/**
 * A plugin that builds with `governedPlugin` the agents a policy governs (`governs`), and with `plain` the others;
 * without a `governedPlugin` (an adapter that cannot decide tool calls) a governed agent is refused, and so is an
 * entry with a policy of its own when the run has one (`runPolicy`).
 */
function governed(plain: AgentAdapterPlugin, governedPlugin: AgentAdapterPlugin | undefined, governs: (definition?: AgentDefinition) => boolean, runPolicy: boolean): AgentAdapterPlugin {
  return {
    ...plain,
    create(definition?: AgentDefinition) {
      if (!governs(definition)) return plain.create(definition);
      // Two policies would leave one of them unenforced (neither may loosen the other): refuse the pair.
      if (runPolicy && definition?.policy !== undefined) {
        throw new ConfigError(`agent registry entry "${definition.name}"`, [{ path: ['policy'], message: 'the entry has a policy of its own and --policy gives another; keep one of them' }]);
      }
      if (governedPlugin) return governedPlugin.create(definition);
      throw new ConfigError('--policy', [
        {
          path: [],
          message: `${plain.displayName ?? plain.type} (adapter "${plain.type}") cannot decide its tool calls, so it cannot enforce a policy; choose claude, codex, gemini or an ACP agent`,
        },
      ]);
    },
  };
}

/**
 * An agent manager on {@link createCliAdapterRegistry}: a config id names a
 * registry entry (its settings reach the adapter) or a built-in adapter.
 */
export function createCliAgentManager(options: { autoAllow: boolean; registry: CliRegistry | undefined; bus?: EventBus; policy?: CompiledToolPolicy | undefined }): AgentManager {
  return new AgentManager({
    adapters: createCliAdapterRegistry(options.autoAllow, options.registry, options.policy),
    definitions: registryDefinitions(options.registry),
    ...(options.bus ? { eventBus: options.bus } : {}),
  });
}

function member(choice: CliMemberChoice, step: 'coder' | 'review', setup: CliLooperSetup): LooperMember | RunnableAgent {
  if (choice === 'tests') return createTestRunReview({ command: setup.testCommand, ...(setup.testsReviewTexts ? { texts: setup.testsReviewTexts } : {}) });
  return { configId: choice.name, roleId: `looper-${step}`, ...(setup.mcpServers ? { member: { mcpServers: setup.mcpServers } } : {}) };
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
  const agentManager = createCliAgentManager({ autoAllow: setup.autoAllow, registry: setup.registry, bus, policy: setup.policy });
  const looper = new Looper({
    texts: setup.texts ?? englishLooperTexts,
    coder: setup.coderAttempts
      ? createBestOfNCoder({
          candidates: setup.coderAttempts,
          testCommand: setup.testCommand,
          workspacePath: workspace.root,
          adapters: createCliAdapterRegistry(setup.autoAllow, setup.registry, setup.policy),
          definitions: registryDefinitions(setup.registry),
          bus,
        })
      : member(setup.coder, 'coder', setup),
    review: member(setup.reviewer, 'review', setup),
    ...(setup.judgeModel ? { model: setup.judgeModel } : {}),
    messages: log.messages,
    eventBus: bus,
    agentManager,
    stateStore: createSessionLooperStateStore(workspace, log),
    workspacePath: workspace.root,
    ...(setup.isolation === 'worktree' ? { isolation: 'worktree' as const, repo: workspace.root } : {}),
    ...(setup.maxIterations !== undefined ? { maxIterations: setup.maxIterations } : {}),
    ...(setup.stepTimeoutMs !== undefined ? { stepTimeoutMs: setup.stepTimeoutMs } : {}),
  });
  log.trackLooper(() => looper.getStatus().revision);
  return { looper, agentManager };
}
