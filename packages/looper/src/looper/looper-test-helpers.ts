// Test helpers for the Looper's own tests (not exported from the package).
import { AgentRegistry, defineAgent, Executor } from '@troupe/core/agent-runtime';
import { EventBus, MessageStore, type AgentOutput, type AnyTroupeEvent, type RunnableAgent } from '@troupe/core';
import { Looper } from './looper';
import type { LooperOptions } from './looper-options';
import type { ReviewReport } from './looper-review-report';

/** A Coder whose runs wait until the test releases them; records every input. */
export function gatedAgent(id: string) {
  const inputs: string[] = [];
  const waiting: Array<{ resolve: (output: AgentOutput) => void; reject: (error: unknown) => void }> = [];
  let notify: (() => void) | undefined;
  const agent = defineAgent({
    id,
    description: `${id} (gated by the test)`,
    run: (input, { signal }) =>
      new Promise<AgentOutput>((resolve, reject) => {
        inputs.push(input);
        waiting.push({ resolve, reject });
        signal.addEventListener('abort', () => reject(signal.reason));
        notify?.();
      }),
  });
  return {
    agent,
    inputs,
    /** Resolves once a run is waiting. */
    started: () =>
      new Promise<void>((resolve) => {
        if (waiting.length > 0) return resolve();
        notify = () => {
          notify = undefined;
          resolve();
        };
      }),
    release: (text: string) => waiting.shift()?.resolve({ text }),
    fail: (error: unknown) => waiting.shift()?.reject(error),
  };
}

/** A Coder that answers at once, recording inputs. */
export function instantCoder(reply: (input: string, call: number) => string = (input) => `Done: ${input.split('\n')[0]}`) {
  const inputs: string[] = [];
  const agent = defineAgent({ id: 'coder', description: 'answers at once', run: (input) => reply(input, inputs.push(input)) });
  return { agent, inputs };
}

/** A Review agent returning the given reports in turn (the last one repeats), as structured data. */
export function scriptedReviewer(...reports: ReviewReport[]) {
  const inputs: string[] = [];
  const agent = defineAgent({
    id: 'review',
    description: 'returns scripted reports',
    run: (input) => {
      inputs.push(input);
      const report = reports[Math.min(inputs.length, reports.length) - 1] as ReviewReport;
      return { text: `Health ${report.health}`, data: report };
    },
  });
  return { agent, inputs };
}

export const normal: ReviewReport = { health: 'normal', summary: 'All good.', findings: [] };
export const critical = (message = 'XSS in the login form', file = 'src/login.ts'): ReviewReport => ({
  health: 'critical',
  summary: 'A security problem.',
  findings: [{ severity: 'critical', message, file }],
});

/** A Looper wired like an app: bus, message store, registry, executor. */
export function setupLooper(options: Partial<LooperOptions> & Pick<LooperOptions, 'coder' | 'review'>) {
  const bus = new EventBus();
  const messages = new MessageStore(bus);
  const looper = new Looper({ messages, eventBus: bus, now: () => 0, ...options });
  const agents = new AgentRegistry();
  agents.register(looper);
  const executor = new Executor({ agents, messages, eventBus: bus });
  const events: AnyTroupeEvent[] = [];
  bus.on('*', (event) => {
    if (event.type.startsWith('looper:')) events.push(event);
  });
  const channel = () => messages.list('looper');
  return {
    bus,
    messages,
    looper,
    agents,
    executor,
    events,
    channel,
    autos: () => channel().filter((m) => m.content.startsWith('[AUTO]')).map((m) => m.content),
    send: (input: string) => executor.execute('looper', 'looper', input),
  };
}

export type { RunnableAgent };
