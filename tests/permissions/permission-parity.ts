// Runs one policy and one set of tool calls through each adapter's own request-building path, and renders the table.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listenDecisionSocket } from '@troupe/core/util';
import { EventBus, loadToolPolicyFile, type CompiledToolPolicy, type ToolDecisionRecord, type ToolPermissionOptions } from '@troupe/core';
import type { AcpPermissionRequest } from '../../packages/adapter-acp/src/acp-permissions';
import { acpToolName } from '../../packages/adapter-acp/src/acp-stream-parser';
import { AcpClientFs } from '../../packages/adapter-acp/src/acp-client-fs';
import { createClaudeControlHandler } from '../../packages/adapter-claude/src/claude-code-permissions';
import {
  CODEX_COMMAND_APPROVAL,
  CODEX_FILE_CHANGE_APPROVAL,
  CODEX_MCP_TOOL_APPROVAL,
  decideCodexApproval,
  type CodexApprovalFrame,
} from '../../packages/adapter-codex/src/codex-app-server-permissions';
import { GEMINI_HOOK_SOCKET_ENV, geminiHookCommand } from '../../packages/adapter-gemini/src/gemini-cli-hook-process';
import { createGeminiHookHandler } from '../../packages/adapter-gemini/src/gemini-cli-permissions';

/** The adapters compared, in table order. */
export const PARITY_ADAPTERS = ['Claude Code', 'Codex', 'Gemini CLI', 'ACP'] as const;
export type ParityAdapter = (typeof PARITY_ADAPTERS)[number];

/** One call, in each CLI's own tool names and shapes; `string` = the CLI never asks about such a call (why). */
export interface ParityCase {
  label: string;
  claude: { tool_name: string; input: Record<string, unknown> } | string;
  codex: CodexApprovalFrame | string;
  /** The BeforeTool hook event's tool fields, as Gemini CLI 0.61.0 writes them on the hook's stdin. */
  gemini: { tool_name: string; tool_input: Record<string, unknown>; mcp_context?: { server_name: string; tool_name: string } } | string;
  acp: { toolCall: { toolCallId: string; kind: string; title: string; rawInput: unknown; locations: { path: string }[]; _meta?: unknown } } | string;
}

const ROOT = '/path/to/repo';
const codexCommand = (command: string): CodexApprovalFrame => ({
  method: CODEX_COMMAND_APPROVAL,
  params: { threadId: 'thread-1', turnId: 'turn-1', itemId: 'call_1', command: `/bin/bash -lc '${command}'`, cwd: ROOT },
});
const codexPatch = (path: string): CodexApprovalFrame => ({
  method: CODEX_FILE_CHANGE_APPROVAL,
  params: { threadId: 'thread-1', turnId: 'turn-1', itemId: 'call_2' },
  item: { type: 'fileChange', id: 'call_2', changes: [{ path, kind: { type: 'add' }, diff: 'hello\n' }] },
});
/** An MCP call as Codex asks about it: an elicitation marked `mcp_tool_call` (`mcp__<server>__<tool>` split in two). */
const codexMcpCall = (name: string, params: Record<string, unknown>): CodexApprovalFrame => {
  const [, server, tool] = name.split('__');
  return {
    method: CODEX_MCP_TOOL_APPROVAL,
    params: { threadId: 'thread-1', turnId: 'turn-1', serverName: server, mode: 'form', _meta: { codex_approval_kind: 'mcp_tool_call', tool_name: tool, tool_params: params }, message: '', requestedSchema: { type: 'object', properties: {} } },
    item: { type: 'mcpToolCall', id: 'call_3', server, tool, arguments: params },
  };
};
const acpCall = (tool: string, kind: string, rawInput: Record<string, unknown>, path?: string) => ({
  toolCall: { toolCallId: `${tool}__${tool}_1795514886810_0`, kind, title: tool, rawInput, locations: path !== undefined ? [{ path }] : [] },
});
/** An MCP call as an ACP agent that names its tools (claude-code-acp: `_meta.claudeCode.toolName`) asks about it. */
const acpMcpCall = (tool: string, rawInput: Record<string, unknown>) => ({
  toolCall: { toolCallId: 'toolu_01', kind: 'other', title: tool, rawInput, locations: [], _meta: { claudeCode: { toolName: tool } } },
});
/** An MCP call as Gemini CLI's hook sees it: the tool as the model named it, the server and tool in `mcp_context`. */
const geminiMcp = (server: string, tool: string, input: Record<string, unknown>) => ({ tool_name: `mcp_${server}_${tool}`, tool_input: input, mcp_context: { server_name: server, tool_name: tool } });
const CODEX_NO_READ = 'not asked: Codex reads inside its sandbox without an approval request';
const CODEX_NO_FETCH = 'not asked: `codex app-server` sends no approval request for web search';
const NO_SUBAGENT = 'no sub-agents';
/** A sub-agent call as claude-code-acp asks about it (its `Task`, ACP kind `think`). */
const acpTaskCall = {
  toolCall: { toolCallId: 'toolu_02', kind: 'think', title: 'look around', rawInput: { subagent_type: 'general-purpose', description: 'look around', prompt: 'p' }, locations: [], _meta: { claudeCode: { toolName: 'Task' } } },
};

