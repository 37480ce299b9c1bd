import { EventBus, MessageStore } from '@troupe/core';
import { describe, expect, it } from 'vitest';
import { formatElapsed, LooperProgress } from './looper-progress';

const ids = { looperId: 'looper', channelId: 'looper' };

function setup(live: boolean) {
  let now = 0;
  let output = '';
  const bus = new EventBus();
  const messages = new MessageStore(bus);
  const progress = new LooperProgress(bus, { write: (text) => (output += text), live, now: () => now });
  return {
    bus,
    messages,
    progress,
    advance: (ms: number) => (now += ms),
    output: () => output,
  };
}

describe('LooperProgress', () => {
  it('plain lines (no TTY or NO_COLOR): messages with elapsed time, one line per step', () => {
    const { bus, messages, progress, advance, output } = setup(false);
    messages.append('looper', { role: 'system', content: '[AUTO] Iteration 1/5 started: task' });
    bus.emit('looper:iteration-started', { ...ids, runId: 'run-1', iteration: 1, maxIterations: 5, task: 'task' });
    advance(12_400);
    bus.emit('looper:step-completed', { ...ids, runId: 'run-1', iteration: 1, step: 'coder', status: 'SUCCESS', durationMs: 12_400, timedOut: false });
    messages.append('other', { content: 'not shown' });
    messages.append('looper', { role: 'user', speaker: 'remote', content: '{"type":"status"}' });
    advance(65_000);
    bus.emit('looper:step-completed', { ...ids, runId: 'run-1', iteration: 1, step: 'review', status: 'SUCCESS', durationMs: 1, timedOut: false });
    progress.close();
    expect(output()).toBe(
      [
        '[0:00] [AUTO] Iteration 1/5 started: task',
        '[0:12] Iteration 1/5: review step…',
        '[0:12] > (remote) {"type":"status"}',
        '[1:17] Iteration 1/5: judge step…',
        '',
      ].join('\n'),
    );
    expect(output()).not.toContain('\r');
  });

  it('live (TTY): a spinner line with iteration, step and elapsed times, redrawn in place under the messages', () => {
    const { bus, messages, progress, advance, output } = setup(true);
    bus.emit('looper:iteration-started', { ...ids, runId: 'run-1', iteration: 2, maxIterations: 5, task: 'task' });
    expect(output()).toBe('\r\x1b[2K⠋ Iteration 2/5 · coder · step 0:00 · total 0:00');
    advance(3_000);
    messages.append('looper', { role: 'system', content: '[AUTO] Coder done (3.0 s): ok' });
    expect(output()).toContain('\r\x1b[2K[AUTO] Coder done (3.0 s): ok\n\r\x1b[2K⠋ Iteration 2/5 · coder · step 0:03 · total 0:03');
    bus.emit('looper:step-completed', { ...ids, runId: 'run-1', iteration: 2, step: 'coder', status: 'SUCCESS', durationMs: 3000, timedOut: false });
    expect(output().endsWith('Iteration 2/5 · review · step 0:00 · total 0:03')).toBe(true);
    bus.emit('looper:run-finished', { ...ids, runId: 'run-1', outcome: 'terminated', reason: 'done', iterations: 2 });
    expect(output().endsWith('\r\x1b[2K')).toBe(true);
    progress.close();
  });

  it('begin() shows a run resumed from a checkpoint', () => {
    const { progress, output } = setup(true);
    progress.begin({ state: 'RUNNING', iteration: 3, maxIterations: 5, step: 'judge' });
    expect(output()).toContain('Iteration 3/5 · judge');
    progress.close();
  });

  it('formats elapsed time as m:ss', () => {
    expect([formatElapsed(0), formatElapsed(59_999), formatElapsed(61_000), formatElapsed(3_600_000)]).toEqual(['0:00', '0:59', '1:01', '60:00']);
  });
});
