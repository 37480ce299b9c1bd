// Deferred approvals survive the host: a host process runs a Claude Code turn (the real CLI, the fake API) whose
// permission callback defers a Bash call to a SQLite store; the host is killed with SIGKILL while the call is
// pending; `troupe approve` (or `troupe deny`) decides it from another process; a new host resumes the same CLI
// session, the model asks for the same call again, and it runs exactly once (a denied one never runs).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApprovalStore, type PendingApproval } from '@troupe/core';
import { openSqliteStore } from '@troupe/store-sqlite';
import { createFakeLlmServer, type FakeLlmServer, type FakeToolCall } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPackageDir, runTroupe, testEnv } from './testing/cli-test-kit';
import { findRealCli } from './testing/real-cli-commands';

const host = fileURLToPath(new URL('./__fixtures__/approvals/approval-host.mjs', import.meta.url));
const runIntegration = !process.env.TROUPE_SKIP_INT;
const claude = runIntegration ? findRealCli('claude') : { missing: 'TROUPE_SKIP_INT is set' };
if ('missing' in claude) console.warn(`[real CLI] SKIPPED the approval restart test: ${claude.missing}`);

/** Runs the host script; resolves with its exit code or signal and output. `detached`: its own process group, for kill -9 of the whole host. */
function startHost(env: Record<string, string>) {
  const child = spawn(process.execPath, [host], { cwd: cliPackageDir, env: { ...testEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal as string))));
  return { child, exited, output: () => out };
}

describe.skipIf('missing' in claude)('deferred approval across kill -9 of the host (real Claude Code, fake API)', () => {
  let server: FakeLlmServer;
  let root: string;
  const hosts: ReturnType<typeof startHost>[] = [];

  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text' });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => {
    for (const started of hosts.splice(0)) if (started.child.exitCode === null && started.child.signalCode === null) process.kill(-(started.child.pid as number), 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
  });

  it.each(['approve', 'deny'] as const)(
    'troupe %s from another process decides the pending call; the resumed session runs an approved call exactly once, a denied one never',
    async (decision) => {
      server.reset();
      server.setScenario('text');
      root = mkdtempSync(join(tmpdir(), 'troupe-approval-restart-'));
      const workspace = join(root, 'workspace');
      mkdirSync(workspace, { recursive: true });
      const counter = join(workspace, 'count.txt');
      const call: FakeToolCall = { name: 'Bash', arguments: { command: `echo ran >> ${counter}`, description: 'Count one run' } };
      const env = { APPROVAL_ROOT: root, FAKE_API_URL: server.url, CLAUDE_BIN: (claude as { command: string }).command };
      const store = openSqliteStore(join(root, 'approvals.db'));
      const approvals = new ApprovalStore(store);
      try {
        // 1. The first host: the model asks for the Bash call; the callback defers it to the store.
        server.enqueue('anthropic', { toolCalls: [call] });
        const first = startHost({ ...env, APPROVAL_PROMPT: 'Count one run, please.' });
        hosts.push(first);
        let pending: PendingApproval | undefined;
        for (let i = 0; i < 600 && !pending; i++) {
          [pending] = await approvals.listPending();
          if (!pending) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(pending, first.output()).toMatchObject({ tool: 'Bash', kind: 'execute', adapter: 'claude', reason: 'shell commands need a human' });
        expect(pending?.sessionId).toMatch(/^[0-9a-f-]{36}$/);

        // 2. kill -9 of the host (its whole process group) while the call is pending: nothing ran.
        process.kill(-(first.child.pid as number), 'SIGKILL');
        expect(await first.exited).toBe('SIGKILL');
        expect(existsSync(counter)).toBe(false);

        // 3. The decision, from another process.
        const decided = await runTroupe([decision, pending!.id, '--store', join(root, 'approvals.db'), '--by', 'restart-test', ...(decision === 'deny' ? ['--reason', 'no counting today'] : [])]);
        expect(decided.stderr).toBe('');
        expect(decided.code).toBe(0);
        expect(await approvals.listPending()).toEqual([]);

        // 4. A new host resumes the same session; the model asks for the same call again, then ends its turn.
        const before = server.requests.length;
        server.enqueue('anthropic', { toolCalls: [call] });
        server.enqueue('anthropic', { text: 'asked again' });
        for (let index = 0; index < 4; index++) server.enqueue('anthropic', { text: `done ${index}` });
        const second = startHost({ ...env, APPROVAL_SESSION: pending!.sessionId!, APPROVAL_PROMPT: `Your call was decided (${decision}); ask for it again.` });
        hosts.push(second);
        expect(await second.exited, second.output()).toBe(0);

        const resumed = server.requests.slice(before).filter((entry) => entry.protocol === 'anthropic');
        // The same CLI session: the resumed requests carry the first host's conversation.
        expect(resumed.some((entry) => JSON.stringify(entry.body).includes('Count one run, please.'))).toBe(true);
        if (decision === 'approve') {
          expect(readFileSync(counter, 'utf8')).toBe('ran\n'); // exactly once
        } else {
          expect(existsSync(counter)).toBe(false); // never
          expect(resumed.some((entry) => JSON.stringify(entry.body).includes('no counting today'))).toBe(true);
        }
        const audit = await approvals.listAudit();
        expect(audit).toEqual([expect.objectContaining({ approvalId: pending!.id, behavior: decision === 'approve' ? 'allow' : 'deny', decidedBy: 'restart-test', tool: 'Bash', inputHash: pending!.inputHash })]);
        expect((await approvals.getDecision(pending!.id))?.consumed).toBe(true);
      } finally {
        await store.close();
      }
    },
    240_000,
  );
});
