import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main, ...args], { encoding: 'utf8', timeout: 60_000, env });

it('offline: the main agent forks three sub-agents and the tree is printed as it changes', () => {
  const result = run([]);
  expect(result.status, result.stderr).toBe(0);
  const out = result.stdout;
  expect(out).toContain('Offline mode');
  for (const id of ['agent-2', 'agent-3', 'agent-4']) {
    expect(out).toContain(`${id}: idle → running`);
    expect(out).toContain(`${id}: running → completed`);
  }
  expect(out).toContain('agent-1: running → forking');
  expect(out).toContain('agent-1: forking → running');
  expect(out).toMatch(/├─ agent-2 \[analyst\] running — List the strengths/);
  expect(out).toMatch(/└─ agent-4 \[analyst\] completed — Suggest a first step/);
  expect(out).toContain('Summary: 3 of 3 sub-agents reported back.');
  expect(out).toMatch(/Done in [\d.]+s: 4 agents completed, 0 failed, 0 terminated\./);
});

it('--live without an API key explains what to set', () => {
  const env = { ...process.env };
  for (const name of ['ANTHROPIC_API_KEY', 'OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY']) delete env[name];
  const result = run(['--live'], env);
  expect(result.status).toBe(2);
  expect(result.stderr).toContain('--live needs an API key: set ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY');
});
