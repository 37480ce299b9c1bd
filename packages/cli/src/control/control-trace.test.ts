import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { context, type SpanContext } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { defineAgent } from '@troupe/core/agent-runtime';
import { EventBus, MessageStore } from '@troupe/core';
import { Looper } from '@troupe/looper';
import { instrumentTroupe } from '@troupe/otel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectControl } from './control-client';
import { startControlServer } from './control-server';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => void context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()));
afterAll(() => void context.disable());

describe('control socket trace context', () => {
  it('a command sent from another process carries its trace context: the run it starts is a child of the sender\'s span', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-trace-'));
    const bus = new EventBus();
    const stop = instrumentTroupe(bus, { tracerProvider: provider });
    const agent = defineAgent({ id: 'worker', description: 'answers', run: () => ({ text: 'done', data: { health: 'normal', summary: 'ok', findings: [] } }) });
    const looper = new Looper({ coder: agent, review: agent, eventBus: bus, messages: new MessageStore(bus) });
    const server = await startControlServer(join(dir, 'control.sock'), async (request) => (request.op === 'looper' ? looper.command(request.input) : null));
    const client = await connectControl(server.socketPath);
    try {
      const tracer = provider.getTracer('sender');
      let sender: SpanContext | undefined;
      await tracer.startActiveSpan('troupe looper -p start', async (span) => {
        sender = span.spanContext();
        await client.request({ op: 'looper', input: '{"type":"start","task":"Say hi"}' });
        span.end();
      });
      await looper.whenIdle();
      const run = exporter.getFinishedSpans().find((span) => span.name === 'invoke_agent looper') as ReadableSpan;
      expect(run.parentSpanContext?.spanId).toBe(sender?.spanId);
      expect(run.spanContext().traceId).toBe(sender?.traceId);
      // The whole run is in the sender's trace.
      expect(exporter.getFinishedSpans().every((span) => span.spanContext().traceId === sender?.traceId)).toBe(true);
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(expect.arrayContaining(['looper.step coder', 'looper.step review', 'looper.step judge']));
    } finally {
      client.close();
      await server.close();
      await looper.dispose();
      stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
