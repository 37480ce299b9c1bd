import { getHeapStatistics } from 'node:v8';
import type { ChatModelV1Request, ChatModelV1StreamPart } from '@troupe/core';
import { createScriptedChatModel, type ScriptedChatModel } from '@troupe/core/testing';
import { AgentOrchestrator } from '@troupe/orchestrator';
import { median, type BenchKit } from './bench-kit';

/**
 * Orchestration overhead of `@troupe/orchestrator`: 1,000 sub-agents forked
 * by one main agent through a concurrency limit of 4, every model an
 * instant scripted one (one streamed answer per sub-agent). Baseline, same
 * run: a bare promise pool of 4 making the same 1,000 `doStream` calls on
 * the same kind of scripted model and reading each stream to its end.
 * Everything the orchestrator adds — records, status machine and events,
 * slots, runner, tag parsing, tool schemas, result merging — is the
 * difference. Runs alternate so machine noise hits both alike. Peak memory
 * is the highest heap use above the starting point, sampled at every agent
 * completion (after a GC when `--expose-gc` is on).
 */
const AGENTS = 1_000;
const LIMIT = 4;
const RUNS = 5;

function subModel(): ScriptedChatModel {
  return createScriptedChatModel({ responses: Array.from({ length: AGENTS }, () => ({ text: 'done' })) });
}

function heapUsed(): number {
  return getHeapStatistics().used_heap_size;
}

function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

interface Measure {
  ms: number;
  peakBytes: number;
  /** Heap still used after the run and a GC, with the results still referenced (NaN without --expose-gc). */
  retainedBytes: number;
}

function retainedSince(base: number): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return Number.NaN;
  gc();
  return Math.max(0, heapUsed() - base); // below zero is GC noise
}

async function orchestrated(): Promise<Measure> {
  const tasks = Array.from({ length: AGENTS }, (_, index) => ({ task: `task ${index}` }));
  const mainModel = createScriptedChatModel({ responses: [{ toolCalls: [{ name: 'fork_agents', input: { tasks } }] }, { text: 'merged' }] });
  const model = subModel();
  const orchestrator = new AgentOrchestrator({ model, maxConcurrency: LIMIT });
  const mainId = orchestrator.createAgent({ task: 'fan out' }, { type: 'main', systemPrompt: 'Lead.', model: mainModel, maxIterations: 3 });
  collectGarbage();
  const base = heapUsed();
  let peak = 0;
  let running = 0;
  let maxRunning = 0;
  let forkStarted = 0;
  let forkEnded = 0;
  orchestrator.onAgentStatusChanged(({ from, to }) => {
    if (to === 'running') maxRunning = Math.max(maxRunning, ++running);
    if (from === 'running') running--;
    if (to === 'completed') peak = Math.max(peak, heapUsed() - base);
  });
  orchestrator.bus.on('orchestrator:fork-started', () => void (forkStarted = performance.now()));
  orchestrator.bus.on('orchestrator:fork-completed', () => void (forkEnded = performance.now()));
  const result = await orchestrator.runAgent(mainId);
  if (result.text !== 'merged' || orchestrator.getAgentTree().counts.completed !== AGENTS + 1) throw new Error('orchestrated run did not complete every agent');
  if (maxRunning > LIMIT) throw new Error(`${maxRunning} agents ran at once; the limit is ${LIMIT}`);
  model.calls.length = 0; // the test double's own recording is not the orchestrator's memory
  mainModel.calls.length = 0;
  const retainedBytes = retainedSince(base);
  if (orchestrator.getAgentStatus(mainId) !== 'completed') throw new Error('unreachable');
  return { ms: forkEnded - forkStarted, peakBytes: peak, retainedBytes };
}

async function readToEnd(stream: ReadableStream<ChatModelV1StreamPart>): Promise<string> {
  let text = '';
  for await (const part of stream as unknown as AsyncIterable<ChatModelV1StreamPart>) if (part.type === 'text-delta') text += part.text;
  return text;
}

async function promisePool(): Promise<Measure> {
  const model = subModel();
  collectGarbage();
  const base = heapUsed();
  let peak = 0;
  const results: string[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < AGENTS) {
      const index = next++;
      const request: ChatModelV1Request = { system: 'Work.', messages: [{ role: 'user', content: `task ${index}` }] };
      const { stream } = await model.doStream(request);
      results[index] = await readToEnd(stream);
      peak = Math.max(peak, heapUsed() - base);
    }
  };
  await Promise.all(Array.from({ length: LIMIT }, worker));
  const ms = performance.now() - started;
  if (results.filter((text) => text === 'done').length !== AGENTS) throw new Error('pool run did not complete every call');
  model.calls.length = 0;
  const retainedBytes = retainedSince(base);
  if (results.length !== AGENTS) throw new Error('unreachable');
  return { ms, peakBytes: peak, retainedBytes };
}

export default async function (kit: BenchKit): Promise<void> {
  kit.note(`  ${AGENTS} sub-agents, limit ${LIMIT}, instant scripted models; ${RUNS} runs each after a warm-up, interleaved; GC ${typeof (globalThis as { gc?: unknown }).gc === 'function' ? 'on' : 'off (run node with --expose-gc for steadier memory figures)'}`);
  await orchestrated();
  await promisePool();
  const ours: Measure[] = [];
  const pool: Measure[] = [];
  for (let run = 0; run < RUNS; run++) {
    ours.push(await orchestrated());
    pool.push(await promisePool());
  }
  const oursPerAgent = median(ours.map((measure) => measure.ms)) / AGENTS;
  const poolPerAgent = median(pool.map((measure) => measure.ms)) / AGENTS;
  kit.report({
    name: 'orchestrator fork: median time per sub-agent',
    value: oursPerAgent * 1000,
    unit: 'µs',
    baselineName: 'bare promise pool (same doStream calls) per call',
    baselineValue: poolPerAgent * 1000,
  });
  kit.report({
    name: 'orchestration overhead per sub-agent (difference)',
    value: (oursPerAgent - poolPerAgent) * 1000,
    unit: 'µs',
    baselineName: 'bare promise pool per call',
    baselineValue: poolPerAgent * 1000,
    target: '≤ 500 µs',
  });
  kit.report({
    name: `orchestrator fork of ${AGENTS}: median peak heap above start`,
    value: median(ours.map((measure) => measure.peakBytes)) / 1024 / 1024,
    unit: 'MiB',
    baselineName: 'bare promise pool',
    baselineValue: median(pool.map((measure) => measure.peakBytes)) / 1024 / 1024,
  });
  if (typeof (globalThis as { gc?: unknown }).gc === 'function') {
    kit.report({
      name: 'heap kept per agent after the run (tree of 1,001 finished agents, after GC)',
      value: median(ours.map((measure) => measure.retainedBytes)) / AGENTS / 1024,
      unit: 'KiB',
      baselineName: 'bare promise pool (results array)',
      baselineValue: median(pool.map((measure) => measure.retainedBytes)) / AGENTS / 1024,
    });
  }
}
