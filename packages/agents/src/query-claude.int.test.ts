// query({ agent: 'claude' }) with the real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code@2.1.330)
// against the in-repo fake Anthropic API. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AgentStreamPart } from '@troupe/core';
import { isProcessRunning } from '@troupe/core/testing';
import { createFakeLlmServer, FAKE_TEXT, type FakeLlmServer } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { query } from './index';

const FAKE_KEY = 'sk-ant-fake-000';
const INT_TIMEOUT = 90_000;

/** Claude Code's native binary: pnpm skips the postinstall that copies it over `bin/claude.exe`, so take the platform package's. */
function claudeCodeBinary(): string {
  const manifest = createRequire(import.meta.url).resolve('@anthropic-ai/claude-code/package.json');
  const wrapperBin = join(dirname(manifest), 'bin', 'claude.exe');
  if (existsSync(wrapperBin) && statSync(wrapperBin).size > 1_000_000) return wrapperBin;
  const platform = createRequire(manifest).resolve(`@anthropic-ai/claude-code-${process.platform}-${process.arch}/package.json`);
  return join(dirname(platform), 'claude');
}

const runIntegration = !process.env.TROUPE_SKIP_INT;

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
    writeFileSync(join(bin, 'claude'), `#!/bin/sh\nexec '${claudeCodeBinary()}' "$@"\n`);
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
