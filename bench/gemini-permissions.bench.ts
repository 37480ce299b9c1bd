import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { decideToolUse, type ToolUseRequest } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createFakeLlmServer, findRealCli, type FakeToolCall } from '@troupe/test-server';
import { connectDecisionSocket, listenDecisionSocket } from '@troupe/core/util';
import { GEMINI_HOOK_SOCKET_ENV, geminiPermissionHookPath } from '../packages/adapter-gemini/src/gemini-cli-hook-process';
import { createGeminiHookHandler } from '../packages/adapter-gemini/src/gemini-cli-permissions';
import { median, percentile, type BenchKit } from './bench-kit';

const CALLS = 1000;
/** Hook processes started per variant (now, before) for the start-up comparison. */
const HOOK_RUNS = 100;
const PER_RESPONSE = 25;
/**
 * Model responses per turn: past about 30 model turns in one prompt Gemini CLI's loop detection starts asking the
 * model (which would eat the scripted replies), so the 1,000 calls are spread over several turns of one session.
 */
const RESPONSES_PER_TURN = 4;

/**
 * Gemini CLI permissions: 1,000 tool calls (shell commands and reads) asked by the real Gemini CLI (0.61.0) against the
 * fake API, each decided by an in-process `canUseTool` through Troupe's BeforeTool command hook. Troupe's own time per
 * decision is traced by the hook script: from the event read on its stdin to the answer written (the socket round
 * trip to the host and `decideToolUse` included), and the hook process's whole life (Node's start included, the cost
 * of a command hook). Baseline: `decideToolUse` alone.
 */
