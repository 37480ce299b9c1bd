// Secret canary, control socket: the bus events a runner pushes to a subscriber (`subscribe` with
// `events`, as the workspace runner does) carry no key, plain, `\u`-escaped or streamed over deltas —
// neither in the bytes on the socket nor in the events the client decodes.
import { connect } from 'node:net';
import { EventBus, type AgentStreamPart } from '@troupe/core';
import { REDACTED } from '@troupe/core/util';
import { afterEach, describe, expect, it } from 'vitest';
import { canaryLeaks, joinedText, openSecretCanary, type SecretCanary } from '../testing/secret-canary-test-kit';
import { connectControl } from '../control/control-client';
import { startControlServer, type ControlServer } from '../control/control-server';
import { controlSocketPath } from '../control/control-socket-path';

let canary: SecretCanary | undefined;
let server: ControlServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  canary?.close();
  canary = undefined;
});

describe('no secret crosses the control socket', () => {
  it('bus events pushed to a subscriber: raw bytes and decoded events', async () => {
    canary = openSecretCanary();
    const bus = new EventBus();
    const socketPath = controlSocketPath(canary.dir);
    server = await startControlServer(socketPath, async (request, connection) => {
      if (request.op === 'subscribe' && request.events === true) connection.onClose(bus.on('*', (event) => connection.push({ event: 'bus', envelope: event })));
      return { subscribed: true };
    });
    // A raw subscriber: the bytes as they cross the socket.
    let raw = '';
    const socket = connect(socketPath);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (raw += chunk));
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`${JSON.stringify({ id: 1, op: 'subscribe', events: true })}\n`);
    // A client: the events decoded (a `\u` escape on the wire would come out whole here).
    const client = await connectControl(socketPath);
    const decoded: unknown[] = [];
    client.onBusEvent((event) => decoded.push(event));
    await client.request({ op: 'subscribe', events: true });
    const { parts } = await canary.runTurn(bus);
    const deadline = Date.now() + 10_000;
    while (!raw.includes('agent:turn-completed') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    client.close();
    expect(raw).toContain('agent:turn-completed');
    expect(raw).toContain(REDACTED);
    expect(canaryLeaks(raw)).toEqual({});
    expect(decoded.length).toBeGreaterThan(5);
    expect(canaryLeaks(JSON.stringify(decoded))).toEqual({});
    // The streamed text, joined from the events the client got, as a viewer shows it.
    const streamed = decoded.flatMap((event) => {
      const envelope = (event as { envelope?: { type: string; payload: { part: AgentStreamPart } } }).envelope;
      return envelope?.type === 'agent:part' ? [envelope.payload.part] : [];
    });
    expect(joinedText(streamed)).toBe(joinedText(parts));
    expect(canaryLeaks(joinedText(streamed))).toEqual({});
    expect(joinedText(streamed)).toContain(`The token is ${REDACTED} and the password ${REDACTED}`);
  });
});
