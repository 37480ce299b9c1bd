import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const run = (args: string[], env: NodeJS.ProcessEnv = process.env) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main, ...args], { encoding: 'utf8', timeout: 60_000, env });

it('offline: the AI SDK model writes a file through the tool loop, streams its answer and gives a verdict', () => {
  const result = run([]);
  expect(result.status, result.stderr).toBe(0);
  const out = result.stdout;
  expect(out).toMatch(/^Offline mode: @ai-sdk\/openai against the in-repo fake OpenAI API at http:\/\/127\.0\.0\.1:\d+/);
  expect(out).toContain('model: openai.responses gpt-5.5');
  expect(out).toContain('[tool] write_file({"path":"notes.md","content":"# AI SDK model demo');
  expect(out).toContain('→ ok');
  expect(out).toContain('I created notes.md with a title and one sentence.');
  expect(out).toContain('verdict (generateObject): {"done":true,"file":"notes.md","summary":"It says the project shows an AI SDK model running in Troupe."}');
  expect(out).toMatch(/usage: \d+ input \/ \d+ output tokens over 3 model calls/);
  expect(out).toContain('notes.md in the workspace:\n# AI SDK model demo\n\nThis project shows an AI SDK model running in Troupe through fromAISdk.');
});

it('--live without an API key explains what to set', () => {
  const env = { ...process.env };
  for (const name of ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY']) delete env[name];
  const result = run(['--live'], env);
  expect(result.status).toBe(2);
  expect(result.stderr).toContain('--live needs an API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY');
});
