import { seededRandom } from '@troupe/core/testing';
// The MCP HTTP tool server under hostile input (issue 26): raw junk bytes, HTTP requests with random methods,
// paths, headers and bodies, with and without the token, for a bounded number of rounds. The server runs in
// this process (an exception it threw fails the file); requests without the token or with a foreign Host or
// Origin must be refused, and a real authenticated client interleaved with the junk keeps getting answers.
import { defineTool, type AnyTool } from '@troupe/core';
import { fuzzJunkLine, fuzzSeed, sendJunkConnection, type FuzzRandom } from '@troupe/test-server';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { connectMcpServer, startMcpToolServer } from './index';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a key up',
  parameters: z.object({ key: z.string() }),
  execute: ({ key }) => `value of ${key}`,
});

const pick = <T>(random: FuzzRandom, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const RPC_FIELDS = ['jsonrpc', 'id', 'method', 'params', 'result', 'error'];
const RPC_VALUES = ['2.0', 'initialize', 'tools/list', 'tools/call', 'notifications/initialized', { name: 'lookup', arguments: { key: 1 } }, { protocolVersion: '2025-06-18' }];

describe('MCP HTTP tool server under fuzz', () => {
  it('refuses unauthenticated and malformed requests and keeps answering a real client (seeded)', async () => {
    await using server = await startMcpToolServer({ tools: [lookup] });
    const remote = await connectMcpServer(server.config, { name: 'fuzz' });
    const tool = remote.tools.find((candidate) => candidate.name === 'lookup') as AnyTool;
    // A fresh signal per call, as a run gives each call (the SDK client leaves a listener on the signal it is given).
    const context = () => ({ toolCallId: 'x', toolName: 'lookup', abortSignal: new AbortController().signal });
    const token = String(server.config.headers?.Authorization);
    const seed = fuzzSeed('MCP HTTP');
    const random = seededRandom(seed).next;
    const deadline = Date.now() + 5000;
    const statuses = new Map<string, number[]>();
    let rounds = 0;
    try {
      while (Date.now() < deadline && rounds < 300) {
        rounds++;
        const authorized = random() < 0.5;
        const foreign = random() < 0.15;
        const headers: Record<string, string> = { 'content-type': pick(random, ['application/json', 'text/plain', '']), accept: pick(random, ['application/json, text/event-stream', '*/*', '']) };
        if (authorized) headers.authorization = token;
        else if (random() < 0.5) headers.authorization = pick(random, ['Bearer ', 'Bearer x', `${token}x`, token.slice(0, -1), 'Basic Zm9vOmJhcg==']);
        if (foreign) headers.origin = pick(random, ['http://evil.example', 'null', `http://127.0.0.1:${server.port + 1}`]);
        if (random() < 0.3) headers['mcp-session-id'] = pick(random, ['', 'nope', '00000000-0000-0000-0000-000000000000', 'x'.repeat(300)]);
        if (random() < 0.1) headers['mcp-protocol-version'] = pick(random, ['1999-01-01', '', 'x']);
        const method = pick(random, ['POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'OPTIONS']);
        const path = pick(random, ['/mcp', '/mcp', '/mcp?x=1', '/', '/mcp/../mcp', '/%2e%2e', '/mcp%00']);
        const body = method === 'GET' || method === 'OPTIONS' ? undefined : random() < 0.2 ? `[${fuzzJunkLine(random, RPC_FIELDS, RPC_VALUES)}]` : fuzzJunkLine(random, RPC_FIELDS, RPC_VALUES);
        const junk = Array.from({ length: Math.floor(random() * 3) }, () => sendJunkConnection({ port: server.port }, random, { fields: RPC_FIELDS, lines: 1 + Math.floor(random() * 5) }));
        const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, ...(body !== undefined ? { body } : {}), signal: AbortSignal.timeout(20_000) }).catch(
          (error: unknown) => error as Error,
        );
        const kind = `${authorized ? 'token' : 'no-token'}${foreign ? '+foreign' : ''}`;
        const status = response instanceof Error ? -1 : response.status;
        if (!(response instanceof Error)) await response.body?.cancel().catch(() => {});
        statuses.set(kind, [...(statuses.get(kind) ?? []), status]);
        if (!authorized || foreign) expect([401, 403, 404], `seed ${seed}, round ${rounds}: ${method} ${path} ${kind}`).toContain(status);
        else expect(status, `seed ${seed}, round ${rounds}: ${method} ${path}`).not.toBe(500);
        await Promise.all(junk);
        // The real client, between junk requests.
        expect(await tool.execute({ key: `k${rounds}` }, context()), `seed ${seed}, round ${rounds}`).toBe(`value of k${rounds}`);
      }
    } finally {
      await remote.close();
    }
    expect(rounds).toBeGreaterThan(5);
    expect(statuses.get('no-token')?.length ?? 0).toBeGreaterThan(0);
    expect(statuses.get('token')?.length ?? 0).toBeGreaterThan(0);
    // A fresh client still connects after all that.
    const again = await connectMcpServer(server.config, { name: 'again' });
    expect(await (again.tools[0] as AnyTool).execute({ key: 'end' }, context())).toBe('value of end');
    await again.close();
  }, 60_000);
});
