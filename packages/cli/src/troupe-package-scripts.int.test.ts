// The seed's spelling through the repository's package scripts: `pnpm troupe -- --workspace …` and
// `pnpm start -- --looper …` (pnpm passes the `--` on; troupe drops it, and reads relative paths from where
// the script was started).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeBinDir, tempWorkspace, testEnv } from './testing/cli-test-kit';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));
const npx = join(dirname(process.execPath), 'npx');
const PNPM = 'pnpm@10.34.9';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** Runs `pnpm --dir <repo> SCRIPT -- ARGS` from `cwd`. */
function pnpmScript(script: string, args: readonly string[], cwd: string, extra: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = testEnv({ ...extra, PATH: `${fakeBinDir}${delimiter}${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` });
  // The test runner's own script variables must not leak into the child's.
  for (const name of Object.keys(env)) if (name.startsWith('npm_') || name === 'INIT_CWD') delete env[name];
  const child = spawn(npx, ['-y', PNPM, '--silent', '--dir', repoRoot, script, '--', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('package scripts (seed 000 §8 as written, with pnpm)', () => {
  if (!existsSync(npx)) console.warn(`[troupe tests] ${npx} is missing, so the package-script tests are skipped`);

  it.skipIf(!existsSync(npx))('`pnpm troupe -- --workspace app …` and `pnpm start -- --looper …` reach the CLI; a relative workspace is read from where pnpm was started', async () => {
    const created = tempWorkspace();
    cleanups.push(created.cleanup);
    mkdirSync(join(created.dir, 'app'));
    const status = await pnpmScript('troupe', ['--workspace', 'app', '--looper', '-p', '{"type":"status"}'], created.dir);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('State: IDLE\nPending (0): none');
    expect(existsSync(join(created.dir, 'app', '.troupe', 'troupe.db'))).toBe(true);

    const run = await pnpmScript('start', ['--workspace', 'app', '--newsession', '--looper', '--auto-allow', '-p', '{"type":"start","task":"创建一个简单的 hello.txt 文件"}'], created.dir, {
      LANG: 'zh_CN.UTF-8',
      FAKE_CLAUDE_FILES: JSON.stringify({ 'hello.txt': 'hello\n' }),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('启动循环任务: 创建一个简单的 hello.txt 文件');
    expect(existsSync(join(created.dir, 'app', 'hello.txt'))).toBe(true);
  }, 120_000);
});
