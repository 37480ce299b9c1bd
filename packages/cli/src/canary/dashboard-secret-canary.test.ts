// Secret canary, dashboard: the live event stream (SSE) a page reads during an agent turn, and the
// snapshot a page gets after it, carry no key — plain, `\u`-escaped or streamed over text deltas.
import { get, type IncomingMessage } from 'node:http';
import { EventBus, MemoryStore } from '@troupe/core';
import { serveDashboard } from '@troupe/dashboard';
import { describe, expect, it } from 'vitest';
import { canaryLeaks, openSecretCanary } from '../testing/secret-canary-test-kit';

/** Reads an SSE response as raw text until `stop()`. */
function readStream(url: string): Promise<{ text: () => string; stop: () => void }> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response: IncomingMessage) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('error', () => undefined);
      resolve({ text: () => text, stop: () => request.destroy() });
    });
    request.on('error', reject);
  });
}

async function until(probe: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('no secret reaches the dashboard', () => {
  it('the live stream during an agent turn and the snapshot after it', async () => {
    const canary = openSecretCanary();
    const bus = new EventBus();
    const dashboard = await serveDashboard({ bus, store: new MemoryStore() });
    const events = dashboard.url.replace('/?', '/events?');
    try {
      const live = await readStream(events);
      await until(() => live.text().includes('event: snapshot'));
      await canary.runTurn(bus);
      await until(() => live.text().includes('agent:turn-completed'));
      live.stop();
      const later = await readStream(events);
      await until(() => later.text().includes('event: snapshot'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      later.stop();
      expect(live.text()).toContain('agent:part');
      expect(canaryLeaks(live.text())).toEqual({});
      expect(canaryLeaks(later.text())).toEqual({});
      // Decoded too: a `\u` escape in the stream would come out whole in the page.
      const decoded = [live.text(), later.text()].flatMap((text) => text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => JSON.parse(line.slice(6)) as unknown));
      expect(decoded.length).toBeGreaterThan(2);
      expect(canaryLeaks(JSON.stringify(decoded))).toEqual({});
    } finally {
      await dashboard.close();
      canary.close();
    }
  });
});
