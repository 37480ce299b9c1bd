import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAIModel } from '@troupe/adapter-codex/model';
import { defineTool } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';
import { createFakeLlmServer, type FakeLlmServer, type FakeProtocol } from '@troupe/test-server';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { median, type BenchKit } from './bench-kit';

/**
 * Tool-loop overhead per step: Troupe's `runToolLoop` beside the Vercel AI
 * SDK's `generateText` with tools, in the same run, against the same
 * zero-latency fake server (`delayMs: 0`), same wire protocol, same tool,
 * same number of steps (4 tool steps + 1 final answer). Runs alternate
 * between the two so machine noise hits both alike. A third pair runs both
 * loops over in-memory models (no HTTP) to isolate the loop itself.
 */
const STEPS = 5;
const WARMUP = 5;
const RUNS = 40;
const API_KEY = 'sk-bench-not-a-real-key';

const echoParameters = z.object({ text: z.string() });
const troupeEcho = defineTool({ name: 'echo', description: 'Echoes its input', parameters: echoParameters, execute: ({ text }) => text });
const aiEcho = tool({ description: 'Echoes its input', inputSchema: echoParameters, execute: async ({ text }) => text });

function script(server: FakeLlmServer, protocol: FakeProtocol): void {
  for (let step = 1; step < STEPS; step++) server.enqueue(protocol, { toolCalls: [{ name: 'echo', arguments: { text: `step ${step}` } }], delayMs: 0 });
  server.enqueue(protocol, { text: 'done', delayMs: 0 });
}

async function perStepMs(run: () => Promise<number>): Promise<number> {
  const start = performance.now();
  const steps = await run();
  if (steps !== STEPS) throw new Error(`expected ${STEPS} steps, got ${steps}`);
  return (performance.now() - start) / STEPS;
}

async function compare(
  kit: BenchKit,
  label: string,
  ours: () => Promise<number>,
  theirs: () => Promise<number>,
  before: () => void = () => undefined,
): Promise<void> {
  const oursMs: number[] = [];
  const theirsMs: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    before();
    const a = await perStepMs(ours);
    before();
    const b = await perStepMs(theirs);
    if (i >= WARMUP) {
      oursMs.push(a);
      theirsMs.push(b);
    }
  }
  kit.report({
    name: `${label}: runToolLoop median per step`,
    value: median(oursMs),
    unit: 'ms',
    baselineName: 'AI SDK generateText (tools, stepCountIs) median per step',
    baselineValue: median(theirsMs),
    target: '≤ 1.0× baseline',
  });
}

export default async function (kit: BenchKit): Promise<void> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  try {
    const provider = createOpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY });
    kit.note(`  ${STEPS} steps per run (4 tool calls + final text), ${RUNS} runs each after ${WARMUP} warm-up runs, interleaved`);

    for (const api of ['chat', 'responses'] as const) {
      const protocol: FakeProtocol = api === 'chat' ? 'openai-chat' : 'openai-responses';
      const ourModel = createOpenAIModel({ api, baseURL: `${server.url}/v1`, apiKey: API_KEY, model: 'gpt-5.5', maxRetries: 0 });
      const theirModel = api === 'chat' ? provider.chat('gpt-5.5') : provider.responses('gpt-5.5');
      await compare(
        kit,
        `openai ${api} over HTTP (fake server, 0 ms latency)`,
        async () => (await runToolLoop({ model: ourModel, prompt: 'echo four times', tools: [troupeEcho], maxSteps: STEPS })).steps.length,
        async () =>
          (await generateText({ model: theirModel, prompt: 'echo four times', tools: { echo: aiEcho }, stopWhen: stepCountIs(STEPS), maxRetries: 0 })).steps
            .length,
        () => {
          server.reset();
          script(server, protocol);
        },
      );
    }

    // The loop alone: in-memory models, no HTTP, no JSON on a wire.
    const toolStep = { toolCalls: [{ name: 'echo', input: { text: 'x' } }] };
    await compare(
      kit,
      'in-memory model (loop only)',
      async () => {
        const model = createScriptedChatModel({ responses: [toolStep, toolStep, toolStep, toolStep, { text: 'done' }] });
        return (await runToolLoop({ model, prompt: 'echo', tools: [troupeEcho], maxSteps: STEPS })).steps.length;
      },
      async () => {
        let call = 0;
        const model = new MockLanguageModelV3({
          doGenerate: async () => {
            call++;
            const usage = {
              inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
              outputTokens: { total: 5, text: 5, reasoning: undefined },
            };
            return call < STEPS
              ? {
                  content: [{ type: 'tool-call' as const, toolCallId: `c${call}`, toolName: 'echo', input: '{"text":"x"}' }],
                  finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
                  usage,
                  warnings: [],
                }
              : { content: [{ type: 'text' as const, text: 'done' }], finishReason: { unified: 'stop' as const, raw: 'stop' }, usage, warnings: [] };
          },
        });
        return (await generateText({ model, prompt: 'echo', tools: { echo: aiEcho }, stopWhen: stepCountIs(STEPS) })).steps.length;
      },
    );
  } finally {
    await server.close();
  }
}
