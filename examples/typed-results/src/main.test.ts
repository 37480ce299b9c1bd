import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));

it('offline: Claude Code, Codex and Gemini CLI each return the typed plan; a prose answer is a StructuredOutputError', () => {
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main], { encoding: 'utf8', timeout: 100_000 });
  const out = run.stdout;
  expect(run.status, `${out}\n${run.stderr}`).toBe(0);
  expect(out).toMatch(/^claude medium Release 2\.4 — Tag v2\.4\.0 \(ci\), Publish to npm \(release bot\); rollback: none \[1 turn\(s\)\]$/m);
  expect(out).toMatch(/^codex  medium Release 2\.4 \(codex\) — .*; rollback: none \[1 turn\(s\)\]$/m);
  expect(out).toMatch(/^gemini medium Release 2\.4 \(gemini\) — .*; rollback: npm unpublish \[1 turn\(s\)\]$/m);
  expect(out).toMatch(/A Codex turn answered in prose \(\d+ parts streamed\): StructuredOutputError \(not-json\), raw answer: "The release looks fine, ship it!"/);
});
