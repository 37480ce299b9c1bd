/**
 * Records `codex app-server` JSON-RPC sessions (stdin and stdout lines, the fake API's requests) against the in-repo
 * fake API, for the fixtures in `src/__fixtures__/app-server-*`. Run from the repository root:
 * `npx tsx packages/adapter-codex/scripts/record-app-server.ts NAME` (see SCENARIOS below for the names).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createFakeLlmServer, FAKE_MCP_ECHO_SERVER_PATH, type FakeScriptedResponse } from '@troupe/test-server';

const require = createRequire(import.meta.url);
const codexPackage = require.resolve('@openai/codex/package.json');
const codexBin = join(dirname(codexPackage), (JSON.parse(readFileSync(codexPackage, 'utf8')) as { bin: { codex: string } }).bin.codex);
const fixtures = fileURLToPath(new URL('../src/__fixtures__/', import.meta.url));

type Answer = (method: string, params: Record<string, unknown>) => unknown;
interface Scenario {
  replies: (workDir: string) => FakeScriptedResponse[];
  /** Instead of scripted replies: the fake's `mcp-tool` scenario calling this MCP tool. */
  mcpTool?: { name: string; arguments: Record<string, unknown> };
  extraArgs?: string[];
  answer: Answer;
  approvalPolicy?: unknown;
  sandbox?: string;
  steer?: boolean;
  prompt?: string;
}
const patch = (path: string, text: string) => `*** Begin Patch\n*** Add File: ${path}\n+${text}\n*** End Patch\n`;
const SCENARIOS: Record<string, Scenario> = {
  'app-server-approvals': {
    replies: (dir) => [
      { toolCalls: [
        { name: 'exec_command', arguments: { cmd: `printf ok > ${dir}/allowed.txt`, workdir: dir } },
        { name: 'exec_command', arguments: { cmd: `cat ${dir}/allowed.txt`, workdir: dir } },
        { name: 'apply_patch', arguments: patch(`${dir}/denied.txt`, 'no') },
        { name: 'exec_command', arguments: { cmd: `rm -rf ${dir}/nothing`, workdir: dir } },
      ] },
      { text: 'done' },
    ],
    answer: (method, params) => {
      if (method === 'item/fileChange/requestApproval') return { decision: 'decline' };
      if (String(params.command ?? '').includes('rm -rf')) return { decision: 'decline' };
      return { decision: 'accept' };
    },
    steer: true,
    sandbox: 'danger-full-access',
  },
  // Two MCP calls of one response: Codex asks for each with an `mcpServer/elicitation/request` (approval mode
  // `prompt`); the first is accepted, the second declined (and the decline steered).
  'app-server-mcp-approvals': {
    replies: () => [
      { toolCalls: [
        { name: 'echo', namespace: 'mcp__echo', arguments: { text: 'one' } },
        { name: 'echo', namespace: 'mcp__echo', arguments: { text: 'two' } },
      ] },
      { text: 'done' },
    ],
    extraArgs: ['-c', `mcp_servers.echo.command=${JSON.stringify(process.execPath)}`, '-c', `mcp_servers.echo.args=[${JSON.stringify(FAKE_MCP_ECHO_SERVER_PATH)}]`,
      '-c', 'mcp_servers.echo.required=true', '-c', 'mcp_servers.echo.default_tools_approval_mode="prompt"'],
    answer: (method, params) => {
      if (method !== 'mcpServer/elicitation/request') return { decision: 'decline' };
      const text = (params._meta as { tool_params?: { text?: string } } | undefined)?.tool_params?.text;
      return { action: text === 'one' ? 'accept' : 'decline', content: null, _meta: null };
    },
    steer: true,
    sandbox: 'danger-full-access',
  },
  'app-server-text': { replies: () => [{ text: 'Hello from the fake API.' }], answer: () => ({ decision: 'decline' }) },
  'app-server-error500': { replies: () => [{ status: 500 }, { status: 500 }], answer: () => ({ decision: 'decline' }) },
};

const name = process.argv[2] ?? 'app-server-approvals';
const scenario = SCENARIOS[name];
if (!scenario) throw new Error(`unknown scenario ${name}`);
const server = await createFakeLlmServer({ scenario: 'text' });
const temp = mkdtempSync(join(tmpdir(), 'troupe-codex-rec-'));
const workDir = join(temp, 'workspace');
mkdirSync(workDir);
mkdirSync(join(temp, 'home', '.codex'), { recursive: true });
for (const reply of scenario.replies(workDir)) server.enqueue('openai-responses', reply);
if (scenario.mcpTool) {
  server.setScenario('mcp-tool');
  server.setMcpTool(scenario.mcpTool);
}
const args = [codexBin, 'app-server', '-c', 'analytics.enabled=false', '--disable', 'plugins', '-c', 'model_provider=troupe', '-c',
  `model_providers.troupe={name="troupe",base_url="${server.url}/v1",env_key="TROUPE_CODEX_API_KEY",wire_api="responses"}`,
  '-c', 'model_providers.troupe.request_max_retries=0', '-c', 'model_providers.troupe.stream_max_retries=0', ...(scenario.extraArgs ?? [])];
