// Deferred approvals survive the host, for each real CLI (Claude Code, Codex over app-server, Gemini CLI with its
// BeforeTool hook): a host process runs a turn (the real CLI, the fake API) whose permission callback defers a shell
// command to a SQLite store; the host is killed with SIGKILL while the call is pending; `troupe approve` (or
// `troupe deny`) decides it from another process; a new host resumes the same CLI session, the model asks for the
// same call again, and it runs exactly once (a denied one never runs, and its reason reaches the model).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApprovalStore, type PendingApproval } from '@troupe/core';
import { openSqliteStore } from '@troupe/store-sqlite';
import { createFakeLlmServer, type FakeLlmServer, type FakeProtocol, type FakeToolCall } from '@troupe/test-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cliPackageDir, runTroupe, testEnv } from './testing/cli-test-kit';
import { findRealCli, type RealCli } from './testing/real-cli-commands';

const host = fileURLToPath(new URL('./__fixtures__/approvals/approval-host.mjs', import.meta.url));
const runIntegration = !process.env.TROUPE_SKIP_INT;

/** What differs per CLI: its fake-API protocol, how the model asks for a shell command, and the tool's name in Troupe. */
interface RestartCase {
  cli: 'claude' | 'codex' | 'gemini';
  protocol: FakeProtocol;
  tool: string;
  shell: (command: string, workspace: string) => FakeToolCall;
}

const CASES: RestartCase[] = [
  { cli: 'claude', protocol: 'anthropic', tool: 'Bash', shell: (command) => ({ name: 'Bash', arguments: { command, description: 'Count one run' } }) },
  { cli: 'codex', protocol: 'openai-responses', tool: 'command_execution', shell: (command, workspace) => ({ name: 'exec_command', arguments: { cmd: command, workdir: workspace } }) },
  { cli: 'gemini', protocol: 'gemini', tool: 'run_shell_command', shell: (command) => ({ name: 'run_shell_command', arguments: { command } }) },
];

const binaries = new Map<RestartCase['cli'], RealCli>(CASES.map(({ cli }) => [cli, runIntegration ? findRealCli(cli) : { missing: 'TROUPE_SKIP_INT is set' }]));
for (const [cli, found] of binaries) if ('missing' in found) console.warn(`[real CLI] SKIPPED the ${cli} approval restart test: ${found.missing}`);
const matrix = CASES.flatMap((item) => (['approve', 'deny'] as const).map((decision) => ({ ...item, decision, missing: 'missing' in binaries.get(item.cli)! })));

/** Runs the host script; resolves with its exit code or signal and output. `detached`: its own process group, for kill -9 of the whole host. */
function startHost(env: Record<string, string>) {
  const child = spawn(process.execPath, [host], { cwd: cliPackageDir, env: { ...testEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal as string))));
  return { child, exited, output: () => out };
}

/** The processes (Linux: by `/proc/PID/cwd`) working in `dir`: the CLI and its helpers, which run in their own process group. */
function processesIn(dir: string): number[] {
  if (!existsSync('/proc')) return [];
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      const cwd = readlinkSync(`/proc/${entry}/cwd`);
      return cwd === dir || cwd.startsWith(`${dir}/`) ? [Number(entry)] : [];
    } catch {
      return []; // gone, or not ours to read
    }
  });
}

