import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { decideToolUse, type ToolUseRequest } from '@troupe/core';
import { runProcess } from '@troupe/core/cli-turn';
import { claudeCodeBinary, createFakeLlmServer, type FakeToolCall } from '@troupe/test-server';
import { median, percentile, type BenchKit } from './bench-kit';

const CALLS = 1000;
const PER_TURN = 200;
/** Bursts of the scripted CLI: PER_TURN requests in one write each, BURSTS × PER_TURN decisions per turn. */
const BURSTS = 5;

const burstCli = new URL('./fixtures/burst-control-cli.mjs', import.meta.url).pathname;

/** One turn of the scripted CLI (`bursts` bursts): the elapsed_ms per decision, and the CPU time (µs) the host used. */
async function scriptedTurn(root: string, bursts: number): Promise<{ elapsed: number[]; hostCpuUs: number }> {
  const adapter = createClaudeCodeAdapter({
    command: burstCli,
    apiKey: 'sk-ant-fake-000',
    home: join(root, 'home'),
    tmpDir: join(root, 'tmp'),
    includePartialMessages: false,
    permissions: { policy: { deny: ['Bash(rm *)'], allow: ['Read'] }, canUseTool: (request) => request.kind !== 'fetch' },
  });
  const workspace = join(root, 'workspace');
  const config = await adapter.getProcessConfig({ workDir: workspace }, workspace);
  const env = { ...config.env, BURSTS: String(bursts), BURST: String(PER_TURN), BURST_WORKSPACE: workspace };
  const elapsed: number[] = [];
  const before = process.cpuUsage();
  const run = runProcess({ ...config, env }, { message: adapter.prepareMessage('go', {}), completion: { type: 'jsonl', completionTypes: ['result'] }, timeoutMs: 300_000 });
  for await (const { json } of run) {
    const line = json as { type?: string; elapsed_ms?: number } | undefined;
    if (line?.type === 'troupe_control' && typeof line.elapsed_ms === 'number') elapsed.push(line.elapsed_ms);
  }
  const outcome = await run.outcome;
  await run.exited;
  const host = process.cpuUsage(before);
  if (outcome.status !== 'completed') throw new Error(`scripted turn ${outcome.status}`);
  return { elapsed, hostCpuUs: host.user + host.system };
}

/**
 * Claude Code permissions over the control protocol, with the real CLI (2.1.330) and the fake API: 1,000 tool calls
 * (read, write, shell, 200 per model message), each decided by an in-process callback. Troupe's own time per
 * decision is the `elapsed_ms` of the host's control (the host speaks the control protocol on the CLI's own stdio, no
 * process in between): from the moment the host reads the chunk of the CLI's stdout that completes the request line
 * (when a burst of requests comes in one chunk, every one of them starts its clock then, so the time spent on the
 * requests before it counts) to the moment its answer line is handed to the write on the CLI's stdin (with the other
 * answers decided in the same tick) — the host's `decideToolUse` and any queueing behind other decisions included —
 * against `decideToolUse` called directly. The write itself is not counted: in it the kernel hands the answer to the
 * CLI and wakes it, and on a loaded machine may run the CLI before this process again; that time, the CLI's, is
 * printed beside (`returned_ms`). The
 * real CLI sends its requests mostly one per chunk (it asks as it goes); the scripted CLI
 * (bench/fixtures/burst-control-cli.mjs) sends bursts of 200 in one write, the worst case for queueing, and gives the
 * host's CPU time per decision, which the load does not change.
 */