const child = spawn(process.execPath, args, { cwd: workDir, env: { ...process.env, HOME: join(temp, 'home'), CODEX_HOME: join(temp, 'home', '.codex'), TMPDIR: tmpdir(), TROUPE_CODEX_API_KEY: 'sk-fake-000' }, stdio: ['pipe', 'pipe', 'pipe'] });
const started = Date.now();
const log: string[] = [];
const stdinLines: string[] = [];
const stdoutLines: string[] = [];
let stderr = '';
child.stderr.on("data", (chunk) => { stderr += chunk; if (process.env.DEBUG_REC) process.stderr.write(String(chunk)); });
const send = (value: unknown) => { const line = JSON.stringify(value); stdinLines.push(line); log.push(`> ${line}`); if (process.env.DEBUG_REC) process.stderr.write(`> ${line.slice(0, 400)}\n`); child.stdin.write(`${line}\n`); };
let nextId = 0;
const pending = new Map<number, (value: any) => void>();
const request = (method: string, params: unknown) => new Promise<any>((resolve) => { const id = nextId++; pending.set(id, resolve); send({ method, id, params }); });
let turnId: string | undefined;
let threadId: string | undefined;
const done = new Promise<void>((resolve) => { child.once('exit', () => resolve());
  createInterface({ input: child.stdout }).on('line', (line) => {
    stdoutLines.push(line);
    log.push(`< ${line}`); if (process.env.DEBUG_REC) process.stderr.write(`< ${line.slice(0, 400)}\n`);
    const msg = JSON.parse(line);
    if (msg.id !== undefined && msg.method === undefined) { pending.get(msg.id)?.(msg); pending.delete(msg.id); return; }
    if (msg.id !== undefined && msg.method) {
      const answer = scenario.answer(msg.method, msg.params);
      send({ id: msg.id, result: answer });
      const declined = (answer as { decision?: string; action?: string }).decision === 'decline' || (answer as { action?: string }).action === 'decline';
      if (scenario.steer && declined && turnId) {
        void request('turn/steer', { threadId, expectedTurnId: turnId, input: [{ type: 'text', text: `[Troupe] denied ${msg.params.itemId ?? msg.params._meta?.tool_name}: not allowed here`, text_elements: [] }] });
      }
      return;
    }
    if (msg.method === 'turn/started') turnId = msg.params.turn.id;
    if (msg.method === 'turn/completed') resolve();
  });
});
await request('initialize', { clientInfo: { name: 'troupe', title: 'Troupe', version: '0.1.0' }, capabilities: null });
send({ method: 'initialized' });
const thread = await request('thread/start', { model: 'gpt-5.5', cwd: workDir, approvalPolicy: scenario.approvalPolicy ?? 'untrusted', sandbox: scenario.sandbox ?? 'workspace-write' });
threadId = thread.result?.thread?.id;
await request('turn/start', { threadId, input: [{ type: 'text', text: scenario.prompt ?? 'Do the work.', text_elements: [] }] });
await Promise.race([done, new Promise((r) => setTimeout(r, 60_000))]);
const endAt = Date.now();
child.stdin.end();
const exit = await new Promise<unknown>((resolve) => { const t = setTimeout(() => { child.kill('SIGKILL'); resolve('killed after 10 s'); }, 10_000); child.once('exit', (code, signal) => { clearTimeout(t); resolve({ code, signal, msAfterStdinClosed: Date.now() - endAt }); }); });
const redact = (text: string) =>
  text.split(temp).join('$TMP').split(server.url).join('$URL').split(FAKE_MCP_ECHO_SERVER_PATH).join('$ECHO_MCP_SERVER').split(process.execPath).join('node');
writeFileSync(join(fixtures, `${name}.jsonrpc-in.jsonl`), redact(stdinLines.join('\n')) + '\n');
writeFileSync(join(fixtures, `${name}.jsonrpc-out.jsonl`), redact(stdoutLines.join('\n')) + '\n');
writeFileSync(join(fixtures, `${name}.requests.json`), redact(JSON.stringify(server.requests.map((r) => ({ path: r.path, status: r.status, input: (r.body as any)?.input, scripted: r.scripted })), null, 1)) + '\n');
writeFileSync(join(fixtures, `${name}.meta.json`), JSON.stringify({ codex: '0.169.0', command: ['codex', ...args.slice(1)].map(redact), exit, durationMs: endAt - started, files: existsSync(workDir) ? require('node:fs').readdirSync(workDir) : [] }, null, 1) + '\n');
process.stdout.write(redact(log.join('\n')).slice(0, 60000) + '\n--- stderr\n' + redact(stderr).slice(0, 3000) + '\n' + JSON.stringify(exit) + '\n');
await server.close();
