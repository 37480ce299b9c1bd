import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { EventBus } from '@troupe/core';
import { runToolLoop } from '@troupe/core/model-runtime';
import { createScriptedChatModel } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { instrumentIfTracing } from './cli-tracing';

afterEach(() => trace.disable());

describe('the runner\'s tracing', () => {
  it('does nothing when no OpenTelemetry SDK is registered', async () => {
    expect(await instrumentIfTracing(new EventBus())).toBeUndefined();
  });

  it('traces the bus with the registered SDK and, when stopped, flushes the spans a batch processor still holds', async () => {
    const exporter = new InMemorySpanExporter();
    // A batch far longer than the process lives: without the flush, a short `troupe` run would export nothing.
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 600_000 })] }));
    const bus = new EventBus();
    const stop = await instrumentIfTracing(bus);
    expect(stop).toBeTypeOf('function');
    const model = createScriptedChatModel({ modelId: 'judge-model', responses: [{ text: 'ok', usage: { inputTokens: 3, outputTokens: 2 } }] });
    await runToolLoop({ model, prompt: 'hi', eventBus: bus });
    expect(exporter.getFinishedSpans()).toHaveLength(0);
    await stop?.();
    // The run's root span (`tool_loop`) ends after its model call.
    expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes['gen_ai.usage.input_tokens']])).toEqual([
      ['chat judge-model', 3],
      ['tool_loop judge-model', 3],
    ]);
  });
});
