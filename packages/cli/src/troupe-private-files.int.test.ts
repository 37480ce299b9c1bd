// The session's files are private to their owner: `.troupe/` 0700 whenever troupe opens it (an older,
// wider one is tightened), troupe.db, -wal and -shm 0600 (checked while a run holds them open).
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runTroupe, startTroupe, tempWorkspace, testEnv, type TroupeProcess } from './testing/cli-test-kit';

const cleanups: (() => void)[] = [];
const running: TroupeProcess[] = [];
afterEach(() => {
  for (const run of running.splice(0)) if (run.child.exitCode === null) run.child.kill('SIGKILL');
  for (const cleanup of cleanups.splice(0)) cleanup();
});

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe.runIf(process.platform !== 'win32')('session files are private', () => {
  it('an existing .troupe (0755) and troupe.db (0644) are tightened to 0700 and 0600 when troupe opens them', async () => {
    const workspace = tempWorkspace();
    cleanups.push(workspace.cleanup);
    const dir = join(workspace.dir, '.troupe');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    expect((await runTroupe(['looper', '-w', workspace.dir, '-p', '{"type":"status"}'])).code).toBe(0);
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'troupe.db'), 0o644);
    const status = await runTroupe(['looper', '-w', workspace.dir, '-p', '{"type":"status"}']);
    expect(status.code, status.stderr).toBe(0);
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'troupe.db'))).toBe(0o600);
  }, 60_000);

  it('troupe.db, -wal and -shm are 0600 while a run has them open', async () => {
    const gated = `const fs = require('node:fs');
require('node:test')('gated', async () => {
  fs.writeFileSync(__dirname + '/review-started', '');
  while (!fs.existsSync(__dirname + '/release')) await new Promise((resolve) => setTimeout(resolve, 50));
});
`;
    const workspace = tempWorkspace({ 'gate.test.js': gated });
    cleanups.push(workspace.cleanup);
    const run = startTroupe(['looper', '-w', workspace.dir, '--reviewer', 'tests', '--max-iterations', '1', '-p', 'Private files'], testEnv());
    running.push(run);
    const deadline = Date.now() + 60_000;
    while (!existsSync(join(workspace.dir, 'review-started'))) {
      if (Date.now() > deadline) throw new Error(`Review never started\n${run.stdout()}\n${run.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const dir = join(workspace.dir, '.troupe');
    expect(modeOf(dir)).toBe(0o700);
    expect([modeOf(join(dir, 'troupe.db')), modeOf(join(dir, 'troupe.db-wal')), modeOf(join(dir, 'troupe.db-shm'))]).toEqual([0o600, 0o600, 0o600]);
    writeFileSync(join(workspace.dir, 'release'), '');
    expect(await run.exited()).toBe(0);
  }, 90_000);
});
