import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideToolUse, EventBus, type ToolUseRequest } from '@troupe/core';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { createFakeLlmServer, realAcpAgentLaunch, type FakeToolCall } from '@troupe/test-server';
import { createAcpAdapter } from '../packages/adapter-acp/src/index';
import { median, percentile, type BenchKit } from './bench-kit';

const CALLS = 1000;
/** Parallel calls in one model message; each turn (one agent process) gets one message. */
const PER_TURN = 100;

/**
 * ACP permissions: 1,000 tool calls (file reads and writes through the client, shell commands) made by the real
 * claude-code-acp 0.16.2 (Claude Code through the Claude Agent SDK) against the fake API, each decided by an
 * in-process `canUseTool` through the generic ACP adapter's `permissions`. The ACP client runs in the host, on the
 * agent's own stdio (a process control, no driver process). Troupe's own time per decision is traced by it
 * (`TROUPE_ACP_DRIVER_TRACE`, written by the host as each turn ends): from `readAt` of the chunk of the agent's
 * stdout that completes the request line (`session/request_permission`, `fs/read_text_file`, `fs/write_text_file`;
 * every request of a burst read in one chunk starts its clock then) to the moment the answer is handed to the write on
 * the agent's stdin — the line framing, the request's check, `decideToolUse` and, for a file access, its own read or
 * write included. The write itself is printed beside (`returned_ms`): in it the kernel wakes the agent, and on a
 * loaded machine may run the agent before the host again — the agent's time, not Troupe's. Baseline: `decideToolUse` alone. The CPU figure is the host's per traced answer
 * over whole turns (the ACP client's framing and passing on of every update, the adapter's parsing and the fake API
 * server included), not per decision alone.
 */
export default async function (kit: BenchKit): Promise<void> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  const scratch = mkdtempSync(join(tmpdir(), 'troupe-bench-acp-perm-'));
  const workDir = join(scratch, 'work');
  mkdirSync(workDir);
  const trace = join(scratch, 'answer-trace.jsonl');
  const launch = realAcpAgentLaunch('claude-code-acp', { baseUrl: server.url, scratch, from: new URL('../packages/adapter-acp/package.json', import.meta.url).href });
  // Claude Code runs read-only commands unasked unless its settings say `ask` (see the adapter's README).
  mkdirSync(join(scratch, 'home', '.claude'), { recursive: true });
  writeFileSync(join(scratch, 'home', '.claude', 'settings.json'), JSON.stringify({ permissions: { ask: ['Bash', 'Glob', 'Grep', 'Task'] } }));
  const bus = new EventBus();
  const decided = new Set<string>();
  bus.on('permission:decided', ({ payload }) => void decided.add(payload.id));
  let asked = 0;
  const adapter = createAcpAdapter({ ...launch, env: { ...launch.env, TROUPE_ACP_DRIVER_TRACE: trace }, eventBus: bus, permissions: { canUseTool: () => (asked++, true) } });
  const adapters = new AdapterRegistry();
  adapters.register({ type: 'acp', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 1_800_000 });
  const loadBefore = loadavg();
  try {
    await manager.ensureAgentStarted('coder', 'acp', { workDir });
    const reported = new Set<string>();
    const started = Date.now();
    const hostCpuBefore = process.cpuUsage();
    for (let turn = 0; turn < CALLS / PER_TURN; turn++) {
      const calls: FakeToolCall[] = [];
      for (let index = 0; index < PER_TURN; index++) {
        const n = turn * PER_TURN + index;
        if (n % 3 === 0) {
          writeFileSync(join(workDir, `r-${n}.txt`), `read ${n}\n`);
          calls.push({ id: `toolu_read_${n}`, name: 'mcp__acp__Read', arguments: { file_path: join(workDir, `r-${n}.txt`) } });
        } else if (n % 3 === 1) {
          calls.push({ id: `toolu_write_${n}`, name: 'mcp__acp__Write', arguments: { file_path: join(workDir, `w-${n}.txt`), content: `written ${n}` } });
        } else {
          calls.push({ id: `toolu_bash_${n}`, name: 'Bash', arguments: { command: `touch x-${n}.txt`, description: 'touch a file' } });
        }
      }
      server.reset();
      server.enqueue('anthropic', { toolCalls: calls });
      // Claude Code's side requests (a command's output summary) take text replies too.
      for (let index = 0; index < PER_TURN / 3 + 4; index++) server.enqueue('anthropic', { text: `turn ${turn} done` });
      const result = await manager.send('coder', `turn ${turn}`).result;
      for (const part of result.parts) if (part.type === 'tool-call') reported.add(part.toolCallId);
    }
    const wallMs = Date.now() - started;
    const hostCpu = process.cpuUsage(hostCpuBefore);
    const loadAfter = loadavg();

    const lines = readFileSync(trace, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { method: string; elapsed_ms: number; returned_ms: number });
    const elapsed = lines.map((line) => line.elapsed_ms);
    const returned = lines.map((line) => line.returned_ms);
    const byMethod = (method: string) => lines.filter((line) => line.method === method).map((line) => line.elapsed_ms);
    const request: ToolUseRequest = { id: 'call', agent: 'coder', adapter: 'acp', tool: 'Bash', kind: 'execute', input: { command: 'touch a' }, target: 'touch a', signal: new AbortController().signal };
    const alone: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const start = process.hrtime.bigint();
      await decideToolUse(request, { canUseTool: () => true });
      alone.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const bypasses = [...reported].filter((id) => !decided.has(id)).length;
    kit.note(
      `acp permissions (claude-code-acp 0.16.2): ${CALLS} calls scripted over ${CALLS / PER_TURN} turns of ${PER_TURN} parallel calls; the agent reported ${reported.size}, ${decided.size} decided (${asked} by the callback), bypasses ${bypasses}; ${lines.length} answers traced, ${wallMs} ms wall`,
    );
    kit.note(
      `  CPU per traced answer over the ${CALLS / PER_TURN} turns: host ${((hostCpu.user + hostCpu.system) / lines.length).toFixed(0)} µs (the ACP client passing on every update of the agent, the adapter's parsing and the fake API server included; no driver process any more)`,
    );
    kit.note(`  load average before ${loadBefore.map((value) => value.toFixed(2)).join(' ')}, after ${loadAfter.map((value) => value.toFixed(2)).join(' ')} (2 cores shared)`);
    for (const method of ['session/request_permission', 'fs/read_text_file', 'fs/write_text_file']) {
      const values = byMethod(method);
      if (values.length > 0) kit.note(`  ${method}: ${values.length} answers, p50 ${median(values).toFixed(2)} ms, p95 ${percentile(values, 95).toFixed(2)} ms, p99 ${percentile(values, 99).toFixed(2)} ms, max ${Math.max(...values).toFixed(2)} ms`);
    }
    kit.note(`  all answers: p99 ${percentile(elapsed, 99).toFixed(2)} ms; to the write's return (the kernel may run the agent it woke first): p50 ${median(returned).toFixed(2)} ms, p95 ${percentile(returned, 95).toFixed(2)} ms, p99 ${percentile(returned, 99).toFixed(2)} ms`);
    kit.report({ name: 'acp client (in the host), request read → answer handed to the write, median', value: median(elapsed), unit: 'ms', baselineName: 'decideToolUse alone, median', baselineValue: median(alone) });
    kit.report({ name: 'acp client (in the host), request read → answer handed to the write, p95', value: percentile(elapsed, 95), unit: 'ms', baselineName: 'decideToolUse alone, p95', baselineValue: percentile(alone, 95), target: '≤ 2 ms' });
  } finally {
    await manager.cleanup();
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
