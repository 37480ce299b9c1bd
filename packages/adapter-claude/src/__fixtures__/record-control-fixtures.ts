// Records the control-protocol fixtures (`control-*.{stdout,cli-stdout,stdin}.jsonl`, `.meta.json`) from the real
// Claude Code (the pinned devDependency) against the in-repo fake API, answered by the adapter's control (in this
// process), with the CLI's own stdin and stdout teed to files. Run from the repository root:
//   npx tsx --conditions=@troupe/source packages/adapter-claude/src/__fixtures__/record-control-fixtures.ts
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ToolPermissionOptions } from '@troupe/core';
import { runProcess } from '@troupe/core/cli-turn';
import { claudeCodeBinary, createFakeLlmServer, FAKE_MCP_ECHO_SERVER_PATH, type FakeToolCall } from '@troupe/test-server';
import { createClaudeCodeAdapter } from '../index';

const here = fileURLToPath(new URL('.', import.meta.url));
/** Where the recordings go (`RECORD_OUT` to record elsewhere, e.g. to compare). */
const out = process.env.RECORD_OUT ?? here;
const bin = claudeCodeBinary(import.meta.url);
const echo = FAKE_MCP_ECHO_SERVER_PATH;

async function record(name: string, calls: (ws: string) => FakeToolCall[], permissions: ToolPermissionOptions): Promise<void> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  const root = mkdtempSync(join(tmpdir(), 'troupe-rec-'));
  const ws = join(root, 'workspace');
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.txt'), 'the notes\n');
  server.enqueue('anthropic', { toolCalls: calls(ws) });
  for (let i = 0; i < 4; i++) server.enqueue('anthropic', { text: `done ${i}` });
  const adapter = createClaudeCodeAdapter({ command: bin, baseUrl: server.url, apiKey: 'sk-ant-fake-000', home: join(root, 'home'), tmpDir: join(root, 'tmp'), maxRetries: 0, includePartialMessages: false, permissions });
  const config = await adapter.getProcessConfig({ workDir: ws, mcpServers: { probe: { command: process.execPath, args: [echo] } } }, ws);
  const cliArgv = [config.command, ...(config.args ?? [])];
  const args = ['-c', 'tee "$REC_IN" | "$@" | tee "$REC_OUT"', 'sh', ...cliArgv];
  const recIn = join(root, 'in.jsonl');
  const recOut = join(root, 'out.jsonl');
  const started = Date.now();
  const run = runProcess({ ...config, command: '/bin/sh', args, env: { ...config.env, REC_IN: recIn, REC_OUT: recOut } }, { message: adapter.prepareMessage('Use the tools', {}), completion: { type: 'exit' }, timeoutMs: 90_000 });
  const outcome = await run.outcome;
  await run.exited;
  const clean = (text: string) => text.split(root).join('/tmp/fixture').split(server.url).join('http://127.0.0.1:<PORT>');
  writeFileSync(join(out, `${name}.stdout.jsonl`), clean(outcome.output));
  writeFileSync(join(out, `${name}.cli-stdout.jsonl`), clean(readFileSync(recOut, 'utf8')));
  writeFileSync(join(out, `${name}.stdin.jsonl`), clean(readFileSync(recIn, 'utf8')));
  const types = outcome.output
    .trim()
    .split('\n')
    .map((line) => {
      try {
        const json = JSON.parse(line) as { type?: string; subtype?: string; request?: { subtype?: string } };
        return [json.type, json.subtype, json.request?.subtype].filter(Boolean).join('/');
      } catch {
        return 'text';
      }
    });
  const meta = {
    label: 'claude@2.1.330 via the adapter\'s control protocol',
    scenario_name: name,
    argv: ['claude', ...cliArgv.slice(1)].map((arg) => clean(arg)).map((arg) => (arg.startsWith('--mcp-config=') ? '--mcp-config=<mcp config file>' : arg)),
    cwd: '/tmp/fixture/workspace',
    stdin: 'the host (control protocol)',
    exit_code: outcome.exitCode,
    status: outcome.status,
    wall_ms: Date.now() - started,
    stdout_types: types,
    requests: server.requests.map((request) => ({ url: request.url, status: request.status, reply: request.reply })),
    last_request_tool_results: ((server.requests.at(-1)?.body as { messages?: { content?: unknown }[] } | undefined)?.messages ?? [])
      .flatMap((message) => (Array.isArray(message.content) ? (message.content as { type?: string; tool_use_id?: string; is_error?: boolean; content?: unknown }[]) : []))
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({ tool_use_id: block.tool_use_id, is_error: block.is_error ?? false, content: clean(JSON.stringify(block.content)).slice(0, 300) })),
  };
  writeFileSync(join(out, `${name}.meta.json`), `${JSON.stringify(meta, null, 2)}\n`);
  console.log(name, outcome.status, outcome.exitCode, types.length);
  await server.close();
}

await record('control-every-kind', (ws) => [
  { name: 'Read', arguments: { file_path: join(ws, 'notes.txt') } },
  { name: 'Write', arguments: { file_path: join(ws, 'denied.txt'), content: 'no' } },
  { name: 'Write', arguments: { file_path: join(ws, 'orig.txt'), content: 'moved' } },
  { name: 'Bash', arguments: { command: 'touch ran.txt' } },
  { name: 'mcp__probe__echo', arguments: { text: 'hi' } },
  { name: 'Agent', arguments: { description: 'helper', prompt: 'Say hi', subagent_type: 'general-purpose' } },
], {
  policy: { deny: ['Write(*denied.txt)'], allow: ['Read'], reasons: { 'Write(*denied.txt)': 'denied.txt is read-only in this project' } },
  canUseTool: (request) => {
    const input = request.input as { file_path: string };
    return request.tool === 'Write' ? { behavior: 'allow', input: { ...input, file_path: input.file_path.replace('orig', 'moved') } } : true;
  },
  hooks: { postToolUse: () => {}, stop: () => {}, subagentStart: () => {}, subagentStop: () => {} },
});
await record('control-fail-closed', (ws) => [
  { name: 'Write', arguments: { file_path: join(ws, 'thrown.txt'), content: 'x' } },
  { name: 'Bash', arguments: { command: 'touch late.txt' } },
], {
  timeoutMs: 300,
  canUseTool: (request) => {
    if (request.tool === 'Write') throw new Error('policy store unreachable');
    return new Promise<boolean>(() => {});
  },
});
process.exit(0);
