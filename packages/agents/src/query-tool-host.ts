import { CapabilityUnsupportedError } from '@troupe/core';
import type { AgentToolHost } from '@troupe/core/cli-turn';
import { missingPackage } from './query-errors';

const MCP_PACKAGE = '@troupe/mcp';

/**
 * The tool host that serves `query()`'s `tools` to the CLI over MCP: `@troupe/mcp`'s `createMcpToolHost()`,
 * imported only when a query has tools.
 *
 * @throws CapabilityUnsupportedError naming `tools` and `npm install @troupe/mcp` when the package is not installed.
 */
export async function loadQueryToolHost(agent: string): Promise<AgentToolHost> {
  try {
    const { createMcpToolHost } = await import('@troupe/mcp');
    return createMcpToolHost();
  } catch (error) {
    if (missingPackage(error, [MCP_PACKAGE]) === undefined) throw error;
    throw new CapabilityUnsupportedError(
      agent,
      'tools',
      `Serving tools to the agent "${agent}" needs a tool host, from ${MCP_PACKAGE}, which is not installed: npm install ${MCP_PACKAGE}`,
      { cause: error },
    );
  }
}
