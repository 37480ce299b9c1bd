import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

it('offline: four attempts, the tests pick the smallest passing diff, its branch merges and the others leave nothing', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main], { encoding: 'utf8', timeout: 150_000 });
  const out = run.stdout;
  expect(run.status, `${out}\n${run.stderr}`).toBe(0);
  expect(out).toMatch(/^claude-1 +passed +1020 tokens +\$0\.0021 +1 file\(s\) \+3 -2$/m);
  expect(out).toMatch(/^claude-2 +failed /m);
  expect(out).toMatch(/^codex-1 +passed +860 tokens /m);
  expect(out).toMatch(/^gemini-1 +failed /m);
  expect(out).toMatch(/Winner: codex-1 on troupe\/bon-[a-z0-9-]+-codex-1 \(the smallest passing diff\)/);
  expect(out).toContain('   │ +export const sum = (a, b) => a + b;');
  expect(out).toMatch(/merge troupe\/bon-[a-z0-9-]+-codex-1 → review: ok \([0-9a-f]{7}\)/);
  expect(out).toContain('Branches left: main, review');
});
