import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { FAKE_MCP_TOOL, FAKE_SLOW_CHUNK_DELAY_MS } from './fake-llm-constants';
import { FakeLlmServerError } from './fake-llm-error';
import { readBodyText, redactHeaders, redactUrl, sendJson, type FakeExchange } from './fake-http';
import {
  FAKE_PROTOCOLS,
  FAKE_SCENARIOS,
  type FakeCodexTool,
  type FakeLlmServer,
  type FakeLlmServerOptions,
  type FakeMcpTool,
  type FakeProtocol,
  type FakeScenario,
  type FakeScriptedResponse,
  type RecordedRequest,
} from './fake-llm-types';
import { planObjectReply, planScenarioReply, planScriptedReply, type ReplyPlan } from './fake-reply-plan';
import { anthropicErrorBody, handleAnthropicCountTokens, handleAnthropicMessages } from './protocols/anthropic-messages';
import { geminiErrorBody, handleGeminiCountTokens, handleGeminiGenerate } from './protocols/gemini-generate-content';
import { handleOpenAiChat } from './protocols/openai-chat';
import { openAiErrorBody } from './protocols/openai-errors';
import { handleOpenAiResponses } from './protocols/openai-responses';

/** `/v1beta/models/gemini-2.5-flash:streamGenerateContent` → model and method. */
const GEMINI_PATH = /^\/(?:v1beta|v1|v1alpha)\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens)$/;

const CODEX_TOOLS: readonly FakeCodexTool[] = ['apply_patch', 'exec_command'];

interface Route {
  protocol: FakeProtocol | 'unknown';
  handle: (exchange: FakeExchange) => Promise<void> | void;
}

function route(method: string, path: string): Route | undefined {
  // Claude Code pings `HEAD /api/hello` (and `HEAD /`) when nonessential traffic is allowed.
  if ((method === 'HEAD' || method === 'GET') && (path === '/' || path === '/api/hello')) {
    return { protocol: 'unknown', handle: (exchange) => sendJson(exchange, 200, { ok: true }) };
  }
  if (method !== 'POST') return undefined;
  if (path === '/v1/messages') return { protocol: 'anthropic', handle: handleAnthropicMessages };
  if (path === '/v1/messages/count_tokens') return { protocol: 'anthropic', handle: handleAnthropicCountTokens };
  if (path === '/v1/responses') return { protocol: 'openai-responses', handle: handleOpenAiResponses };
  if (path === '/v1/chat/completions') return { protocol: 'openai-chat', handle: handleOpenAiChat };
  const gemini = GEMINI_PATH.exec(path);
  if (gemini) {
    const model = decodeURIComponent(gemini[1] ?? '');
    const method = gemini[2];
    return {
      protocol: 'gemini',
      handle: (exchange) =>
        method === 'countTokens' ? handleGeminiCountTokens(exchange) : handleGeminiGenerate(exchange, model, method === 'streamGenerateContent'),
    };
  }
  return undefined;
}

function errorBodyFor(protocol: FakeProtocol | 'unknown', status: number, message: string): unknown {
  if (protocol === 'anthropic') return anthropicErrorBody(status, message);
  if (protocol === 'gemini') return geminiErrorBody(status, message);
  return openAiErrorBody(status, message);
}

function assertScenario(scenario: unknown): asserts scenario is FakeScenario {
  if (!FAKE_SCENARIOS.includes(scenario as FakeScenario)) {
    throw new FakeLlmServerError('invalid-argument', `Unknown scenario ${JSON.stringify(scenario)}; expected one of ${FAKE_SCENARIOS.join(', ')}`);
  }
}

function checkMcpTool(tool: unknown): FakeMcpTool {
  const candidate = tool as FakeMcpTool | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.name !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(candidate.name)) {
    throw new FakeLlmServerError('invalid-argument', `mcpTool must be { name, arguments? } with a tool name of 1-64 letters, digits, "_" or "-", got ${JSON.stringify(tool)}`);
  }
  const args: unknown = candidate.arguments;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new FakeLlmServerError('invalid-argument', 'mcpTool.arguments must be an object');
  }
  return { name: candidate.name, arguments: { ...(args as Record<string, unknown> | undefined) } };
}

function assertCodexTool(tool: unknown): asserts tool is FakeCodexTool {
  if (!CODEX_TOOLS.includes(tool as FakeCodexTool)) {
    throw new FakeLlmServerError('invalid-argument', `Unknown codexTool ${JSON.stringify(tool)}; expected one of ${CODEX_TOOLS.join(', ')}`);
  }
}

/**
 * Starts the fake LLM API server on 127.0.0.1. It speaks the Anthropic
 * Messages, OpenAI Responses, OpenAI Chat Completions and Gemini
 * generateContent wire protocols (SSE included) well enough for the real
 * Claude Code, Codex and Gemini CLIs and for the official SDKs.
 *
 * @example
 * ```ts
 * import Anthropic from '@anthropic-ai/sdk';
 * import { createFakeLlmServer, FAKE_TEXT } from '@troupe/test-server';
 *
 * const server = await createFakeLlmServer({ scenario: 'text' });
 * const client = new Anthropic({ baseURL: server.url, apiKey: 'sk-ant-fake' });
 * const message = await client.messages.create({ model: 'claude-fake', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }] });
 * // message.content[0].text === FAKE_TEXT
 * server.enqueue('anthropic', { status: 429, headers: { 'retry-after': '0' } });
 * await server.close();
 * ```
 */
