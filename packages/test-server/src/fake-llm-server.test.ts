import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeLlmServer, FAKE_TEXT, FakeLlmServerError, type FakeLlmServer } from './index';

const servers: FakeLlmServer[] = [];
async function start(options?: Parameters<typeof createFakeLlmServer>[0]): Promise<FakeLlmServer> {
  const server = await createFakeLlmServer(options);
  servers.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

function post(server: FakeLlmServer, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe('createFakeLlmServer', () => {
  it('listens on 127.0.0.1 at a random port and exposes a URL without /v1 or trailing slash', async () => {
    const server = await start();
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
    expect(server.scenario).toBe('text');
  });

  it('answers Claude Code pings (HEAD / and HEAD /api/hello) with 200', async () => {
    const server = await start();
    expect((await fetch(`${server.url}/api/hello`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${server.url}/`, { method: 'HEAD' })).status).toBe(200);
    expect(server.requests.map((recorded) => [recorded.protocol, recorded.method, recorded.path, recorded.status])).toEqual([
      ['unknown', 'HEAD', '/api/hello', 200],
      ['unknown', 'HEAD', '/', 200],
    ]);
  });

  it('answers unknown routes with a 404 naming the route', async () => {
    const server = await start();
    const response = await fetch(`${server.url}/v1/models`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('fake-llm: no route for GET /v1/models');
    expect(server.requests[0]).toMatchObject({ protocol: 'unknown', status: 404 });
  });

  it('answers WebSocket upgrade attempts with 404 so Codex falls back to HTTP', async () => {
    const server = await start();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const upgrade = request(`${server.url}/v1/responses`, { headers: { connection: 'Upgrade', upgrade: 'websocket' } });
      upgrade.on('response', (response) => {
        response.resume();
        resolve(response.statusCode);
      });
      upgrade.on('upgrade', () => resolve(101));
      upgrade.on('error', reject);
      upgrade.end();
    });
    expect(status).toBe(404);
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/responses', status: 404 });
  });

  it('rejects a body that is not JSON with the protocol error shape', async () => {
    const server = await start();
    const response = await post(server, '/v1/messages', '{not json');
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'fake-llm: the request body is not valid JSON' },
    });
    expect(server.requests[0]?.body).toBe('{not json');
  });

  it('rejects requests missing the protocol’s required field', async () => {
    const server = await start();
    const responses = await Promise.all([
      post(server, '/v1/messages', '{}'),
      post(server, '/v1/responses', '{}'),
      post(server, '/v1/chat/completions', '{}'),
      post(server, '/v1beta/models/gemini-2.5-flash:generateContent', '{}'),
    ]);
    expect(responses.map((response) => response.status)).toEqual([400, 400, 400, 400]);
  });

  it('redacts API keys in headers and query strings', async () => {
    const server = await start();
    await post(server, '/v1beta/models/m:generateContent?key=secret-query-key', JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }), {
      'x-goog-api-key': 'secret-header-key',
    });
    const recorded = server.requests[0];
    expect(recorded?.url).toBe('/v1beta/models/m:generateContent?key=%3Credacted+len%3D16%3E');
    expect(recorded?.headers['x-goog-api-key']).toBe('<redacted len=17>');
    expect(JSON.stringify(server.requests)).not.toMatch(/secret-(query|header)-key/);
  });

  it('validates scenario, codex tool, options and enqueued responses with clear errors', async () => {
    const server = await start();
    expect(() => server.setScenario('nope' as never)).toThrow(/Unknown scenario "nope"; expected one of text, tool, error401, error500, slow/);
    expect(() => server.setCodexTool('shell' as never)).toThrow(FakeLlmServerError);
    expect(() => server.enqueue('bedrock' as never, { text: 'x' })).toThrow(/unknown protocol "bedrock"/);
    expect(() => server.enqueue('anthropic', {})).toThrow(/needs "text" or "toolCalls"/);
    expect(() => server.enqueue('anthropic', { status: 99 })).toThrow(/"status" must be an integer HTTP status/);
    expect(() => server.enqueue('anthropic', { text: 'x', delayMs: -1 })).toThrow(/"delayMs" must be a finite number >= 0/);
    expect(() => server.enqueue('anthropic', { toolCalls: [{ name: '', arguments: {} }] })).toThrow(/toolCalls\[0\]\.name/);
    expect(() => server.enqueue('anthropic', { toolCalls: [{ name: 'x', arguments: 3 as never }] })).toThrow(/toolCalls\[0\]\.arguments/);
    await expect(createFakeLlmServer({ scenario: 'bad' as never })).rejects.toMatchObject({ code: 'invalid-argument' });
    await expect(createFakeLlmServer({ port: -1 })).rejects.toThrow(/port must be an integer/);
  });

  it('reset clears the requests and every queue but keeps the scenario', async () => {
    const server = await start({ scenario: 'text' });
    server.enqueue('openai-chat', { text: 'queued' });
    await post(server, '/v1/chat/completions', JSON.stringify({ model: 'm', messages: [] }));
    server.enqueue('openai-chat', { text: 'dropped' });
    server.reset();
    expect(server.requests).toHaveLength(0);
    const response = await post(server, '/v1/chat/completions', JSON.stringify({ model: 'm', messages: [] }));
    const json = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(json.choices[0]?.message.content).toBe(FAKE_TEXT);
  });

  it('close ends open streams and frees the port', async () => {
    const server = await start({ scenario: 'slow', slowChunkDelayMs: 60_000 });
    const response = await post(server, '/v1/chat/completions', JSON.stringify({ model: 'm', stream: true, messages: [] }));
    expect(response.status).toBe(200);
    const reading = response.text().then(
      () => 'ended',
      () => 'aborted',
    );
    await server.close();
    expect(['ended', 'aborted']).toContain(await reading);
    await expect(fetch(`${server.url}/`, { method: 'HEAD' })).rejects.toThrow();
    expect(() => server.enqueue('anthropic', { text: 'x' })).toThrow(/closed/);
    await server.close();
  });
});
