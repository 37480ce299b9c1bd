import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

it('offline: three agents in their own workspaces, each diff only its change, two merges and one structured conflict', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main, '--keep'], { encoding: 'utf8', timeout: 120_000 });
  const out = run.stdout;
  const repo = /Kept (\S+)/.exec(out)?.[1];
  try {
    expect(run.status, `${out}\n${run.stderr}`).toBe(0);
    expect(out).toContain('Offline mode');
    expect(out).toContain('── claude: completed — "Added docs/USAGE.md."');
    expect(out).toContain('   troupe/claude: docs/USAGE.md +3 -0');
    expect(out).toContain('   troupe/codex: src/greeting.ts +1 -1');
    expect(out).toContain('   troupe/gemini: src/greeting.ts +1 -1');
    expect(out).toContain("   │ +export const greeting = 'Hello from Troupe';");
    expect(out).toContain("   │ +export const greeting = 'Hi there!';");
    expect(out).toContain('Parent checkout: clean, still on main');
    expect(out).toMatch(/merge troupe\/claude → review: ok \([0-9a-f]{7}\)/);
    expect(out).toMatch(/merge troupe\/codex → review: ok \([0-9a-f]{7}\)/);
    expect(out).toContain(
      "merge troupe/gemini → review: conflict, review left as it was\n   src/greeting.ts:1\n     review:    export const greeting = 'Hello from Troupe';\n     workspace: export const greeting = 'Hi there!';",
    );
    expect(out).toContain('Branches left: main, review, troupe/claude, troupe/codex, troupe/gemini');
    // The workspaces' folders are gone from the repository it made.
    expect(repo && existsSync(repo)).toBe(true);
    expect(existsSync(`${repo}/.troupe/workspaces/claude`)).toBe(false);
  } finally {
    if (repo) rmSync(repo, { recursive: true, force: true });
  }
});