export default async function (kit: BenchKit): Promise<void> {
  const gemini = findRealCli('gemini');
  if ('missing' in gemini) throw new Error(gemini.missing);
  const geminiBin = gemini.command;
  const server = await createFakeLlmServer({ scenario: 'text' });
  const temp = mkdtempSync(join(tmpdir(), 'troupe-bench-gemini-perm-'));
  const workDir = join(temp, 'workspace');
  mkdirSync(workDir);
  writeFileSync(join(workDir, 'seed.txt'), 'seed\n');
  const trace = join(temp, 'hook-trace.jsonl');
  let asked = 0;
  const adapter = createGeminiCliAdapter({
    command: geminiBin,
    baseUrl: server.url,
    apiKey: 'fake-gemini-bench-key',
    home: join(temp, 'home'),
    tmpDir: join(temp, 'tmp'),
    maxAttempts: 1,
    env: { GEMINI_CLI_TROUPE_HOOK_TRACE: trace },
    permissions: { canUseTool: () => (asked++, true) },
  });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'gemini', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 1_800_000 });
  try {
    await manager.ensureAgentStarted('coder', 'gemini', { workDir });
    const turns = CALLS / PER_RESPONSE / RESPONSES_PER_TURN;
    // The calls the CLI reported (tool_use lines): each must have been asked.
    let made = 0;
    const started = Date.now();
    for (let turn = 0; turn < turns; turn++) {
      for (let response = 0; response < RESPONSES_PER_TURN; response++) {
        const calls: FakeToolCall[] = [];
        for (let index = 0; index < PER_RESPONSE; index++) {
          const n = (turn * RESPONSES_PER_TURN + response) * PER_RESPONSE + index;
          calls.push(n % 2 === 0 ? { name: 'run_shell_command', arguments: { command: `touch cmd-${n}.txt` } } : { name: 'read_file', arguments: { file_path: 'seed.txt' } });
        }
        server.enqueue('gemini', { toolCalls: calls });
      }
      server.enqueue('gemini', { text: `turn ${turn} done` });
      const before = server.requests.length;
      const result = await manager.send('coder', `Turn ${turn}: make ${(RESPONSES_PER_TURN * PER_RESPONSE) / 2} files`).result;
      const turnMade = result.parts.filter((part) => part.type === 'tool-call').length;
      made += turnMade;
      if (turnMade !== RESPONSES_PER_TURN * PER_RESPONSE) kit.note(`  turn ${turn}: ${turnMade} calls made of ${RESPONSES_PER_TURN * PER_RESPONSE}, ${server.requests.length - before} requests`);
    }
    const wallMs = Date.now() - started;

    const traced = readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { side?: string; event: string; elapsed_ms: number; uptime_ms: number; host_ms: number })
      .filter((line) => line.event === 'BeforeTool');
    const lines = traced.filter((line) => line.side === undefined);
    const host = traced.filter((line) => line.side === 'host').map((line) => line.host_ms);
    const elapsed = lines.map((line) => line.elapsed_ms);
    const uptime = lines.map((line) => line.uptime_ms);
    const request: ToolUseRequest = { id: 'call', agent: 'coder', adapter: 'gemini', tool: 'run_shell_command', kind: 'execute', input: { command: 'touch a' }, target: 'touch a', signal: new AbortController().signal };
    const alone: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const start = process.hrtime.bigint();
      await decideToolUse(request, { canUseTool: () => true });
      alone.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    // The host's side alone, without the CLI competing for the CPU: the socket round trip and the decision, as the
    // hook script sees them (one question at a time).
    const socketDir = mkdtempSync(join(tmpdir(), 'troupe-bench-gemini-socket-'));
    const handler = createGeminiHookHandler({ permissions: { canUseTool: () => true }, agent: 'bench' });
    const socket = await listenDecisionSocket(join(socketDir, 'hook.sock'), { name: 'bench socket', handler });
    const client = connectDecisionSocket(socket.path, 'bench socket');
    const roundTrips: number[] = [];
    try {
      for (let index = 0; index < CALLS; index++) {
        const at = performance.now();
        await client.request({ hook_event_name: 'BeforeTool', session_id: 's', cwd: workDir, tool_name: 'run_shell_command', tool_input: { command: `touch ${index}` } });
        roundTrips.push(performance.now() - at);
      }
    } finally {
      client.close();
      await socket.close();
      rmSync(socketDir, { recursive: true, force: true });
    }
    // The hook process itself, the script as it is and as it was (importing @troupe/core/util, simulated by preloading
    // the same module with --import), alternated in this run against a live host socket: spawn → exit, as Gemini CLI waits.
    const hookProcess = { now: [] as number[], before: [] as number[] };
    const coreUtil = fileURLToPath(new URL('../packages/core/dist/util.js', import.meta.url));
    const hostDir = mkdtempSync(join(tmpdir(), 'troupe-bench-gemini-hook-'));
    const hookHost = await listenDecisionSocket(join(hostDir, 'hook.sock'), { name: 'bench hook socket', handler });
    try {
      const event = JSON.stringify({ hook_event_name: 'BeforeTool', session_id: 's', cwd: workDir, tool_name: 'read_file', tool_input: { file_path: 'seed.txt' } });
      const runHook = (preload: string[]) =>
        new Promise<number>((resolve, reject) => {
          const at = performance.now();
          const child = spawn(process.execPath, [...preload, geminiPermissionHookPath], { env: { PATH: process.env.PATH, [GEMINI_HOOK_SOCKET_ENV]: hookHost.path }, stdio: ['pipe', 'ignore', 'ignore'] });
          child.on('error', reject);
          child.on('close', () => resolve(performance.now() - at));
          child.stdin.end(event);
        });
      const withCore = existsSync(coreUtil) ? ['--import', pathToFileURL(coreUtil).href] : undefined;
      for (let index = 0; index < HOOK_RUNS; index++) {
        hookProcess.now.push(await runHook([]));
        if (withCore) hookProcess.before.push(await runHook(withCore));
      }
    } finally {
      await hookHost.close();
      rmSync(hostDir, { recursive: true, force: true });
    }

    kit.note(`load average at the end: ${loadavg().map((load) => load.toFixed(2)).join(', ')} (${availableParallelism()} cores)`);
    kit.note(`gemini hooks: ${CALLS} calls scripted over ${turns} turns (${CALLS / PER_RESPONSE} responses of ${PER_RESPONSE} parallel calls); the CLI made ${made}, ${asked} asked (bypasses: ${Math.max(0, made - asked)}), ${lines.length} hook answers traced, ${wallMs} ms wall`);
    kit.note(`  event read → answer written: p90 ${percentile(elapsed, 90).toFixed(2)} ms, p99 ${percentile(elapsed, 99).toFixed(2)} ms, max ${Math.max(...elapsed).toFixed(2)} ms`);
    kit.note(`  whole hook process (Node start included): median ${median(uptime).toFixed(1)} ms, p95 ${percentile(uptime, 95).toFixed(1)} ms`);
    kit.report({ name: 'gemini host, request read → answer ready (Troupe alone, in the real run), p50', value: percentile(host, 50), unit: 'ms', baselineName: 'decideToolUse alone, p50', baselineValue: percentile(alone, 50) });
    kit.report({ name: 'gemini host, request read → answer ready (Troupe alone, in the real run), p95', value: percentile(host, 95), unit: 'ms', baselineName: 'decideToolUse alone, p95', baselineValue: percentile(alone, 95), target: '≤ 2 ms' });
    if (hookProcess.before.length > 0) {
      kit.report({ name: `gemini hook process, spawn → exit, now (node:net only), p50 of ${HOOK_RUNS}`, value: percentile(hookProcess.now, 50), unit: 'ms', baselineName: 'as before (with @troupe/core/util), p50', baselineValue: percentile(hookProcess.before, 50) });
      kit.report({ name: `gemini hook process, spawn → exit, now (node:net only), p95 of ${HOOK_RUNS}`, value: percentile(hookProcess.now, 95), unit: 'ms', baselineName: 'as before (with @troupe/core/util), p95', baselineValue: percentile(hookProcess.before, 95) });
    }
    kit.report({ name: 'gemini hook, event read → answer written, median', value: median(elapsed), unit: 'ms', baselineName: 'decideToolUse alone, median', baselineValue: median(alone) });
    kit.report({ name: 'gemini hook, event read → answer written, p95', value: percentile(elapsed, 95), unit: 'ms', baselineName: 'decideToolUse alone, p95', baselineValue: percentile(alone, 95), target: '≤ 2 ms' });
    kit.report({ name: 'host socket round trip + decision (no CLI), p95', value: percentile(roundTrips, 95), unit: 'ms', baselineName: 'decideToolUse alone, p95', baselineValue: percentile(alone, 95), target: '≤ 2 ms' });
  } finally {
    await manager.cleanup();
    await server.close();
    rmSync(temp, { recursive: true, force: true });
  }
}
