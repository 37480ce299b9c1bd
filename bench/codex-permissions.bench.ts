import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createCodexAdapter, DEFAULT_CODEX_BASE_ARGS } from '@troupe/adapter-codex';
import { decideToolUse, type ToolUseRequest } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createFakeLlmServer, FAKE_MCP_ECHO_SERVER_PATH, type FakeToolCall } from '@troupe/test-server';
import { median, percentile, type BenchKit } from './bench-kit';

const CALLS = 1000;
const PER_RESPONSE = 25;

/**
 * Codex permissions: 1,000 commands, patches and MCP tool calls (a third each) asked by the real `codex app-server`
 * (0.169.0) against the fake API, each decided by an in-process `canUseTool`. The adapter speaks app-server's JSON-RPC on
 * Codex's own stdio in the host (no driver process) and times each answer (its `troupe.approval` lines): `elapsedMs`,
 * the target figure, runs from the read of the chunk completing Codex's request line to the moment the answer is handed
 * to the write on Codex's stdin (parsing and `decideToolUse` included; allowed calls, so no steer round trip to Codex);
 * `returnedMs`, beside it, to the moment that write returned (in it the kernel wakes Codex and, on a busy machine, may
 * run it before the host again: Codex's time, not Troupe's). Baseline: `decideToolUse` alone.
 */
export default async function (kit: BenchKit): Promise<void> {
  const require = createRequire(new URL('../packages/adapter-codex/package.json', import.meta.url));
  const codexPackage = require.resolve('@openai/codex/package.json');
  const codexBin = join(dirname(codexPackage), (JSON.parse(readFileSync(codexPackage, 'utf8')) as { bin: { codex: string } }).bin.codex);
  const server = await createFakeLlmServer({ scenario: 'text' });
  const temp = mkdtempSync(join(tmpdir(), 'troupe-bench-codex-perm-'));
  const workDir = join(temp, 'workspace');
  mkdirSync(workDir);
  let asked = 0;
  const elapsed: number[] = [];
  const returned: number[] = [];
  const elapsedMcp: number[] = [];
  const echoLog = join(temp, 'echo.log');
  const real = createCodexAdapter({
    command: process.execPath,
    baseArgs: [codexBin, ...DEFAULT_CODEX_BASE_ARGS],
    baseUrl: server.url,
    apiKey: 'sk-bench-0000000000000000',
    home: join(temp, 'home'),
    codexHome: join(temp, 'home', '.codex'),
    tmpDir: join(temp, 'tmp'),
    permissionMode: 'full-auto',
    requestMaxRetries: 0,
    streamMaxRetries: 0,
    permissions: { canUseTool: () => (asked++, true) },
  });
  // The client's `troupe.approval` lines carry its measurement; the parser itself ignores them.
  const adapter = {
    ...real,
    parseLine: (line: string, json: unknown, context?: Parameters<typeof real.parseLine>[2]) => {
      const value = json as { type?: string; method?: string; elapsedMs?: number; returnedMs?: number } | undefined;
      if (value?.type === 'troupe.approval' && typeof value.elapsedMs === 'number') {
        elapsed.push(value.elapsedMs);
        if (typeof value.returnedMs === 'number') returned.push(value.returnedMs);
        if (value.method === 'mcpServer/elicitation/request') elapsedMcp.push(value.elapsedMs);
      }
      return real.parseLine(line, json, context);
    },
  };
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'codex', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 600_000 });
  try {
    await manager.ensureAgentStarted('coder', 'codex', { workDir, mcpServers: { echo: { command: process.execPath, args: [FAKE_MCP_ECHO_SERVER_PATH], env: { ECHO_LOG: echoLog } } } });
    for (let response = 0; response < CALLS / PER_RESPONSE; response++) {
      const calls: FakeToolCall[] = [];
      for (let index = 0; index < PER_RESPONSE; index++) {
        const n = response * PER_RESPONSE + index;
        calls.push(
          n % 3 === 0
            ? { name: 'exec_command', arguments: { cmd: `printf ${n} > ${join(workDir, `cmd-${n}.txt`)}`, workdir: workDir } }
            : n % 3 === 1
              ? { name: 'apply_patch', arguments: `*** Begin Patch\n*** Add File: ${join(workDir, `patch-${n}.txt`)}\n+${n}\n*** End Patch\n` }
              : { name: 'echo', namespace: 'mcp__echo', arguments: { text: `mcp-${n}` } },
        );
      }
      server.enqueue('openai-responses', { toolCalls: calls });
    }
    server.enqueue('openai-responses', { text: 'done' });
    const started = Date.now();
    const result = await manager.send('coder', `Make ${CALLS} files`).result;
    const wallMs = Date.now() - started;

    const request: ToolUseRequest = { id: 'call', agent: 'coder', adapter: 'codex', tool: 'command_execution', kind: 'execute', input: { command: 'printf x > a' }, target: 'printf x > a', signal: new AbortController().signal };
    const alone: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const start = process.hrtime.bigint();
      await decideToolUse(request, { canUseTool: () => true });
      alone.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    kit.note(`codex app-server: ${result.parts.filter((part) => part.type === 'tool-call').length} calls in one turn (${CALLS / PER_RESPONSE} responses of ${PER_RESPONSE} parallel calls), ${asked} asked, ${elapsed.length} answered, ${wallMs} ms wall`);
    kit.note(`  request read → answer handed to the write: p90 ${percentile(elapsed, 90).toFixed(2)} ms, p99 ${percentile(elapsed, 99).toFixed(2)} ms, max ${Math.max(...elapsed).toFixed(2)} ms`);
    kit.note(`  request read → write returned: median ${median(returned).toFixed(2)} ms, p95 ${percentile(returned, 95).toFixed(2)} ms, p99 ${percentile(returned, 99).toFixed(2)} ms (${returned.length} answers)`);
    const mcpRan = existsSync(echoLog) ? readFileSync(echoLog, 'utf8').split('\n').filter(Boolean).length : 0;
    kit.note(`  MCP tool calls: ${elapsedMcp.length} answered, ${mcpRan} ran, p50 ${median(elapsedMcp).toFixed(2)} ms, p95 ${percentile(elapsedMcp, 95).toFixed(2)} ms`);
    kit.note(`  load average: ${loadavg().map((load) => load.toFixed(2)).join(' ')}`);
    kit.report({ name: 'codex approval, request read → answer handed to the write, median', value: median(elapsed), unit: 'ms', baselineName: 'decideToolUse alone, median', baselineValue: median(alone) });
    kit.report({ name: 'codex approval, request read → answer handed to the write, p95', value: percentile(elapsed, 95), unit: 'ms', baselineName: 'decideToolUse alone, p95', baselineValue: percentile(alone, 95), target: '≤ 2 ms' });
  } finally {
    await manager.cleanup();
    await server.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
