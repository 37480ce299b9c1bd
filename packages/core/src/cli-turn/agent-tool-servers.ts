import { CapabilityUnsupportedError } from '../errors/capability-unsupported-error';
import { ConfigError } from '../errors/config-error';
import { TROUPE_TOOL_SERVER_NAME, type AgentToolHost, type AgentToolServer } from './agent-tool-host';
import type { AgentAdapter } from '../adapter/v1/agent-adapter-v1';
import type { MemberAgentConfig } from '../adapter/v1/member-agent-config';

/**
 * The per-role MCP servers that carry members' Troupe `tools` to their CLIs:
 * started once per role on the member's first spawn, told when a turn ends
 * (so no tool call outlives it), and closed with the member. `AgentManager`
 * owns one and delegates to it; it owns the processes and turns.
 *
 * @internal
 */
export class AgentToolServers {
  /** The running server of each member's Troupe `tools`, by role. */
  private readonly servers = new Map<string, Promise<AgentToolServer>>();

  constructor(private readonly host: AgentToolHost | undefined) {}

  /**
   * The member config the adapter sees: its `tools` replaced by the MCP
   * server that serves them (started once per member), merged into
   * `mcpServers`. Refuses MCP settings an adapter cannot pass on.
   */
  async adapterMember(roleId: string, adapter: AgentAdapter, member: MemberAgentConfig): Promise<MemberAgentConfig> {
    const { tools, toolData, ...rest } = member;
    const hasTools = tools !== undefined && tools.length > 0;
    const hasServers = member.mcpServers !== undefined && Object.keys(member.mcpServers).length > 0;
    if ((hasTools || hasServers) && adapter.capabilities.mcpServers !== true) {
      throw new CapabilityUnsupportedError(
        adapter.adapterId,
        'mcpServers',
        `The ${adapter.adapterId} adapter cannot give MCP servers${hasTools ? ' (the member\'s Troupe tools)' : ''} to its CLI; ` +
          'use an adapter with capabilities.mcpServers (claude, codex, gemini, gemini-acp, acp)',
      );
    }
    if (!hasTools) return rest;
    if (member.mcpServers?.[TROUPE_TOOL_SERVER_NAME] !== undefined) {
      throw new ConfigError(`member config of role "${roleId}"`, [
        { path: ['mcpServers', TROUPE_TOOL_SERVER_NAME], message: `"${TROUPE_TOOL_SERVER_NAME}" is the server of the member's tools; rename this server` },
      ]);
    }
    let server = this.servers.get(roleId);
    if (!server) {
      const host = this.host;
      if (!host) {
        throw new ConfigError(`member config of role "${roleId}"`, [
          {
            path: ['tools'],
            message: 'serving Troupe tools to an agent CLI needs a tool host: new AgentManager({ toolHost: createMcpToolHost() }) with createMcpToolHost from @troupe/mcp',
          },
        ]);
      }
      server = host.serve(tools, { roleId, ...(member.workDir !== undefined ? { workspaceRoot: member.workDir } : {}), ...(toolData ? { data: toolData } : {}) });
      this.servers.set(roleId, server);
      server.catch(() => {
        if (this.servers.get(roleId) === server) this.servers.delete(roleId);
      });
    }
    const { config } = await server;
    return { ...rest, mcpServers: { ...rest.mcpServers, [TROUPE_TOOL_SERVER_NAME]: config } };
  }

  /** A turn of `roleId` ended: its tool calls in flight are aborted with `reason` (nothing may still run on its behalf). */
  cancelCalls(roleId: string, reason: unknown): void {
    void this.servers.get(roleId)?.then((server) => server.cancelCalls?.(reason), () => {});
  }

  /** Stops the server of `roleId`, if any; a server that failed to start or to close is not an error here. */
  async close(roleId: string): Promise<void> {
    const server = this.servers.get(roleId);
    if (!server) return;
    this.servers.delete(roleId);
    await server.then((running) => running.close()).catch(() => {});
  }

  /** Stops every server. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.servers.keys()].map((roleId) => this.close(roleId)));
  }
}
