// Issue 31: a decision never waits behind the stream. The ACP client frames each chunk of the agent's stdout as it
// is read and answers the requests it holds before the lines around them are parsed by the turn; the timing itself
// is the benchmark's (bench/acp-permissions.bench.ts), the order is asserted here.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { describe, expect, it } from 'vitest';
import { createAcpAdapter } from './index';

const agentScript = fileURLToPath(new URL('./__fixtures__/scripted-acp-agent.mjs', import.meta.url));
const update = (update: Record<string, unknown>) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'scripted-1', update } });

describe('ACP client: requests are answered before the lines read with them are parsed', () => {
  it('a permission request read in one chunk with another call\'s result is decided before that result reaches the hooks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-acp-first-'));
    const record = join(dir, 'received.jsonl');
    const scriptFile = join(dir, 'script.json');
    // One write of the agent: call A runs and completes (200 streamed chunks of its output first), then B asks.
    const lines = [
      update({ sessionUpdate: 'tool_call', toolCallId: 'call-a', title: 'ls', kind: 'execute', status: 'in_progress', rawInput: { command: 'ls' } }),
      ...Array.from({ length: 200 }, (_, index) => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `chunk ${index} ` } })),
      update({ sessionUpdate: 'tool_call_update', toolCallId: 'call-a', status: 'completed', rawOutput: 'a.txt' }),
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'session/request_permission',
        params: { sessionId: 'scripted-1', toolCall: { toolCallId: 'call-b', title: 'rm a.txt', kind: 'execute', rawInput: { command: 'rm a.txt' } }, options: [{ optionId: 'yes', name: 'Allow', kind: 'allow_once' }, { optionId: 'no', name: 'Reject', kind: 'reject_once' }] },
      }),
    ];
    writeFileSync(scriptFile, JSON.stringify({ record, lines, answers: 1, then: 'result' }));
    const log: string[] = [];
    const adapters = new AdapterRegistry();
    const adapter = createAcpAdapter({
      command: process.execPath,
      args: [agentScript, scriptFile],
      permissions: {
        canUseTool: (request) => (log.push(`decide ${request.id}`), true),
        hooks: { postToolUse: (outcome) => void log.push(`post ${outcome.request.id}`) },
      },
    });
    adapters.register({ type: 'acp', create: () => adapter });
    const manager = new AgentManager({ adapters });
    try {
      await manager.ensureAgentStarted('coder', 'acp', { workDir: dir });
      const result = await manager.send('coder', 'go', { timeoutMs: 30_000 }).result;
      expect(result.outcome.status).toBe('completed');
      expect(result.text).toContain('chunk 199');
      // The old driver passed A's lines on and only then asked the host: the hooks saw A's result first.
      expect(log).toEqual(['decide call-b', 'post call-a']);
      const answers = readFileSync(record, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { id?: unknown; method?: string; result?: unknown });
      expect(answers.filter((message) => message.method === undefined)).toEqual([{ jsonrpc: '2.0', id: 7, result: { outcome: { outcome: 'selected', optionId: 'yes' } } }]);
    } finally {
      await manager.cleanup();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
