// Test helpers for CLI agents (not exported from the package): a tool host that
// serves Troupe tools as plain JSON over HTTP on 127.0.0.1, and an adapter
// whose CLI (`__fixtures__/tool-calling-cli.mjs`) calls them during its turn.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager, type AgentToolHost, type AgentToolServeOptions } from '@troupe/core/cli-turn';
import { executeTool, type AgentTurnContext, type AnyTool, type MemberAgentConfig, type ProcessConfig } from '@troupe/core';
import { MockAgentAdapter } from '@troupe/core/testing';

const toolCallingCliPath = fileURLToPath(new URL('./__fixtures__/tool-calling-cli.mjs', import.meta.url));

/** One step of the fake CLI's plan: call a tool, hang (never end the turn), or write a file (relative: in its working directory). */
export type CliPlanStep = { name: string; arguments: Record<string, unknown> } | { hang: true } | { write: string; content: string };

/** What a {@link jsonToolHost} served, per member. */
export interface ServedTools {
  roleId: string;
  toolNames: string[];
  options: AgentToolServeOptions;
  /** Calls aborted by `cancelCalls` or `close`. */
  canceled: number;
  closed: boolean;
}

/** A tool host serving each member's tools as `POST { name, arguments }` → `ToolResult` JSON. */
export function jsonToolHost(): { host: AgentToolHost; served: ServedTools[] } {
  const served: ServedTools[] = [];
  const host: AgentToolHost = {
    async serve(tools: readonly AnyTool[], options: AgentToolServeOptions) {
      const entry: ServedTools = { roleId: options.roleId, toolNames: tools.map((tool) => tool.name), options, canceled: 0, closed: false };
      served.push(entry);
      const calls = new Set<AbortController>();
      let count = 0;
      const server = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          const { name, arguments: args } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { name: string; arguments: unknown };
          const tool = tools.find((candidate) => candidate.name === name);
          const controller = new AbortController();
          calls.add(controller);
          const run = tool
            ? executeTool(tool, args, {
                toolCallId: `call-${++count}`,
                toolName: name,
                abortSignal: controller.signal,
                ...(options.workspaceRoot !== undefined ? { workspaceRoot: options.workspaceRoot } : {}),
                ...(options.data !== undefined ? { data: options.data } : {}),
              })
            : Promise.resolve({ success: false, content: `no tool "${name}"`, error: `no tool "${name}"` });
          void run.then((result) => {
            calls.delete(controller);
            response.setHeader('content-type', 'application/json');
            response.end(JSON.stringify(result));
          });
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const cancelCalls = () => {
        for (const call of calls) {
          call.abort(new Error('turn ended'));
          entry.canceled++;
        }
        calls.clear();
      };
      return {
        config: { type: 'http', url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/tools` },
        cancelCalls,
        close: async () => {
          cancelCalls();
          entry.closed = true;
          server.closeAllConnections();
          await new Promise<void>((resolve) => server.close(() => resolve()));
        },
      };
    },
  };
  return { host, served };
}

/** An adapter (`mcpServers` capability) whose CLI calls the member's served tools per the plan in `member.env.TOOL_PLAN`. */
export class ToolCallingAdapter extends MockAgentAdapter {
  constructor() {
    super({ adapterId: 'tool-caller', capabilities: { mcpServers: true } });
  }

  override getProcessConfig(member: MemberAgentConfig, workDir?: string, context?: AgentTurnContext): ProcessConfig {
    super.getProcessConfig(member, workDir, context);
    const server = member.mcpServers?.troupe;
    return {
      command: process.execPath,
      args: [toolCallingCliPath],
      env: { ...member.env, TOOLS_URL: server && 'url' in server ? server.url : '' },
      ...(workDir ?? member.workDir ? { cwd: workDir ?? member.workDir } : {}),
    };
  }
}

/** The plan of the fake CLI, as member env. */
export function planEnv(plan: readonly CliPlanStep[]): Record<string, string> {
  return { TOOL_PLAN: JSON.stringify(plan) };
}

/** A manager whose `tool-caller` config runs a {@link ToolCallingAdapter}, with a {@link jsonToolHost}. */
export function toolCallingManager(): { manager: AgentManager; adapter: ToolCallingAdapter; served: ServedTools[] } {
  const adapter = new ToolCallingAdapter();
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'tool-caller', create: () => adapter });
  const { host, served } = jsonToolHost();
  return { manager: new AgentManager({ adapters, toolHost: host, defaultTimeoutMs: 60_000 }), adapter, served };
}