export async function createFakeLlmServer(options: FakeLlmServerOptions = {}): Promise<FakeLlmServer> {
  let scenario: FakeScenario = options.scenario ?? 'text';
  assertScenario(scenario);
  let codexTool: FakeCodexTool = options.codexTool ?? 'apply_patch';
  assertCodexTool(codexTool);
  let mcpTool = checkMcpTool(options.mcpTool ?? FAKE_MCP_TOOL);
  const slowChunkDelayMs = options.slowChunkDelayMs ?? FAKE_SLOW_CHUNK_DELAY_MS;
  if (!Number.isFinite(slowChunkDelayMs) || slowChunkDelayMs < 0) {
    throw new FakeLlmServerError('invalid-argument', `slowChunkDelayMs must be a finite number >= 0, got ${String(options.slowChunkDelayMs)}`);
  }
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new FakeLlmServerError('invalid-argument', `port must be an integer 0-65535, got ${String(options.port)}`);
  }

  const requests: RecordedRequest[] = [];
  const queues = new Map<FakeProtocol, ReplyPlan[]>(FAKE_PROTOCOLS.map((protocol) => [protocol, []]));
  const counters = new Map<string, number>();
  const lifetime = new AbortController();
  const upgradeSockets = new Set<Socket>();
  let closed = false;

  const nextId = (prefix: string): string => {
    const value = (counters.get(prefix) ?? 0) + 1;
    counters.set(prefix, value);
    return `${prefix}${value}`;
  };

  const handleRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const matched = route(method, url.pathname);
    const bodyText = await readBodyText(req);
    let body: unknown;
    let bodyIsJson = true;
    if (bodyText.trim() !== '') {
      try {
        body = JSON.parse(bodyText);
      } catch {
        body = bodyText;
        bodyIsJson = false;
      }
    }
    const record: RecordedRequest = {
      protocol: matched?.protocol ?? 'unknown',
      method,
      path: url.pathname,
      url: redactUrl(url),
      headers: redactHeaders(req.headers),
      body,
      scenario,
      status: 0,
      reply: [],
      scripted: false,
    };
    requests.push(record);

    const requestAbort = new AbortController();
    res.on('close', () => requestAbort.abort());
    const exchange: FakeExchange = {
      req,
      res,
      url,
      body,
      signal: AbortSignal.any([lifetime.signal, requestAbort.signal]),
      record,
      nextId,
      plan: (view) => {
        const protocol = matched?.protocol;
        if (protocol === undefined || protocol === 'unknown') throw new FakeLlmServerError('invalid-argument', 'no protocol to plan for');
        const queued = queues.get(protocol)?.shift();
        if (queued) {
          record.scripted = true;
          return planObjectReply(queued, view);
        }
        return planScenarioReply(scenario, protocol, view, { codexTool, slowChunkDelayMs, mcpTool });
      },
    };

    if (!matched) {
      record.reply = ['error:404'];
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`fake-llm: no route for ${method} ${url.pathname}`);
      record.status = 404;
      return;
    }
    if (!bodyIsJson) {
      record.reply = ['error:400'];
      sendJson(exchange, 400, errorBodyFor(matched.protocol, 400, 'fake-llm: the request body is not valid JSON'));
      return;
    }
    await matched.handle(exchange);
  };

  const server = createServer((req, res) => {
    handleRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`fake-llm internal error: ${error instanceof Error ? error.message : String(error)}`);
      } else {
        res.destroy();
      }
    });
  });
  // Codex's built-in provider tries a WebSocket first; answer 404 so it falls back to HTTP.
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    requests.push({
      protocol: 'unknown',
      method: req.method ?? 'GET',
      path: url.pathname,
      url: redactUrl(url),
      headers: redactHeaders(req.headers),
      body: undefined,
      scenario,
      status: 404,
      reply: ['error:404'],
      scripted: false,
    });
    upgradeSockets.add(socket);
    socket.on('close', () => upgradeSockets.delete(socket));
    const text = `fake-llm: no route for ${req.method ?? 'GET'} ${url.pathname}`;
    socket.end(`HTTP/1.1 404 Not Found\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${actualPort}`,
    port: actualPort,
    get scenario() {
      return scenario;
    },
    get requests() {
      return requests;
    },
    setScenario(next) {
      assertScenario(next);
      scenario = next;
    },
    setCodexTool(next) {
      assertCodexTool(next);
      codexTool = next;
    },
    setMcpTool(next) {
      mcpTool = checkMcpTool(next);
    },
    enqueue(protocol, response: FakeScriptedResponse) {
      if (closed) throw new FakeLlmServerError('server-closed', 'enqueue: the fake LLM server is closed');
      const queue = queues.get(protocol);
      if (!queue) {
        throw new FakeLlmServerError('invalid-argument', `enqueue: unknown protocol ${JSON.stringify(protocol)}; expected one of ${FAKE_PROTOCOLS.join(', ')}`);
      }
      queue.push(planScriptedReply(protocol, response));
    },
    reset() {
      requests.length = 0;
      for (const queue of queues.values()) queue.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      lifetime.abort();
      const done = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of upgradeSockets) socket.destroy();
      await done;
    },
  };
}
