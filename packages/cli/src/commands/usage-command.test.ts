import { delimiter, dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBinDir, runCliCaptured, tempWorkspace, testEnv } from '../testing/cli-test-kit';
import type { WorkspaceUsage } from '../usage/usage-report';

const FAKE_PATH = `${fakeBinDir}${delimiter}${dirname(process.execPath)}`;
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});
function workspace(): string {
  const { dir, cleanup } = tempWorkspace();
  cleanups.push(cleanup);
  return dir;
}

describe('troupe usage', () => {
  it('prints the tokens and cost a Looper run recorded with its session, per agent, run and model, as text and JSON', async () => {
    const dir = workspace();
    // The agent CLIs are spawned with this process's environment: the fake claude first on its PATH.
    const saved = { PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES };
    process.env.PATH = `${FAKE_PATH}${delimiter}${process.env.PATH ?? ''}`;
    process.env.FAKE_CLAUDE_FILES = JSON.stringify({ 'hello.txt': 'hello\n' });
    cleanups.push(() => {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    });
    const env = testEnv({ PATH: process.env.PATH, FAKE_CLAUDE_FILES: process.env.FAKE_CLAUDE_FILES });
    const run = await runCliCaptured(['looper', '-w', dir, '--coder', 'claude', '--reviewer', 'claude', '-p', 'Write hello.txt'], { env });
    expect(run.stderr).toBe('');

    const json = await runCliCaptured(['usage', '--workspace', dir, '--json'], { env });
    expect(json.code).toBe(0);
    const usage = JSON.parse(json.stdout) as WorkspaceUsage;
    expect(usage.sessions).toHaveLength(1);
    const [session] = usage.sessions;
    // The fake claude replays a recorded Claude Code turn: 24 input + 16 output tokens, $0.000416 reported.
    expect(session).toMatchObject({ current: true, totals: { records: 2, inputTokens: 48, outputTokens: 32, totalTokens: 80, unpricedRecords: 0 } });
    expect(session?.totals.costUsd).toBeCloseTo(0.000832, 9);
    expect(Object.keys(session?.byAgent ?? {}).sort()).toEqual(['looper-coder', 'looper-review']);
    expect(Object.keys(session?.byRun.looper ?? {})).toEqual(['looper/run-1']);
    expect(Object.keys(session?.byModel ?? {})).toEqual(['claude-opus-5-5']);
    expect(usage.totals).toEqual(session?.totals);

    const text = await runCliCaptured(['usage', '-w', dir], { env });
    expect(text.code).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines[0]).toBe(`Usage in ${dir} (1 session)`);
    expect(lines[2]).toMatch(/^Session s-[a-z0-9]+-[0-9a-f]+ \(current\), started \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(text.stdout).toMatch(/^ {2}total +80 tokens \(in 48 \/ out 32\) +\$0\.0008 +2 turns\/calls$/m);
    // One set of columns for the whole report: every cost sits in the same place.
    expect(new Set(lines.filter((row) => row.includes('$')).map((row) => row.indexOf('$'))).size).toBe(1);
    expect(text.stdout).toMatch(/ {4}looper-coder +40 tokens \(in 24 \/ out 16\) +\$0\.0004 +1 turn\/call/);
    expect(text.stdout).toMatch(/ {4}looper looper\/run-1 +80 tokens/);
    expect(text.stdout).toMatch(/All sessions +80 tokens \(in 48 \/ out 32\) +\$0\.0008 +2 turns\/calls\n$/);

    // A second process of the same session adds to it.
    await runCliCaptured(['looper', '-w', dir, '--coder', 'claude', '--reviewer', 'claude', '-p', 'Write hello.txt again'], { env });
    const after = JSON.parse((await runCliCaptured(['usage', '-w', dir, '--json'], { env })).stdout) as WorkspaceUsage;
    expect(after.sessions[0]?.totals.records).toBe(4);
    expect(Object.keys(after.sessions[0]?.byRun.looper ?? {})).toHaveLength(2);
  });

  it('says so for a workspace with no session, and refuses a missing workspace or a stray argument', async () => {
    const dir = workspace();
    const empty = await runCliCaptured(['usage', '-w', dir]);
    expect(empty).toEqual({ code: 0, stdout: `No usage recorded in ${dir} yet (no troupe session has run there).\n`, stderr: '' });
    expect(JSON.parse((await runCliCaptured(['usage', '-w', dir, '--json'])).stdout)).toMatchObject({ sessions: [], totals: { records: 0 } });
    const missing = await runCliCaptured(['usage', '-w', `${dir}/nope`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('does not exist');
    expect((await runCliCaptured(['usage', 'extra', '-w', dir])).code).toBe(2);
  });
});
