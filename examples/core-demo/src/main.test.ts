import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('the README demo runs two members through the Claude adapter and prints streamed events', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.status, result.stderr).toBe(0);
  const lines = result.stdout.split('\n');
  for (const role of ['max', 'sarah']) {
    expect(lines.filter((line) => line.includes(`agent:part`) && line.includes(`${role} text-delta`))).toHaveLength(3);
    expect(lines.some((line) => line.includes(`${role} turn-end "Hello from fake-llm."`))).toBe(true);
  }
  expect(result.stdout).toContain('--append-system-prompt "You are Max, a tech lead."');
  expect(result.stdout).toContain('--append-system-prompt "You are Sarah, a business analyst."');
  expect(result.stdout).toMatch(/Done in [\d.]+s: 4 messages in channel "team"\./);
});