/** The representative calls: every kind, target globs, MCP names, unmatched calls. */
export const PARITY_CASES: readonly ParityCase[] = [
  { label: 'read `src/app.ts`', claude: { tool_name: 'Read', input: { file_path: `${ROOT}/src/app.ts` } }, codex: CODEX_NO_READ, gemini: { tool_name: 'read_file', tool_input: { file_path: `${ROOT}/src/app.ts` } }, acp: acpCall('read_file', 'read', { absolute_path: `${ROOT}/src/app.ts` }, `${ROOT}/src/app.ts`) },
  { label: 'write `src/app.ts`', claude: { tool_name: 'Write', input: { file_path: `${ROOT}/src/app.ts`, content: 'x' } }, codex: codexPatch(`${ROOT}/src/app.ts`), gemini: { tool_name: 'write_file', tool_input: { file_path: `${ROOT}/src/app.ts`, content: 'x' } }, acp: acpCall('write_file', 'edit', { file_path: `${ROOT}/src/app.ts`, content: 'x' }, `${ROOT}/src/app.ts`) },
  { label: 'write `.env`', claude: { tool_name: 'Write', input: { file_path: `${ROOT}/.env`, content: 'x' } }, codex: codexPatch(`${ROOT}/.env`), gemini: { tool_name: 'write_file', tool_input: { file_path: `${ROOT}/.env`, content: 'x' } }, acp: acpCall('write_file', 'edit', { file_path: `${ROOT}/.env`, content: 'x' }, `${ROOT}/.env`) },
  { label: 'write `README.md` (no rule)', claude: { tool_name: 'Edit', input: { file_path: `${ROOT}/README.md`, old_string: 'a', new_string: 'b' } }, codex: codexPatch(`${ROOT}/README.md`), gemini: { tool_name: 'replace', tool_input: { file_path: `${ROOT}/README.md`, old_string: 'a', new_string: 'b' } }, acp: acpCall('replace', 'edit', { file_path: `${ROOT}/README.md`, old_string: 'a', new_string: 'b' }, `${ROOT}/README.md`) },
  { label: 'run `git status`', claude: { tool_name: 'Bash', input: { command: 'git status --short' } }, codex: codexCommand('git status --short'), gemini: { tool_name: 'run_shell_command', tool_input: { command: 'git status --short' } }, acp: acpCall('run_shell_command', 'execute', { command: 'git status --short' }) },
  { label: 'run `rm -rf build`', claude: { tool_name: 'Bash', input: { command: 'rm -rf build' } }, codex: codexCommand('rm -rf build'), gemini: { tool_name: 'run_shell_command', tool_input: { command: 'rm -rf build' } }, acp: acpCall('run_shell_command', 'execute', { command: 'rm -rf build' }) },
  { label: 'run `git push origin main` (ask rule)', claude: { tool_name: 'Bash', input: { command: 'git push origin main' } }, codex: codexCommand('git push origin main'), gemini: { tool_name: 'run_shell_command', tool_input: { command: 'git push origin main' } }, acp: acpCall('run_shell_command', 'execute', { command: 'git push origin main' }) },
  { label: 'run `npm test` (no rule)', claude: { tool_name: 'Bash', input: { command: 'npm test' } }, codex: codexCommand('npm test'), gemini: { tool_name: 'run_shell_command', tool_input: { command: 'npm test' } }, acp: acpCall('run_shell_command', 'execute', { command: 'npm test' }) },
  { label: 'fetch `https://example.com`', claude: { tool_name: 'WebFetch', input: { url: 'https://example.com', prompt: 'summarise' } }, codex: CODEX_NO_FETCH, gemini: { tool_name: 'web_fetch', tool_input: { prompt: 'summarise https://example.com' } }, acp: acpCall('web_fetch', 'fetch', { url: 'https://example.com' }) },
  { label: 'MCP `mcp__docs__search`', claude: { tool_name: 'mcp__docs__search', input: { query: 'x' } }, codex: codexMcpCall('mcp__docs__search', { query: 'x' }), gemini: geminiMcp('docs', 'search', { query: 'x' }), acp: acpMcpCall('mcp__docs__search', { query: 'x' }) },
  { label: 'MCP `mcp__github__delete_repo`', claude: { tool_name: 'mcp__github__delete_repo', input: { repo: 'a/b' } }, codex: codexMcpCall('mcp__github__delete_repo', { repo: 'a/b' }), gemini: geminiMcp('github', 'delete_repo', { repo: 'a/b' }), acp: acpMcpCall('mcp__github__delete_repo', { repo: 'a/b' }) },
  { label: 'MCP `mcp__github__create_issue` (no rule)', claude: { tool_name: 'mcp__github__create_issue', input: { title: 't' } }, codex: codexMcpCall('mcp__github__create_issue', { title: 't' }), gemini: geminiMcp('github', 'create_issue', { title: 't' }), acp: acpMcpCall('mcp__github__create_issue', { title: 't' }) },
  { label: 'sub-agent (no rule)', claude: { tool_name: 'Task', input: { subagent_type: 'general-purpose', description: 'look around', prompt: 'p' } }, codex: NO_SUBAGENT, gemini: { tool_name: 'invoke_agent', tool_input: { agent_name: 'generalist', prompt: 'look around' } }, acp: acpTaskCall },
];

