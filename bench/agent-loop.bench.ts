import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { AgentLoop } from '@troupe/core/agent-loop';
import { serializeEvent, type Action } from '@troupe/core';
import { median, type BenchKit } from './bench-kit';

/**
 * AgentLoop per-iteration overhead with trivial stages and events on, next to
 * the same four functions run by: a bare async loop, a LangGraph.js
 * `StateGraph` (4 nodes in a cycle closed by a conditional edge), and a
 * Mastra workflow (the 4 steps as a nested workflow repeated by `dountil`).
 * Each is timed between consecutive Sense calls over 1,000 iterations, in the
 * same run; figures are medians. Then the memory of 1,000 concurrent idle
 * loops, measured in a fresh child process.
 */
const ITERATIONS = 1000;
const ROUNDS = 5;
const WARM_UP_ROUNDS = 5;
const IDLE_LOOPS = 1000;

const perception = { source: 'bench', content: 'tick' };
const trivial = {
  sense: (): { source: string; content: string }[] => [perception],
  plan: (perceptions: readonly unknown[]): Action => ({ task: 'noop', toolCalls: [{ tool: 'noop', input: perceptions.length }] }),
  act: (): number => 1,
  reflect: (): undefined => undefined,
};

/** Per-iteration durations (ns) from the timestamps of consecutive Sense calls. */
function intervals(stamps: readonly bigint[]): number[] {
  const out: number[] = [];
  for (let i = 1; i < stamps.length; i++) out.push(Number((stamps[i] as bigint) - (stamps[i - 1] as bigint)));
  return out;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** The same four functions in a plain `for` loop, yielding to the event loop between iterations like `interval: 0`. */
async function bareLoop(iterations: number): Promise<number[]> {
  const stamps: bigint[] = [];
  for (let i = 0; i < iterations; i++) {
    stamps.push(process.hrtime.bigint());
    const perceptions = await trivial.sense();
    const action = await trivial.plan(perceptions);
    const outputs = await Promise.all((action.toolCalls ?? []).map(async () => trivial.act()));
    await trivial.reflect();
    if (outputs.length === 0) throw new Error('unreachable');
    await yieldToEventLoop();
  }
  return intervals(stamps);
}

/**
 * Our loop with the same four functions as stages. `count`: one `*` listener
 * counting events; `serialize`: one `*` listener that JSON-serializes every
 * event (so every phase summary is built).
 */
async function agentLoop(iterations: number, listener: 'count' | 'serialize' = 'count'): Promise<number[]> {
  const stamps: bigint[] = [];
  const loop = new AgentLoop({ id: 'bench', interval: 0 });
  let events = 0;
  let bytes = 0;
  loop.bus.on('*', (event) => {
    events++;
    if (listener === 'serialize') bytes += serializeEvent(event).length;
  });
  loop.use(
    {
      kind: 'sensor',
      name: 'bench:sense',
      sense: () => {
        stamps.push(process.hrtime.bigint());
        return trivial.sense();
      },
    },
    { kind: 'planner', name: 'bench:plan', plan: (perceptions) => trivial.plan(perceptions) },
    { kind: 'tool', name: 'noop', execute: () => trivial.act() },
    { kind: 'reflector', name: 'bench:reflect', reflect: () => trivial.reflect() },
  );
  const done = loop.bus.waitFor('loop:completed', { filter: (event) => event.payload.iteration >= iterations });
  await loop.start();
  await done;
  await loop.stop();
  if (events < iterations * 10) throw new Error(`expected events on every iteration, saw ${events}`);
  if (listener === 'serialize' && bytes === 0) throw new Error('expected serialized events');
  return intervals(stamps.slice(0, iterations));
}

async function langGraphLoop(iterations: number): Promise<number[]> {
  const { Annotation, END, START, StateGraph } = await import('@langchain/langgraph');
  const stamps: bigint[] = [];
  const State = Annotation.Root({
    count: Annotation<number>(),
    perceptions: Annotation<unknown[]>(),
    action: Annotation<Action | null>(),
    result: Annotation<number>(),
  });
  const graph = new StateGraph(State)
    .addNode('sense', async () => {
      stamps.push(process.hrtime.bigint());
      return { perceptions: await trivial.sense() };
    })
    .addNode('plan', async (state) => ({ action: await trivial.plan(state.perceptions) }))
    .addNode('act', async () => ({ result: await trivial.act() }))
    .addNode('reflect', async (state) => {
      await trivial.reflect();
      return { count: state.count + 1 };
    })
    .addEdge(START, 'sense')
    .addEdge('sense', 'plan')
    .addEdge('plan', 'act')
    .addEdge('act', 'reflect')
    .addConditionalEdges('reflect', (state) => (state.count < iterations ? 'sense' : END), ['sense', END])
    .compile();
  await graph.invoke({ count: 0, perceptions: [], action: null, result: 0 }, { recursionLimit: iterations * 4 + 10 });
  return intervals(stamps);
}

async function mastraLoop(iterations: number): Promise<number[]> {
  const { createStep, createWorkflow } = await import('@mastra/core/workflows');
  const { z } = await import('zod');
  const stamps: bigint[] = [];
  const state = z.object({ count: z.number() });
  // Mastra 0.24's generics are written against zod 3; zod 4 schemas work at runtime.
  const step = (id: string, run: (count: number) => unknown) =>
    createStep({
      id,
      inputSchema: state as never,
      outputSchema: state as never,
      execute: async ({ inputData }: { inputData: { count: number } }) => {
        await run(inputData.count);
        return { count: id === 'reflect' ? inputData.count + 1 : inputData.count };
      },
    } as never);
  const iteration = (createWorkflow({ id: 'spar-iteration', inputSchema: state, outputSchema: state } as never) as any) // eslint-disable-line @typescript-eslint/no-explicit-any
    .then(step('sense', () => (stamps.push(process.hrtime.bigint()), trivial.sense())))
    .then(step('plan', () => trivial.plan([perception])))
    .then(step('act', () => trivial.act()))
    .then(step('reflect', () => trivial.reflect()))
    .commit();
  const workflow = (createWorkflow({ id: 'spar-loop', inputSchema: state, outputSchema: state } as never) as any) // eslint-disable-line @typescript-eslint/no-explicit-any
    .dountil(iteration, async ({ inputData }: { inputData: { count: number } }) => inputData.count >= iterations)
    .commit();
  const run = await workflow.createRunAsync();
  // Mastra adds an abort listener to the run's signal per nested run; silence Node's leak warning for the bench.
  const defaultMax = EventEmitter.defaultMaxListeners;
  EventEmitter.defaultMaxListeners = 0;
  let result: { status: string };
  try {
    result = await run.start({ inputData: { count: 0 } });
  } finally {
    EventEmitter.defaultMaxListeners = defaultMax;
  }
  if (result.status !== 'success') throw new Error(`Mastra workflow ended with status ${result.status}`);
  return intervals(stamps);
}

/** Child-process mode: RSS of many idle loops against the process's own baseline. */
async function measureIdleLoops(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  const sample = () => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  };
  const loops: AgentLoop[] = [];
  for (let i = 0; i < IDLE_LOOPS; i++) {
    const loop = new AgentLoop({ id: `idle-${i}`, interval: 3600 });
    loop.use(
      { kind: 'sensor', name: 'idle:sense', sense: () => [] },
      { kind: 'planner', name: 'idle:plan', plan: (): Action | null => null },
      { kind: 'tool', name: 'noop', execute: () => 1 },
    );
    loops.push(loop);
  }
  await Promise.all(loops.map((loop) => loop.start()));
  await new Promise((resolve) => setTimeout(resolve, 50)); // every first iteration done; all wait on the 1 h interval
  await Promise.all(loops.slice(0, IDLE_LOOPS / 2).map((loop) => loop.pause()));
  sample();
  gc?.();
  sample();
  const after = process.memoryUsage();
  const waiting = loops.filter((loop) => loop.state === 'running').length;
  const paused = loops.filter((loop) => loop.state === 'paused').length;
  await Promise.all(loops.map((loop) => loop.stop()));
  process.stdout.write(
    JSON.stringify({ baselineRss: baseline.rss, peakRss, heapBefore: baseline.heapUsed, heapAfter: after.heapUsed, waiting, paused, gc: gc !== undefined }),
  );
}

