import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('runs the same work in serial and concurrent mode and shows the overlap only in concurrent mode', () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main], { encoding: 'utf8', timeout: 60_000 });
  expect(result.status, result.stderr).toBe(0);
  expect(result.stderr).not.toMatch(/Warning/);
  const [serial, concurrent] = result.stdout.split(/^== /m).slice(1) as [string, string];
  expect(serial).toMatch(/^serial mode: completed in \d+ ms ==/);
  expect(concurrent).toMatch(/^concurrent mode: completed in \d+ ms ==/);
  for (const section of [serial, concurrent]) {
    expect(section).toContain('6 batches planned, 20 tests executed (1 failed), 1 empty batch skipped');
    expect(section).toMatch(/BATCH_EXECUTED {3}batch 3 \(empty: skipped\)/);
    expect(section).toMatch(/task failed {6}4-3: files\.share: expected 2xx, got 500/);
    expect(section).toMatch(/EXECUTION_COMPLETED 20 tests, 1 failed/);
    expect(section.match(/^ {2}batch \d/gm)).toHaveLength(6);
  }
  // Serial: every BATCH_PLANNED comes before the first BATCH_EXECUTED, and the roles never overlap.
  expect(serial.lastIndexOf('BATCH_PLANNED')).toBeLessThan(serial.indexOf('BATCH_EXECUTED'));
  expect(serial).toContain('planner and executor overlapped for 0 ms');
  expect(serial).not.toMatch(/^ {2}overlap {2}\|.*\^/m);
  // Concurrent: batch 0 is executed before the last batch is planned, and the timeline marks the overlap.
  expect(concurrent.indexOf('BATCH_EXECUTED   batch 0')).toBeLessThan(concurrent.indexOf('BATCH_PLANNED    batch 5'));
  expect(concurrent).toMatch(/planner and executor overlapped for [1-9]\d* ms/);
  expect(concurrent).toMatch(/^ {2}overlap {2}\|.*\^/m);
});