export default async function (kit: BenchKit): Promise<void> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  const root = mkdtempSync(join(tmpdir(), 'troupe-bench-claude-perm-'));
  const workspace = join(root, 'workspace');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'notes.txt'), 'notes\n');
  let asked = 0;
  const adapter = createClaudeCodeAdapter({
    command: claudeCodeBinary(import.meta.url),
    baseUrl: server.url,
    apiKey: 'sk-ant-fake-000',
    home: join(root, 'home'),
    tmpDir: join(root, 'tmp'),
    maxRetries: 0,
    includePartialMessages: false,
    permissions: {
      policy: { deny: ['Bash(rm *)'], allow: ['Read'] },
      canUseTool: (request) => {
        asked++;
        return request.kind !== 'fetch';
      },
    },
  });
  const elapsed: number[] = [];
  /** To the moment the write returned: adds the time the kernel gives the CLI it woke (not Troupe's). */
  const returned: number[] = [];
  const realLoadBefore = loadavg();
  const started = performance.now();
  try {
    for (let turn = 0; turn * PER_TURN < CALLS; turn++) {
      const calls: FakeToolCall[] = [];
      for (let index = 0; index < PER_TURN; index++) {
        const tag = `${turn}-${index}`;
        calls.push(
          index % 3 === 0
            ? { name: 'Read', arguments: { file_path: join(workspace, 'notes.txt') } }
            : index % 3 === 1
              ? { name: 'Write', arguments: { file_path: join(workspace, `w-${tag}.txt`), content: tag } }
              : { name: 'Bash', arguments: { command: `true ${tag}` } },
        );
      }
      server.reset();
      server.enqueue('anthropic', { toolCalls: calls });
      server.enqueue('anthropic', { text: 'done' });
      const config = await adapter.getProcessConfig({ workDir: workspace }, workspace);
      const run = runProcess(config, { message: adapter.prepareMessage('go', {}), completion: { type: 'jsonl', completionTypes: ['result'] }, timeoutMs: 300_000 });
      for await (const { json } of run) {
        const line = json as { type?: string; callback_id?: string; elapsed_ms?: number; returned_ms?: number } | undefined;
        if (line?.type === 'troupe_control' && line.callback_id === 'troupe_pre_tool_use' && typeof line.elapsed_ms === 'number') {
          elapsed.push(line.elapsed_ms);
          returned.push(line.returned_ms ?? Number.NaN);
        }
      }
      const outcome = await run.outcome;
      if (outcome.status !== 'completed') throw new Error(`turn ${turn} ${outcome.status}`);
      await run.exited;
    }
  } finally {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
  const wallMs = performance.now() - started;
  const realLoadAfter = loadavg();

  // Baseline: the decision alone, in process (no CLI, no protocol).
  const direct: number[] = [];
  const signal = new AbortController().signal;
  for (let index = 0; index < CALLS; index++) {
    const request: ToolUseRequest = { id: `b${index}`, agent: 'bench', adapter: 'claude', tool: 'Write', kind: 'edit', input: { file_path: `w-${index}.txt`, content: 'x' }, target: `w-${index}.txt`, signal };
    const at = performance.now();
    await decideToolUse(request, { policy: { deny: ['Bash(rm *)'], allow: ['Read'] }, canUseTool: () => true });
    direct.push(performance.now() - at);
  }
  // The scripted CLI: bursts of PER_TURN requests, each burst in one write, no model and no tools competing for the
  // CPU; Troupe's CPU per decision is the host's CPU time over a turn of BURSTS bursts, less a turn of none (the
  // turn's start-up and its own lines).
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-bench-claude-burst-'));
  mkdirSync(join(scratch, 'workspace'));
  const scripted: number[] = [];
  const perDecisionCpu: number[] = [];
  const loadBefore = loadavg();
  try {
    await scriptedTurn(scratch, 1); // warm-up
    for (let round = 0; round < 3; round++) {
      const empty = await scriptedTurn(scratch, 0);
      const full = await scriptedTurn(scratch, BURSTS);
      if (full.elapsed.length !== BURSTS * PER_TURN) throw new Error(`scripted turn: ${full.elapsed.length} decisions traced, expected ${BURSTS * PER_TURN}`);
      scripted.push(...full.elapsed);
      perDecisionCpu.push((full.hostCpuUs - empty.hostCpuUs) / full.elapsed.length);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  const loadAfter = loadavg();

  kit.note(`  ${elapsed.length} tool calls decided through the real CLI (${asked} by the callback, the rest by the policy) in ${(wallMs / 1000).toFixed(1)} s`);
  const baseline = { baselineName: 'decideToolUse in process', unit: 'ms' };
  kit.note(`  real CLI: load average before ${realLoadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${realLoadAfter.map((v) => v.toFixed(2)).join(' ')}; p99 ${percentile(elapsed, 99).toFixed(3)} ms`);
  kit.note(`  the same, to the moment the write on the CLI's stdin returned (the kernel may run the CLI it woke first): p50 ${percentile(returned, 50).toFixed(3)} ms, p95 ${percentile(returned, 95).toFixed(3)} ms, p99 ${percentile(returned, 99).toFixed(3)} ms`);
  kit.report({ name: 'Claude Code decision, request read → answer handed to the write, p50', value: percentile(elapsed, 50), baselineValue: percentile(direct, 50), ...baseline });
  kit.report({ name: 'Claude Code decision, request read → answer handed to the write, p95', value: percentile(elapsed, 95), baselineValue: percentile(direct, 95), target: '≤ 2 ms', ...baseline });
  kit.note(`  scripted CLI: ${scripted.length} decisions in bursts of ${PER_TURN} (one write each); load average before ${loadBefore.map((v) => v.toFixed(2)).join(' ')}, after ${loadAfter.map((v) => v.toFixed(2)).join(' ')}`);
  kit.note(`  scripted CLI, request chunk read → answer handed to the write: p50 ${percentile(scripted, 50).toFixed(3)} ms, p95 ${percentile(scripted, 95).toFixed(3)} ms, p99 ${percentile(scripted, 99).toFixed(3)} ms, max ${Math.max(...scripted).toFixed(3)} ms`);
  kit.report({ name: 'Troupe CPU per decision (host, scripted CLI bursts), median of 3', value: median(perDecisionCpu), unit: 'µs', baselineName: 'decideToolUse in process, median', baselineValue: percentile(direct, 50) * 1000 });
  kit.report({ name: 'Claude Code decision, request read → answer handed to the write, max', value: Math.max(...elapsed), baselineValue: Math.max(...direct), ...baseline });
}
