// query({ agent: 'claude' }) with the real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code@2.1.330)
// against the in-repo fake Anthropic API. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentStreamPart } from '@troupe/core';
import { isProcessRunning } from '@troupe/core/testing';
import { claudeCodeBinary, createFakeLlmServer, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { query } from './index';

const FAKE_KEY = 'sk-ant-fake-000';
const INT_TIMEOUT = 90_000;

const runIntegration = !process.env.TROUPE_SKIP_INT;
if (!runIntegration) console.warn('[real CLI] SKIPPED the Claude Code 2.1.330 tests: TROUPE_SKIP_INT is set (pnpm test:unit leaves out the real-CLI tests)');

describe.skipIf(!runIntegration)("query({ agent: 'claude' }) with Claude Code 2.1.330 against the fake Anthropic API", () => {
  let server: FakeLlmServer;
  let root: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text', slowChunkDelayMs: 1_000 });
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server.reset();
    server.setScenario('text');
    root = mkdtempSync(join(tmpdir(), 'troupe-query-int-'));
    mkdirSync(join(root, 'workspace'));
    // `claude` on PATH, as after `npm install -g @anthropic-ai/claude-code`.
    const bin = join(root, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec '${claudeCodeBinary(import.meta.url)}' "$@"\n`);
    chmodSync(join(bin, 'claude'), 0o755);
    env = {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: FAKE_KEY,
      HOME: join(root, 'home'),
      TMPDIR: tmpdir(),
    };
    mkdirSync(env.HOME as string);
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it(
    'one call: streamed parts, the answer, cost and session id; the system prompt reaches the API',
    async () => {
      const run = query({ agent: 'claude', prompt: 'Say hello', cwd: join(root, 'workspace'), systemPrompt: 'You are TROUPE-QUERY-INT.', env, timeoutMs: 60_000 });
      const parts: AgentStreamPart[] = [];
      for await (const part of run) parts.push(part);
      const result = await run.result;
      expect(result).toMatchObject({ agent: 'claude', status: 'completed', text: FAKE_TEXT, error: undefined });
      expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(result.costUsd).toBeGreaterThan(0);
      expect(parts.map((part) => part.type)).toEqual(['session', 'text-delta', 'usage', 'turn-end']);
      const requests = server.requests.filter((request) => request.protocol === 'anthropic');
      expect(requests).toHaveLength(1);
      expect(JSON.stringify(requests[0]?.body)).toContain('TROUPE-QUERY-INT');
      expect(JSON.stringify(parts)).not.toContain(FAKE_KEY);
    },
    INT_TIMEOUT,
  );

  it(
    'break during a slow answer stops the CLI',
    async () => {
      server.setScenario('slow');
      const run = query({ agent: 'claude', prompt: 'Say hello slowly', cwd: join(root, 'workspace'), env, timeoutMs: 60_000 });
      let pid: number | undefined;
      for await (const part of run) {
        if (part.type === 'session') {
          pid = await runningClaudePid(root);
          break;
        }
      }
      const result = await run.result;
      expect(result.status).toBe('canceled');
      expect(pid).toBeGreaterThan(0);
      expect(isProcessRunning(pid as number)).toBe(false);
    },
    INT_TIMEOUT,
  );
});

/** The pid of the Claude Code process whose HOME is under `root` (read from /proc), once it shows. */
async function runningClaudePid(root: string): Promise<number | undefined> {
  const { readdirSync, readFileSync } = await import('node:fs');
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(`HOME=${join(root, 'home')}\0`)) return Number(entry);
    } catch {
      // gone, or not ours
    }
  }
  return undefined;
}
