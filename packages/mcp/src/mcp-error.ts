import { TroupeError, type TroupeErrorOptions } from '@troupe/core';

const MCP_ERROR_MARKER = Symbol.for('troupe.mcp-error');

/**
 * An MCP server could not be started, reached or understood (the command is
 * missing, the URL refuses the connection or the token, the handshake timed
 * out). Failures of single tool calls are tool results instead, which the
 * model reads.
 */
export class McpError extends TroupeError {
  private readonly [MCP_ERROR_MARKER] = true;
  /** Name of the server (from the options). */
  readonly serverName: string;

  constructor(message: string, options: TroupeErrorOptions & { serverName: string }) {
    super('MCP_ERROR', message, options);
    this.name = 'McpError';
    this.serverName = options.serverName;
  }

  /** True for an McpError from any copy of `@troupe/mcp`. */
  static override isInstance(error: unknown): error is McpError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MCP_ERROR_MARKER] === true;
  }
}
