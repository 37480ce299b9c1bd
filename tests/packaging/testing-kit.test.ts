import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installTarballs, runNodeScript } from './packaging-kit';

// `@troupe/core/testing` spawns a plain-JS fake agent CLI shipped in the package (`dist/testing/bin/`). Its
// path must resolve inside the installed package under both builds: Jest users `require()` the kit.

const app = mkdtempSync(join(tmpdir(), 'troupe-testing-kit-'));
beforeAll(() => installTarballs(app, inject('packedTarballs').filter((packed) => packed.name === '@troupe/core')));
afterAll(() => rmSync(app, { recursive: true, force: true }));

/** Loads the testing kit through `load` ('require' or 'import'), runs the fake CLI through `runProcess`. */
function runFakeCli(load: 'require' | 'import') {
  return runNodeScript<{ path: string; exists: boolean; outcome: string; lines: unknown[] }>(
    app,
    `
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
const require = createRequire(process.cwd() + '/');
const testing = ${load === 'require' ? "require('@troupe/core/testing')" : "await import('@troupe/core/testing')"};
const core = ${load === 'require' ? "require('@troupe/core/cli-turn')" : "await import('@troupe/core/cli-turn')"};
const run = core.runProcess(testing.fakeAgentProcessConfig({ lines: ['{"type":"hello"}'] }), { message: 'hi', completion: { type: 'exit' } });
const lines = [];
for await (const { json } of run) lines.push(json);
const outcome = await run.outcome;
console.log(JSON.stringify({ path: testing.fakeAgentCliPath, exists: existsSync(testing.fakeAgentCliPath), outcome: outcome.status, lines }));`,
  );
}

describe.each(['require', 'import'] as const)('the fake agent CLI of @troupe/core/testing (%s)', (load) => {
  it('is a file of the installed package, and runs', () => {
    const result = runFakeCli(load);
    expect(result.path).toBe(join(app, 'node_modules', '@troupe', 'core', 'dist', 'testing', 'bin', 'fake-agent-cli.mjs'));
    expect(result.exists).toBe(true);
    expect(result).toMatchObject({ outcome: 'completed', lines: [{ type: 'hello' }] });
  });
});
