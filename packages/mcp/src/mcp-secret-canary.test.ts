// Canary for the MCP sink (issue 26): what Troupe's MCP tool server sends back to an agent CLI leaves the process,
// so a secret of this process's environment in a tool's output must not be on the wire in any form: plain,
// JSON-escaped (a secret with a quote or backslash inside a structured result) or `\u`-escaped.
import { Socket } from 'node:net';
import { defineTool, type AnyTool } from '@troupe/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcpServer, startMcpToolServer } from './index';

const PLAIN = 'canary-mcp-secret-3k9v';
const QUOTED = 'canary"mcp\\secret-7p2x';
const NON_ASCII = 'canary-mcp-sécret-ü4z';

/** Every form a secret could take in a JSON body. */
function forms(secret: string): string[] {
  const escaped = JSON.stringify(secret).slice(1, -1);
  const unicode = [...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  return [secret, escaped, unicode, Buffer.from(secret).toString('base64')];
}

/** Records every byte this process writes to a socket while `run` runs. */
async function tapSockets(run: () => Promise<void>): Promise<string> {
  const chunks: string[] = [];
  const write = Socket.prototype.write;
  Socket.prototype.write = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof Socket.prototype.write;
  try {
    await run();
  } finally {
    Socket.prototype.write = write;
  }
  return chunks.join('');
}

describe('MCP tool server secret canary', () => {
  beforeEach(() => {
    process.env.TROUPE_CANARY_MCP_TOKEN = PLAIN;
    process.env.TROUPE_CANARY_MCP_PASSWORD = QUOTED;
    process.env.TROUPE_CANARY_MCP_SECRET = NON_ASCII;
  });
  afterEach(() => {
    delete process.env.TROUPE_CANARY_MCP_TOKEN;
    delete process.env.TROUPE_CANARY_MCP_PASSWORD;
    delete process.env.TROUPE_CANARY_MCP_SECRET;
  });

  it('sends tool results (text, structured, and errors) with every secret redacted', async () => {
    const tools = [
      defineTool({ name: 'read_env', description: 'Reads the environment', parameters: z.object({}), execute: () => `token=${PLAIN} password=${QUOTED} secret=${NON_ASCII}` }),
      defineTool({ name: 'read_config', description: 'Reads a config', parameters: z.object({}), execute: () => ({ db: { password: QUOTED }, keys: [PLAIN, NON_ASCII] }) }),
      defineTool({
        name: 'fail',
        description: 'Fails',
        parameters: z.object({}),
        execute: () => {
          throw new Error(`could not connect with ${PLAIN} / ${QUOTED} / ${NON_ASCII}`);
        },
      }),
    ];
    const results: unknown[] = [];
    const wire = await tapSockets(async () => {
      await using server = await startMcpToolServer({ tools });
      const remote = await connectMcpServer(server.config, { name: 'canary' });
      try {
        for (const name of ['read_env', 'read_config', 'fail']) {
          const tool = remote.tools.find((candidate) => candidate.name === name) as AnyTool;
          results.push(await Promise.resolve(tool.execute({}, { toolCallId: name, toolName: name, abortSignal: new AbortController().signal })).catch((error: unknown) => String(error)));
        }
      } finally {
        await remote.close();
      }
    });
    expect(wire).toContain('read_config'); // the tap saw the traffic
    expect(JSON.stringify(results)).toContain('[REDACTED]');
    for (const secret of [PLAIN, QUOTED, NON_ASCII]) {
      for (const form of forms(secret)) {
        expect(wire.includes(form), `the wire carried ${JSON.stringify(form)}`).toBe(false);
        expect(JSON.stringify(results).includes(form), `a result carried ${JSON.stringify(form)}`).toBe(false);
      }
    }
  }, 30_000);
});