describe('deferred approval across kill -9 of the host (real CLIs, fake API)', () => {
  let server: FakeLlmServer;
  let root: string | undefined;
  const hosts: ReturnType<typeof startHost>[] = [];

  beforeAll(async () => {
    server = await createFakeLlmServer({ scenario: 'text' });
  });
  afterAll(async () => {
    await server?.close();
  });
  afterEach(() => {
    for (const started of hosts.splice(0)) if (started.child.exitCode === null && started.child.signalCode === null) process.kill(-(started.child.pid as number), 'SIGKILL');
    if (root !== undefined) rmSync(root, { recursive: true, force: true });
    root = undefined;
  });

  for (const { cli, protocol, tool, shell, decision, missing } of matrix) {
    it.skipIf(missing)(
      `${cli}: troupe ${decision} from another process decides the pending call; the resumed session runs an approved call exactly once, a denied one never`,
      async () => {
        server.reset();
        server.setScenario('text');
        root = mkdtempSync(join(tmpdir(), `troupe-approval-restart-${cli}-`));
        const workspace = join(root, 'workspace');
        mkdirSync(workspace, { recursive: true });
        const counter = join(workspace, 'count.txt');
        const call = shell(`echo ran >> ${counter}`, workspace);
        const env = { APPROVAL_CLI: cli, APPROVAL_ROOT: root, FAKE_API_URL: server.url, CLI_BIN: (binaries.get(cli) as { command: string }).command };
        const store = openSqliteStore(join(root, 'approvals.db'));
        const approvals = new ApprovalStore(store);
        const requestsOf = (from: number) => server.requests.slice(from).filter((entry) => entry.protocol === protocol);
        try {
          // 1. The first host: the model asks for the shell command; the callback defers it to the store.
          server.enqueue(protocol, { toolCalls: [call] });
          const first = startHost({ ...env, APPROVAL_PROMPT: 'Count one run, please.' });
          hosts.push(first);
          let pending: PendingApproval | undefined;
          for (let i = 0; i < 600 && !pending; i++) {
            [pending] = await approvals.listPending();
            if (!pending) await new Promise((resolve) => setTimeout(resolve, 100));
          }
          expect(pending, first.output()).toMatchObject({ tool, kind: 'execute', adapter: cli, reason: 'shell commands need a human' });
          expect(pending?.sessionId).toMatch(/^[0-9a-f-]{36}$/);

          // 2. kill -9 of the host (its whole process group) while the call is pending. The CLI runs in a process group
          //    of its own, so it outlives the host for a moment: it finds the decision socket gone (its call is refused,
          //    fail closed) and its stdin closed, and exits by itself. Nothing ran.
          process.kill(-(first.child.pid as number), 'SIGKILL');
          expect(await first.exited).toBe('SIGKILL');
          let orphans = processesIn(workspace);
          for (let i = 0; i < 300 && orphans.length > 0; i++) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            orphans = processesIn(workspace);
          }
          expect(orphans, `${cli} processes left running after the host was killed`).toEqual([]);
          expect(existsSync(counter)).toBe(false);
          expect((await approvals.listPending()).map((item) => item.id)).toEqual([pending!.id]);

          // 3. The decision, from another process.
          const decided = await runTroupe([decision, pending!.id, '--store', join(root, 'approvals.db'), '--by', 'restart-test', ...(decision === 'deny' ? ['--reason', 'no counting today'] : [])]);
          expect(decided.stderr).toBe('');
          expect(decided.code).toBe(0);
          expect(await approvals.listPending()).toEqual([]);

          // 4. A new host resumes the same session; the model asks for the same call again, then ends its turn.
          const before = server.requests.length;
          server.enqueue(protocol, { toolCalls: [call] });
          server.enqueue(protocol, { text: 'asked again' });
          for (let index = 0; index < 4; index++) server.enqueue(protocol, { text: `done ${index}` });
          const second = startHost({ ...env, APPROVAL_SESSION: pending!.sessionId!, APPROVAL_PROMPT: `Your call was decided (${decision}); ask for it again.` });
          hosts.push(second);
          expect(await second.exited, second.output()).toBe(0);

          const resumed = requestsOf(before);
          // The same CLI session: the resumed requests carry the first host's conversation.
          expect(resumed.some((entry) => JSON.stringify(entry.body).includes('Count one run, please.'))).toBe(true);
          if (decision === 'approve') {
            expect(readFileSync(counter, 'utf8')).toBe('ran\n'); // exactly once
          } else {
            expect(existsSync(counter)).toBe(false); // never
            expect(resumed.some((entry) => JSON.stringify(entry.body).includes('no counting today'))).toBe(true);
          }
          // Nothing is left pending: the re-issued call took the decision instead of asking again.
          expect(await approvals.listPending()).toEqual([]);
          const audit = await approvals.listAudit();
          expect(audit).toEqual([expect.objectContaining({ approvalId: pending!.id, behavior: decision === 'approve' ? 'allow' : 'deny', decidedBy: 'restart-test', tool, inputHash: pending!.inputHash })]);
          expect((await approvals.getDecision(pending!.id))?.consumed).toBe(true);
        } finally {
          await store.close();
        }
      },
      240_000,
    );
  }
});
