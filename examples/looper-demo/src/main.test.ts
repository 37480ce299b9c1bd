import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the README demo runs the Looper offline: Coder patch, failing tests, JUDGE continues, fix, tests pass, terminate', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const env: NodeJS.ProcessEnv = { ...process.env, TROUPE_DEMO_OFFLINE: '1', TROUPE_DEMO_PAUSE_MS: '50', NO_COLOR: '1' };
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'TROUPE_MODEL']) delete env[name];
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main], { encoding: 'utf8', timeout: 60_000, env });
  const workspace = /Workspace: (\S+) /.exec(result.stdout)?.[1];
  try {
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    const out = result.stdout;
    expect(out).toContain('Troupe demo — OFFLINE MODE (no agent CLI or API is called)');
    expect(out).toMatch(/\[AUTO\] Iteration 1\/4 started: Add a sum function in sum\.js/);
    expect(out).toContain("[AUTO] Coder done");
    expect(out).toMatch(/\[AUTO\] Review done: health critical, 1 finding — 1 of \d tests fail \(node --test\)\./);
    expect(out).toContain('Follow-up from iteration 1 — the review found problems to fix: 1. [critical] Failing test: returns 0 for an empty list');
    expect(out).toMatch(/\[AUTO\] Review done: health normal, 0 findings — All \d tests pass \(node --test\)\./);
    expect(out).toContain('[AUTO] Loop finished (terminated) after 2 iterations: Review passed with health normal and no messages are pending.');
    expect(out).toMatch(/Done in [\d.]+s \(exit code 0\)/);
    // The patch really landed in the copy of the sample workspace, and its tests really pass.
    expect(readFileSync(join(workspace as string, 'sum.js'), 'utf8')).toContain('numbers.reduce((total, n) => total + n, 0)');
    expect(existsSync(join(workspace as string, 'sum.test.js'))).toBe(true);
    expect(spawnSync(process.execPath, ['--test'], { cwd: workspace as string, encoding: 'utf8' }).status).toBe(0);
  } finally {
    if (workspace) rmSync(workspace, { recursive: true, force: true });
  }
}, 90_000);
