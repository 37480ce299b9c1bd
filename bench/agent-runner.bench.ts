import { createAnthropicModel } from '@troupe/adapter-claude/model';
import { defineTool, type ChatModel, type ChatModelV1StreamPart } from '@troupe/core';
import { createManualChatModel } from '@troupe/core/testing';
import { AgentRunner } from '@troupe/orchestrator';
import { createFakeLlmServer } from '@troupe/test-server';
import { z } from 'zod';
import { median, type BenchKit } from './bench-kit';

/**
 * Seed 004 runner: how soon a tool runs once its call is complete in the
 * streamed answer (the seed: detect the call, run it, inject the result,
 * continue), while the rest of the answer still streams.
 *
 * - Tag calls: the Anthropic model over HTTP against the in-repo fake server.
 *   The answer's second chunk closes a `<tool_call>` tag; 12 more chunks
 *   follow, 25 ms apart. Measured: from the moment the runner's stream
 *   yields the part that closes the tag to the moment the tool's `execute`
 *   starts. Baseline, same runs: from that part to the end of the stream —
 *   what a runner that waits for the whole answer before running tools pays.
 * - Native calls: an in-memory model streams a `tool-call` part, then text
 *   for 200 ms; same two figures.
 */
const RUNS = 15;
const AFTER_TAG_CHUNKS = 12;
const CHUNK_DELAY_MS = 25;
const API_KEY = 'sk-ant-bench-not-a-real-key';

interface Stamps {
  callAt: number;
  toolAt: number;
  endAt: number;
}

function probeTool(stamps: Stamps) {
  return defineTool({
    name: 'probe',
    description: 'Records when it starts',
    parameters: z.object({}),
    execute: () => {
      stamps.toolAt = performance.now();
      return 'probed';
    },
  });
}

/** The model, with the moments its stream delivered the completed call and its end stamped. */
function stamped(model: ChatModel, stamps: Stamps, isCall: (part: ChatModelV1StreamPart) => boolean): ChatModel {
  return {
    specificationVersion: 'v1',
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    doGenerate: (request) => model.doGenerate(request),
    doStream: async (request) => {
      const { stream } = await model.doStream(request);
      const stamp = new TransformStream<ChatModelV1StreamPart, ChatModelV1StreamPart>({
        transform(part, controller) {
          if (stamps.callAt === 0 && isCall(part)) stamps.callAt = performance.now();
          if (part.type === 'turn-end' && stamps.endAt === 0) stamps.endAt = performance.now();
          controller.enqueue(part);
        },
      });
      return { stream: stream.pipeThrough(stamp) };
    },
  };
}

async function tagRun(baseURL: string, enqueue: () => void): Promise<Stamps> {
  const stamps: Stamps = { callAt: 0, toolAt: 0, endAt: 0 };
  enqueue();
  const model = stamped(createAnthropicModel({ baseURL, apiKey: API_KEY, maxRetries: 0 }), stamps, (part) => part.type === 'text-delta' && part.text.includes('</tool_call>'));
  const runner = new AgentRunner({ model, tools: [probeTool(stamps)], toolCallFormat: 'tags', maxIterations: 2 });
  const result = await runner.run([{ role: 'user', content: 'probe' }]);
  if (result.text !== 'Probed.' || stamps.toolAt === 0) throw new Error(`tag run did not complete: ${JSON.stringify(result.text)}`);
  return stamps;
}

async function nativeRun(): Promise<Stamps> {
  const stamps: Stamps = { callAt: 0, toolAt: 0, endAt: 0 };
  const manual = createManualChatModel();
  const model = stamped(manual, stamps, (part) => part.type === 'tool-call');
  const runner = new AgentRunner({ model, tools: [probeTool(stamps)], maxIterations: 2 });
  const run = runner.run([{ role: 'user', content: 'probe' }]);
  const first = await manual.nextTurn();
  first.toolCall({ toolCallId: 'call_1', toolName: 'probe', input: {} });
  for (let i = 0; i < 8; i++) {
    await new Promise((resolve) => setTimeout(resolve, CHUNK_DELAY_MS));
    first.text(`explaining, part ${i}. `);
  }
  first.end('tool-calls');
  const second = await manual.nextTurn();
  second.text('Probed.');
  second.end();
  const result = await run;
  if (result.text !== 'Probed.' || stamps.toolAt === 0) throw new Error('native run did not complete');
  return stamps;
}

export default async function (kit: BenchKit): Promise<void> {
  const server = await createFakeLlmServer({ scenario: 'text' });
  try {
    const baseURL = server.url;
    const enqueue = () => {
      server.enqueue('anthropic', {
        text: ['Let me probe. ', '<tool_call>{"name": "probe", "arguments": {}}</tool_call>', ...Array.from({ length: AFTER_TAG_CHUNKS }, (_, i) => ` more text ${i}.`)],
        chunkDelayMs: CHUNK_DELAY_MS,
      });
      server.enqueue('anthropic', { text: 'Probed.' });
    };
    await tagRun(baseURL, enqueue); // warm-up
    await nativeRun();
    const tags: Stamps[] = [];
    const natives: Stamps[] = [];
    for (let i = 0; i < RUNS; i++) {
      tags.push(await tagRun(baseURL, enqueue));
      natives.push(await nativeRun());
    }
    kit.note(`  ${RUNS} runs each; tag answers stream ${AFTER_TAG_CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart after the tag (Anthropic model, fake server over HTTP); native: in-memory model, 200 ms of text after the call`);
    kit.report({
      name: 'tool start after its <tool_call> tag closed (median)',
      value: median(tags.map((s) => s.toolAt - s.callAt)),
      unit: 'ms',
      baselineName: 'tag close to end of the answer (waiting for the stream to end)',
      baselineValue: median(tags.map((s) => s.endAt - s.callAt)),
      target: '≤ 5 ms',
    });
    kit.report({
      name: 'tool start after its native tool-call part (median)',
      value: median(natives.map((s) => s.toolAt - s.callAt)),
      unit: 'ms',
      baselineName: 'tool-call part to end of the answer',
      baselineValue: median(natives.map((s) => s.endAt - s.callAt)),
      target: '≤ 5 ms',
    });
  } finally {
    await server.close();
  }
}
