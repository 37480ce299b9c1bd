import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { fakeAgentProcessConfig } from './index';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

it('writeFiles: writes each file in its working directory (folders made, absolute paths too) before it prints its lines', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'troupe-fake-cli-'));
  const elsewhere = mkdtempSync(join(tmpdir(), 'troupe-fake-cli-abs-'));
  dirs.push(cwd, elsewhere);
  const content = 'line one\nline "two" = 2\n';
  const config = fakeAgentProcessConfig({
    writeFiles: { 'notes/plan.md': content, [join(elsewhere, 'outside.txt')]: 'x' },
    lines: ['{"type":"result","result":"done"}'],
  });
  const run = spawnSync(config.command, config.args ?? [], { cwd, input: '', encoding: 'utf8' });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toBe('{"type":"result","result":"done"}\n');
  expect(readFileSync(join(cwd, 'notes', 'plan.md'), 'utf8')).toBe(content);
  expect(readFileSync(join(elsewhere, 'outside.txt'), 'utf8')).toBe('x');
});