/** What one adapter decided for one call: the audit record's verdict and source, and what the CLI is answered. */
export interface ParityCell {
  decision: string;
  answer: string;
}

/** The two ways calls the policy leaves open are settled. */
export const PARITY_SCENARIOS = {
  'with a callback (it allows)': { canUseTool: () => true },
  'without a callback': {},
} as const satisfies Record<string, Omit<ToolPermissionOptions, 'policy'>>;
export type ParityScenario = keyof typeof PARITY_SCENARIOS;

function describeRecord(record: ToolDecisionRecord | undefined): string {
  if (!record) return 'no decision recorded';
  const by = record.decidedBy === 'policy' ? `policy \`${record.rule}\`` : record.decidedBy === 'default' ? (record.rule !== undefined ? `default after \`${record.rule}\`` : 'default') : record.decidedBy;
  return `${record.behavior} (${by})`;
}

/** Decides `item` on one adapter, through that adapter's own request-building path. */
export async function decideOn(adapter: ParityAdapter, item: ParityCase, permissions: ToolPermissionOptions): Promise<ParityCell | string> {
  const bus = new EventBus();
  const records: ToolDecisionRecord[] = [];
  bus.on('permission:decided', (event) => void records.push(event.payload));
  const signal = new AbortController().signal;
  let answer: string;
  if (adapter === 'Claude Code') {
    if (typeof item.claude === 'string') return item.claude;
    const handler = createClaudeControlHandler({ permissions, bus, agent: 'parity', workspace: ROOT });
    const reply = await handler({ subtype: 'can_use_tool', tool_use_id: 'toolu_1', ...item.claude }, signal);
    answer = `\`${String(reply.behavior)}\``;
  } else if (adapter === 'Codex') {
    if (typeof item.codex === 'string') return item.codex;
    const outcome = await decideCodexApproval(item.codex, { agent: 'parity', workspace: ROOT, signal }, { ...permissions, bus });
    answer = `\`${outcome.decision}\``;
  } else if (adapter === 'Gemini CLI') {
    if (typeof item.gemini === 'string') return item.gemini;
    const handler = createGeminiHookHandler({ permissions, bus, agent: 'parity', workspace: ROOT });
    const printed = await runGeminiHook(handler, { session_id: 'session-1', cwd: ROOT, hook_event_name: 'BeforeTool', timestamp: '2026-11-27T00:00:00.000Z', ...item.gemini });
    answer = `\`${String(printed.decision)}\``;
  } else {
    if (typeof item.acp === 'string') return item.acp;
    const { toolCall } = item.acp;
    const request: AcpPermissionRequest = {
      sessionId: 'session-1',
      toolCallId: toolCall.toolCallId,
      toolName: acpToolName(toolCall),
      title: toolCall.title,
      kind: toolCall.kind,
      input: toolCall.rawInput,
      locations: toolCall.locations,
      options: [],
    };
    // The adapter's own path with `permissions`: a read reaches Troupe as the agent's fs/read_text_file through the
    // client, every other call as its session/request_permission.
    const gate = new AcpClientFs(permissions);
    const context = { adapterId: 'acp', agent: 'parity', workspace: ROOT, signal, bus };
    const path = toolCall.locations[0]?.path;
    if (toolCall.kind === 'read' && path !== undefined) {
      const reply = await gate.decideFileAccess({ method: 'fs/read_text_file', params: { sessionId: 'session-1', path, toolCall } }, context);
      answer = `\`${reply.outcome}\``;
    } else {
      const reply = await gate.decidePermission(request, context);
      answer = `\`${typeof reply === 'object' ? reply.behavior : String(reply)}\``;
    }
  }
  return { decision: describeRecord(records[0]), answer };
}

