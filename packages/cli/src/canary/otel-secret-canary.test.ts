// Secret canary, OpenTelemetry: the spans Troupe makes from bus events (names and attributes, exported to
// third parties) carry no key, plain, `\u`-escaped (the model name, the tool name) or streamed over deltas.
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { context } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { EventBus } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { instrumentTroupe } from '@troupe/otel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryLeaks, openSecretCanary } from '../testing/secret-canary-test-kit';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => void context.setGlobalContextManager(contextManager.enable()));
afterAll(() => void context.disable());

describe('no secret reaches an OpenTelemetry span', () => {
  it('span names, attributes and events of an agent turn', async () => {
    const canary = openSecretCanary();
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    const bus = new EventBus();
    const uninstrument = instrumentTroupe(bus, { tracerProvider: provider });
    try {
      await canary.runTurn(bus);
    } finally {
      uninstrument();
      canary.close();
    }
    const spans = exporter.getFinishedSpans().map((span) => ({ name: span.name, attributes: span.attributes, events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })), status: span.status }));
    expect(spans.length).toBeGreaterThan(0);
    const exported = JSON.stringify(spans);
    expect(exported).toContain(REDACTED); // the model name (sent \u-escaped) was redacted, not dropped
    expect(canaryLeaks(exported)).toEqual({});
  });
});
