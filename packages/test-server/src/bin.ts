/**
 * Runs the fake LLM server standalone for manual CLI runs:
 * `npx tsx packages/test-server/src/bin.ts [--scenario tool] [--port 8787] [--codex-tool exec_command] [--mcp-tool NAME] [--log]`.
 * Prints the URL on the first line, then (with `--log`) one JSON line per request.
 * Type a scenario name and Enter on stdin to switch scenarios; Ctrl-C stops it.
 */
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline';
import { createFakeLlmServer } from './fake-llm-server';
import { FAKE_SCENARIOS, type FakeCodexTool, type FakeScenario } from './fake-llm-types';

const { values } = parseArgs({
  options: {
    scenario: { type: 'string', default: 'text' },
    port: { type: 'string', default: '0' },
    'codex-tool': { type: 'string', default: 'apply_patch' },
    'mcp-tool': { type: 'string' },
    'slow-chunk-delay-ms': { type: 'string' },
    log: { type: 'boolean', default: false },
  },
});

const server = await createFakeLlmServer({
  scenario: values.scenario as FakeScenario,
  port: Number(values.port),
  codexTool: values['codex-tool'] as FakeCodexTool,
  ...(values['mcp-tool'] === undefined ? {} : { mcpTool: { name: values['mcp-tool'] } }),
  ...(values['slow-chunk-delay-ms'] === undefined ? {} : { slowChunkDelayMs: Number(values['slow-chunk-delay-ms']) }),
});
process.stdout.write(`${server.url}\n`);

let logged = 0;
const flushLog = (): void => {
  if (!values.log) return;
  for (; logged < server.requests.length; logged++) {
    const request = server.requests[logged];
    if (!request || request.status === 0) break;
    const { protocol, method, url, status, scenario, model, reply, scripted } = request;
    process.stdout.write(`${JSON.stringify({ protocol, method, url, status, scenario, model, reply, scripted })}\n`);
  }
};
const logTimer = setInterval(flushLog, 100);

createInterface({ input: process.stdin }).on('line', (line) => {
  const name = line.trim();
  if (name === '') return;
  if (FAKE_SCENARIOS.includes(name as FakeScenario)) {
    server.setScenario(name as FakeScenario);
    process.stderr.write(`scenario: ${name}\n`);
  } else {
    process.stderr.write(`unknown scenario ${JSON.stringify(name)}; expected one of ${FAKE_SCENARIOS.join(', ')}\n`);
  }
});

const stop = (): void => {
  clearInterval(logTimer);
  flushLog();
  void server.close().then(() => process.exit(0));
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
