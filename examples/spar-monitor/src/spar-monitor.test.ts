import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runSparMonitor } from './run-spar-monitor';

describe('SPAR monitor example', () => {
  it('senses the demo activity, triages it into the report, prints every phase, then stops and cleans up', async () => {
    const lines: string[] = [];
    const result = await runSparMonitor({ durationMs: 2500, print: (line) => lines.push(line) });
    const text = lines.join('\n');
    for (const phase of ['sense', 'plan', 'act', 'reflect']) expect(text).toMatch(new RegExp(`^#\\d+\\s+${phase} `, 'm'));
    expect(text).toContain('state   stopping → stopped');
    expect(result.interrupted).toBe(false);
    expect(result.stats.state).toBe('stopped');
    expect(result.stats.completed).toBeGreaterThanOrEqual(1);
    expect(result.report).toContain('ERROR payment service failed: upstream timeout');
    expect(result.report).toMatch(/\[error\/fix p=0\.\d+/);
    expect(result.experiences).toBeGreaterThanOrEqual(1);
    expect(existsSync(result.reportFile)).toBe(false); // the temporary folder is gone
  });

  it('watches a given folder without simulated activity, and stops early on its signal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'spar-given-'));
    try {
      const controller = new AbortController();
      const lines: string[] = [];
      const run = runSparMonitor({ dir, reportFile: join(dir, '..', `${dir.split('/').at(-1)}-report.md`), durationMs: 60_000, signal: controller.signal, print: (line) => {
        lines.push(line);
        if (line.includes('plan    nothing to do')) controller.abort();
      } });
      const result = await run;
      expect(result.interrupted).toBe(true);
      expect(result.stats.state).toBe('stopped');
      expect(result.stats.completed).toBe(0);
      expect(existsSync(dir)).toBe(true); // a folder we were given is left alone
      await rm(result.reportFile, { force: true });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('the start script runs, stops on Ctrl-C (SIGINT) after finishing the iteration, and exits cleanly', async () => {
    const tsx = createRequire(import.meta.url).resolve('tsx/cli');
    const child = spawn(process.execPath, [tsx, '--conditions=@troupe/source', 'src/main.ts', '--seconds', '60'], {
      cwd: join(import.meta.dirname, '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (/#\d+\s+sense /.test(output)) resolve();
      });
      child.stderr.on('data', (chunk: Buffer) => void (output += chunk.toString()));
    });
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('interrupted: finishing the current iteration…');
    expect(output).toContain('stopped (interrupted).');
    expect(output).toMatch(/iterations: \d+/);
  });
});