function runChild(): Promise<{ baselineRss: number; peakRss: number; heapBefore: number; heapAfter: number; waiting: number; paused: number; gc: boolean }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--conditions=@troupe/source', fileURLToPath(import.meta.url)], {
      env: { ...process.env, AGENT_LOOP_BENCH_CHILD: 'idle-loops' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`idle-loop child exited with ${String(code)}`));
      try {
        resolve(JSON.parse(out));
      } catch (error) {
        reject(error);
      }
    });
  });
}

if (process.env.AGENT_LOOP_BENCH_CHILD === 'idle-loops') await measureIdleLoops();

export default async function (kit: BenchKit): Promise<void> {
  const us = (ns: number) => ns / 1000;
  const samples: Record<'bare' | 'agent' | 'serialized' | 'langgraph' | 'mastra', number[]> = { bare: [], agent: [], serialized: [], langgraph: [], mastra: [] };
  let mastraError: string | undefined;
  // Troupe and the bare loop first: LangGraph and Mastra install AsyncLocalStorage / OpenTelemetry hooks that tax
  // every promise created afterwards in the process, which would bill their cost to the loops measured after them.
  for (let warm = 0; warm < WARM_UP_ROUNDS; warm++) {
    // Warm-up: several fresh loops, as in the measured rounds, so the JIT has settled for both.
    await bareLoop(ITERATIONS);
    await agentLoop(ITERATIONS);
    await agentLoop(ITERATIONS, 'serialize');
  }
  for (let round = 0; round < ROUNDS; round++) {
    samples.bare.push(...(await bareLoop(ITERATIONS)));
    samples.agent.push(...(await agentLoop(ITERATIONS)));
    samples.serialized.push(...(await agentLoop(ITERATIONS, 'serialize')));
  }
  await langGraphLoop(50);
  for (let round = 0; round < ROUNDS; round++) samples.langgraph.push(...(await langGraphLoop(ITERATIONS)));
  try {
    await mastraLoop(20);
    for (let round = 0; round < ROUNDS; round++) samples.mastra.push(...(await mastraLoop(ITERATIONS)));
  } catch (error) {
    mastraError = (error as Error).message;
  }
  const bare = median(samples.bare);
  const agent = median(samples.agent);
  const langgraph = median(samples.langgraph);
  kit.note(`  ${ITERATIONS} iterations × ${ROUNDS} rounds each (after ${WARM_UP_ROUNDS} warm-up rounds for the two loops); trivial stages (1 perception, 1 tool call, no experience stored); medians of the time between consecutive Sense calls.`);
  kit.note('  The bare loop awaits the same four functions and yields to the event loop once per iteration (setImmediate), as AgentLoop does with interval 0.');
  kit.report({
    name: 'AgentLoop iteration (events on: 10 events/iteration, one "*" listener)',
    value: us(agent),
    unit: 'µs',
    baselineName: 'bare async loop',
    baselineValue: us(bare),
    target: '≤ 1.5× the bare loop',
  });
  kit.report({
    name: 'AgentLoop iteration, the "*" listener JSON-serializes all 10 events (phase summaries built on that read)',
    value: us(median(samples.serialized)),
    unit: 'µs',
    baselineName: 'bare async loop',
    baselineValue: us(bare),
  });
  kit.report({
    name: 'LangGraph.js iteration (4-node StateGraph cycle, conditional edge)',
    value: us(langgraph),
    unit: 'µs',
    baselineName: 'AgentLoop',
    baselineValue: us(agent),
    target: '≥ 600× (AgentLoop that much faster)',
  });
  if (mastraError === undefined) {
    kit.report({
      name: 'Mastra 0.24.9 workflow iteration (4-step workflow in dountil)',
      value: us(median(samples.mastra)),
      unit: 'µs',
      baselineName: 'AgentLoop',
      baselineValue: us(agent),
      target: '≥ 60× (AgentLoop that much faster)',
    });
    kit.note('  Mastra: the current @mastra/core (1.x) requires Node >= 22.13 and does not install on Node 20; measured with 0.24.9, the last release for Node >= 20.');
  } else {
    kit.note(`  Mastra workflow not measured: ${mastraError}`);
  }
  const idle = await runChild();
  const mb = (bytes: number) => bytes / 1024 / 1024;
  kit.report({
    name: `peak RSS with ${IDLE_LOOPS} idle loops (${idle.waiting} waiting on a 1 h interval, ${idle.paused} paused)`,
    value: mb(idle.peakRss),
    unit: 'MB',
    baselineName: 'same process before creating them',
    baselineValue: mb(idle.baselineRss),
  });
  kit.note(
    `  ≈ ${((idle.peakRss - idle.baselineRss) / 1024 / IDLE_LOOPS).toFixed(1)} KB RSS and ${((idle.heapAfter - idle.heapBefore) / 1024 / IDLE_LOOPS).toFixed(1)} KB heap per idle loop${idle.gc ? ' (after gc)' : ''}.`,
  );
}
