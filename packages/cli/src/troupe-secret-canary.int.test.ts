// Secret canary through `troupe looper` (the built binary, SQLite session store): the Coder — a fake
// Claude Code, Codex or Gemini CLI speaking its recorded protocol — prints the API keys on stdout and
// stderr, 7 bytes at a time. No key may appear in the console output or in the database files
// (troupe.db, -wal and -shm, read while the run holds them open, and after).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBinDir, runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const KEYS = {
  ANTHROPIC_API_KEY: 'sk-ant-api03-CANARYanthropic0123456789abcdef',
  OPENAI_API_KEY: 'sk-proj-CANARYopenai0123456789abcdef',
  GEMINI_API_KEY: 'AIzaSyCANARYgemini0123456789abcdefghi',
  GITHUB_TOKEN: 'ghp_CANARYgithub0123456789abcdefABCDEF',
  DEPLOY_PASSWORD: 'canary-deploy-password-4471',
  CANARY_BEARER_VALUE: 'eyJcanary.0123456789.bearerpayload',
};
const canary = (name: string) => fileURLToPath(new URL(`./__fixtures__/canary/${name}.stdout.jsonl`, import.meta.url));
const protocolBin = fileURLToPath(new URL('./__fixtures__/protocol-bin', import.meta.url));
const STDERR = 'debug: ANTHROPIC_API_KEY=${env:ANTHROPIC_API_KEY} OPENAI_API_KEY=${env:OPENAI_API_KEY} GEMINI_API_KEY=${env:GEMINI_API_KEY} DEPLOY_PASSWORD=${env:DEPLOY_PASSWORD} Authorization: Bearer ${env:CANARY_BEARER_VALUE}';

/** A test that holds Review until the file `release` exists, so the database is read while the run has it open. */
const GATED_TEST = `const fs = require('node:fs');
const path = require('node:path');
require('node:test')('gated', async () => {
  fs.writeFileSync(path.join(__dirname, 'review-started'), '');
  while (!fs.existsSync(path.join(__dirname, 'release'))) await new Promise((resolve) => setTimeout(resolve, 50));
});
`;

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function leaks(text: string): Record<string, number> {
  const found: Record<string, number> = {};
  for (const [name, secret] of Object.entries(KEYS)) {
    const count = text.split(secret).length - 1;
    if (count > 0) found[name] = count;
  }
  return found;
}

function databaseLeaks(dir: string): Record<string, Record<string, number>> {
  const found: Record<string, Record<string, number>> = {};
  for (const file of ['troupe.db', 'troupe.db-wal', 'troupe.db-shm']) {
    const path = join(dir, '.troupe', file);
    if (!existsSync(path)) continue;
    const inFile = leaks(readFileSync(path, 'latin1'));
    if (Object.keys(inFile).length > 0) found[file] = inFile;
  }
  return found;
}

async function until(what: string, probe: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('troupe looper: no key in the console or the session database', () => {
  for (const coder of ['claude', 'codex', 'gemini'] as const) {
    it(`Coder ${coder}`, async () => {
      const workspace = tempWorkspace({ 'gate.test.js': GATED_TEST });
      cleanups.push(workspace.cleanup);
      const dir = workspace.dir;
      const env = testEnv({
        ...KEYS,
        PATH: `${protocolBin}${delimiter}${fakeBinDir}${delimiter}${process.env.PATH ?? ''}`,
        FAKE_CLAUDE_REPLAY: canary('claude'),
        FAKE_CLAUDE_STDERR: STDERR,
        FAKE_CODEX_REPLAY: canary('codex'),
        FAKE_CODEX_STDERR: STDERR,
        FAKE_GEMINI_REPLAY: canary('gemini'),
        FAKE_GEMINI_STDERR: STDERR,
      });
      const run = startTroupe(['looper', '-w', dir, '--coder', coder, '--reviewer', 'tests', '--judge', 'rules', '--max-iterations', '1', '-p', 'Show the keys in .env'], env);
      running.push(run);
      await run.waitFor(/\[AUTO\] Coder done \(/, 60_000);
      await until('Review to start', () => existsSync(join(dir, 'review-started')));
      // The Coder's output is in the checkpoint and the messages by now; the run holds the database open.
      expect(existsSync(join(dir, '.troupe', 'troupe.db-wal'))).toBe(true);
      expect(databaseLeaks(dir)).toEqual({});
      writeFileSync(join(dir, 'release'), '');
      expect(await run.exited()).toBe(0);

      expect(run.stdout()).toContain('[REDACTED]'); // the Coder's output was shown, keys hidden
      expect(leaks(run.stdout() + run.stderr())).toEqual({});
      expect(databaseLeaks(dir)).toEqual({});
      const status = await runTroupe(['looper', '-w', dir, '-p', '{"type":"status"}'], env);
      expect(status.code, status.stderr).toBe(0);
      expect(leaks(status.stdout + status.stderr)).toEqual({});
    }, 120_000);
  }
});
