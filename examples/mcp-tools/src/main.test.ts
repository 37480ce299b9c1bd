import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const main = fileURLToPath(new URL('./main.ts', import.meta.url));
const run = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@troupe/source', main, ...args], { encoding: 'utf8', timeout: 60_000 });

it('offline: a filesystem MCP server’s tool runs in a tool loop and stops with it; a Troupe tool is served over MCP and called back', () => {
  const result = run([]);
  expect(result.status, result.stderr).toBe(0);
  const out = result.stdout;
  expect(out).toMatch(/server "[^"]+" \(pid \d+\) offers \d+ tools: .*read_text_file/s);
  expect(out).toContain('model: The read_text_file tool said: # Notes Ship MCP support on Friday.');
  expect(out).toContain('server stopped with the run: true');
  expect(out).toMatch(/serving project_status at http:\/\/127\.0\.0\.1:\d+\/mcp/);
  expect(out).toContain('model: The project_status tool said: {"project":"troupe","build":"green","openIssues":3,"nextRelease":"0.2.0"}');
});

it('an unknown --cli is refused', () => {
  const result = run(['--cli', 'cursor']);
  expect(result.status).toBe(2);
  expect(result.stderr).toContain('--cli must be one of claude, codex, gemini, got "cursor"');
});