/**
 * Gemini CLI's whole decision path for one BeforeTool event: the hook command run as Gemini CLI runs it (through the
 * shell, the event on stdin), asking `handler` over a private decision socket; resolves with what it printed for Gemini.
 */
async function runGeminiHook(handler: ReturnType<typeof createGeminiHookHandler>, event: Record<string, unknown>): Promise<{ decision?: unknown }> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-parity-gemini-'));
  const socket = await listenDecisionSocket(join(dir, 'hook.sock'), { name: 'parity Gemini CLI hook socket', handler });
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      const child = spawn('/bin/sh', ['-c', geminiHookCommand()], { env: { ...process.env, [GEMINI_HOOK_SOCKET_ENV]: socket.path }, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
      child.on('error', reject);
      child.on('close', () => resolve(out));
      child.stdin.end(JSON.stringify(event));
    });
    return JSON.parse(stdout) as { decision?: unknown };
  } finally {
    await socket.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every call on every adapter, in both scenarios. */
export async function parityResults(policy: CompiledToolPolicy): Promise<Record<ParityScenario, { item: ParityCase; cells: Record<ParityAdapter, ParityCell | string> }[]>> {
  const results = {} as Record<ParityScenario, { item: ParityCase; cells: Record<ParityAdapter, ParityCell | string> }[]>;
  for (const [scenario, options] of Object.entries(PARITY_SCENARIOS) as [ParityScenario, Omit<ToolPermissionOptions, 'policy'>][]) {
    results[scenario] = [];
    for (const item of PARITY_CASES) {
      const cells = {} as Record<ParityAdapter, ParityCell | string>;
      for (const adapter of PARITY_ADAPTERS) cells[adapter] = await decideOn(adapter, item, { ...options, policy });
      results[scenario].push({ item, cells });
    }
  }
  return results;
}

/** The markdown page: the policy, then one table per scenario. */
export function renderParityTable(policyText: string, results: Awaited<ReturnType<typeof parityResults>>): string {
  const lines = [
    '# Permissions: one policy, the same decisions on every adapter',
    '',
    '<!-- Generated by tests/permissions/permissions-parity.test.ts: run `TROUPE_UPDATE_PARITY=1 npx vitest run tests/permissions` after changing a permission path. Do not edit by hand. -->',
    '',
    'Each call below is written in each CLI\'s own tool names and shapes (Claude Code\'s `can_use_tool` control request, Codex\'s',
    '`codex app-server` approval requests (an MCP call\'s is an elicitation), Gemini CLI\'s BeforeTool hook event, an ACP `session/request_permission` from Gemini',
    'CLI) and decided through that adapter\'s own request-building path and `decideToolUse`. The Gemini CLI column runs the',
    'whole hook path: Troupe\'s hook command, run through the shell as Gemini CLI runs it with the event on its stdin, asks the',
    'host over its socket, and the cell shows what it printed back for Gemini (its MCP rows carry `mcp_context`, as Gemini CLI',
    'sends for an MCP tool). The test fails when any two adapters decide a call differently,',
    'and when this page is stale. A cell reads: the decision and who made it (a policy rule, the `canUseTool` callback, or the',
    'default: no callback, so denied), then what the CLI was answered. The ACP column takes Gemini CLI\'s tool calls as it',
    'sends them (`write_file__…` call ids), the read as the agent\'s `fs/read_text_file` through the client (how reads reach',
    'Troupe when `permissions` is set); its MCP and sub-agent rows are in the shape of an ACP agent that names its tools in',
    '`_meta.claudeCode.toolName` (claude-code-acp), since Troupe reads an MCP tool\'s name from there or from the call id.',
    '',
    'The policy (`tests/permissions/parity-policy.json`):',
    '',
    '```json',
    policyText.trim(),
    '```',
    '',
  ];
  for (const [scenario, rows] of Object.entries(results)) {
    lines.push(`## Calls the policy leaves open: ${scenario}`, '', `| Call | ${PARITY_ADAPTERS.join(' | ')} |`, `| --- | ${PARITY_ADAPTERS.map(() => '---').join(' | ')} |`);
    for (const { item, cells } of rows) {
      const text = PARITY_ADAPTERS.map((adapter) => {
        const cell = cells[adapter];
        return typeof cell === 'string' ? `— ${cell}` : `${cell.decision} → ${cell.answer}`;
      });
      lines.push(`| ${item.label} | ${text.join(' | ')} |`);
    }
    lines.push('');
  }
  return `${lines.join('\n')}`;
}

/** Reads the policy the table is generated from. */
export function loadParityPolicy(path: string): Promise<CompiledToolPolicy> {
  return loadToolPolicyFile(path);
}
