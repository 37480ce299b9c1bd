import { describe, expect, it } from 'vitest';
import { checkLocalHttpRequest, normalizeAllowedHosts } from '@troupe/core/util';

const port = 4123;
const request = (method: string, headers: Record<string, string>) => ({ method, headers });

describe('checkLocalHttpRequest', () => {
  it('accepts the loopback names with the server port only, and names the allowed hosts when it refuses', () => {
    for (const host of ['127.0.0.1:4123', 'localhost:4123', 'LOCALHOST:4123', '[::1]:4123']) expect(checkLocalHttpRequest(request('GET', { host }), { port }), host).toBeUndefined();
    for (const host of ['evil.example:4123', 'localhost:4124', 'localhost', '127.0.0.1', 'rebind.127.0.0.1.nip.io:4123', '']) {
      expect(checkLocalHttpRequest(request('GET', { host }), { port }), host).toMatch(/^forbidden Host .*127\.0\.0\.1:4123, localhost:4123, \[::1\]:4123/);
    }
    expect(checkLocalHttpRequest(request('GET', {}), { port })).toMatch(/no Host header/);
    expect(checkLocalHttpRequest(request('GET', { host: 'localhost' }), { port: 80 })).toBeUndefined();
    expect(checkLocalHttpRequest(request('GET', { host: `${'x'.repeat(5000)}:1` }), { port })!.length).toBeLessThan(300);
    // The address the request arrived on, with the port: a server on another address answers to its own URL.
    expect(checkLocalHttpRequest(request('GET', { host: '192.168.1.10:4123' }), { port, localAddress: '192.168.1.10' })).toBeUndefined();
    expect(checkLocalHttpRequest(request('GET', { host: '[fe80::1]:4123' }), { port, localAddress: 'fe80::1' })).toBeUndefined();
    expect(checkLocalHttpRequest(request('GET', { host: '192.168.1.10:4124' }), { port, localAddress: '192.168.1.10' })).toMatch(/forbidden Host/);
    expect(checkLocalHttpRequest(request('GET', { host: '127.0.0.1:4123' }), { port, localAddress: '::ffff:127.0.0.1' })).toBeUndefined();
  });

  it('accepts the hosts the user allows: name:port exactly, a bare name on any port', () => {
    const allowedHosts = normalizeAllowedHosts(['Dash.Example.com', 'localhost:8080']);
    expect(allowedHosts).toEqual(['dash.example.com', 'localhost:8080']);
    for (const host of ['dash.example.com', 'dash.example.com:9000', 'localhost:8080']) expect(checkLocalHttpRequest(request('GET', { host }), { port, allowedHosts }), host).toBeUndefined();
    expect(checkLocalHttpRequest(request('GET', { host: 'localhost:8081' }), { port, allowedHosts })).toMatch(/forbidden Host/);
    for (const bad of [['*'], ['http://x'], ['a/b'], [''], [3], 'localhost']) expect(() => normalizeAllowedHosts(bad), JSON.stringify(bad)).toThrow(/allowedHosts/);
  });

  it('refuses a state-changing request from a foreign Origin or a cross-site page, and lets a request without Origin through', () => {
    const host = `127.0.0.1:${port}`;
    expect(checkLocalHttpRequest(request('POST', { host }), { port })).toBeUndefined();
    expect(checkLocalHttpRequest(request('POST', { host, origin: `http://127.0.0.1:${port}`, 'sec-fetch-site': 'same-origin' }), { port })).toBeUndefined();
    expect(checkLocalHttpRequest(request('POST', { host, origin: `http://localhost:${port}` }), { port })).toBeUndefined();
    for (const origin of ['https://evil.example', `http://localhost:${port + 1}`, 'null', `http://127.0.0.1:${port}/x`, `file://127.0.0.1:${port}`]) {
      expect(checkLocalHttpRequest(request('POST', { host, origin }), { port }), origin).toMatch(/^forbidden Origin/);
    }
    for (const method of ['PUT', 'DELETE', 'patch']) expect(checkLocalHttpRequest(request(method, { host, origin: 'https://evil.example' }), { port }), method).toMatch(/Origin/);
    expect(checkLocalHttpRequest(request('POST', { host, 'sec-fetch-site': 'cross-site' }), { port })).toMatch(/cross-site/);
    expect(checkLocalHttpRequest(request('POST', { host, 'sec-fetch-site': 'same-site' }), { port })).toMatch(/same-site/);
    // Reading is not state-changing: a GET passes with any Origin unless every request is checked.
    expect(checkLocalHttpRequest(request('GET', { host, origin: 'https://evil.example' }), { port })).toBeUndefined();
    expect(checkLocalHttpRequest(request('GET', { host, origin: 'https://evil.example' }), { port, originCheck: 'all' })).toMatch(/Origin/);
    // Behind a proxy with a name of its own, the browser's Origin is that name.
    expect(checkLocalHttpRequest(request('POST', { host, origin: 'https://dash.example.com' }), { port, allowedHosts: ['dash.example.com'] })).toBeUndefined();
  });
});
