/*
 * Typed results from CLI turns, with the three real CLIs (Claude Code 2.1.330, Codex 0.169.0, Gemini CLI 0.61.0)
 * against the in-repo fake API: 3 CLIs × 10 schemas × repeated runs, plus the known misbehaviours of each
 * mechanism. Every returned object must validate; every failure must be a StructuredOutputError; none a silent
 * success. Prints the counts. `TROUPE_TYPED_OUTPUT_REPEATS` (default 2) sets the repeats per schema.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { StructuredOutputError } from '@troupe/core';
import { AdapterRegistry, AgentManager, type AgentOutputSchema } from '@troupe/core/cli-turn';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import { createFakeLlmServer, findRealCli, type FakeLlmServer, type FakeProtocol, type FakeScriptedResponse } from '@troupe/test-server';
import { afterAll, describe, expect, it } from 'vitest';
import { TYPED_OUTPUT_CASES, type TypedOutputCase } from './typed-output-schemas';

const runIntegration = !process.env.TROUPE_SKIP_INT;
if (!runIntegration) console.warn('[real CLI] SKIPPED the typed-output run: TROUPE_SKIP_INT is set');
const REPEATS = Number(process.env.TROUPE_TYPED_OUTPUT_REPEATS ?? 2);

type CliName = 'claude' | 'codex' | 'gemini';
const PROTOCOL: Record<CliName, FakeProtocol> = { claude: 'anthropic', codex: 'openai-responses', gemini: 'gemini' };

/** One run: what the fake answers, and what must come out. */
interface Run {
  label: string;
  testCase: TypedOutputCase;
  replies: FakeScriptedResponse[];
  /** `object`: a valid object must come back; a failure kind: a StructuredOutputError of that kind (never another error). */
  expect: 'object' | StructuredOutputError['failure'];
  /** Turns the run must take (the generic path's repair turn). */
  attempts?: number;
}

function validatorOf(schema: AgentOutputSchema): z.ZodType {
  return schema instanceof z.ZodType ? schema : z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}

/** The runs of one CLI: every schema `REPEATS` times as a model answers under that CLI's mechanism, then its misbehaviours. */
function runsFor(cli: CliName): Run[] {
  const runs: Run[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat++) {
    for (const testCase of TYPED_OUTPUT_CASES) {
      const json = JSON.stringify(testCase.answer);
      const replies: FakeScriptedResponse[] =
        cli === 'claude'
          ? [{ object: testCase.answer }]
          : cli === 'codex'
            ? [{ object: testCase.strictAnswer ?? testCase.answer }]
            : [{ text: repeat % 2 === 0 ? `Here is the result:\n\`\`\`json\n${json}\n\`\`\`` : json }];
      runs.push({ label: `${testCase.name} #${repeat + 1}`, testCase, replies, expect: 'object' });
    }
  }
  const [first, second] = TYPED_OUTPUT_CASES as [TypedOutputCase, TypedOutputCase];
  const prose = 'I looked into it and everything is fine.';
  if (cli === 'claude') {
    // The model never calls StructuredOutput: Claude Code asks once more, then ends with subtype "success" and no structured_output.
    runs.push({ label: 'schema ignored (text only, success)', testCase: first, replies: [{ text: prose }, { text: prose }], expect: 'schema-ignored' });
  }
  if (cli === 'codex') {
    runs.push({ label: 'prose with a success status', testCase: first, replies: [{ text: prose }], expect: 'not-json' });
    runs.push({
      label: 'JSON in an intermediate message, prose at the end',
      testCase: first,
      replies: [{ text: JSON.stringify(first.answer), toolCalls: [{ name: 'exec_command', arguments: { cmd: 'true' } }] }, { text: prose }],
      expect: 'not-json',
    });
    runs.push({
      label: 'wrong JSON in an intermediate message, the right object at the end',
      testCase: second,
      replies: [{ text: JSON.stringify(first.answer), toolCalls: [{ name: 'exec_command', arguments: { cmd: 'true' } }] }, { object: second.answer }],
      expect: 'object',
    });
  }
  if (cli === 'gemini') {
    runs.push({ label: 'prose, then JSON on the repair turn', testCase: first, replies: [{ text: prose }, { text: JSON.stringify(first.answer) }], expect: 'object', attempts: 2 });
    runs.push({ label: 'prose twice', testCase: first, replies: [{ text: prose }, { text: prose }], expect: 'not-json' });
    runs.push({ label: 'invalid twice', testCase: first, replies: [{ text: '{"title": 1}' }, { text: '{"title": 2}' }], expect: 'invalid' });
  }
  // Every CLI: an empty answer. Claude Code checks the StructuredOutput input against the schema itself and asks
  // again, then ends with no structured result; Gemini CLI fails the turn itself ("The model returned an empty
  // response"), an empty answer all the same (the adapter marks it, core makes it `empty`); Codex ends the turn with
  // an empty final message.
  if (cli === 'claude') runs.push({ label: 'empty StructuredOutput input', testCase: first, replies: [{ object: {} }], expect: 'schema-ignored' });
  if (cli === 'codex') runs.push({ label: 'empty final message', testCase: first, replies: [{ text: ' ' }], expect: 'empty' });
  if (cli === 'gemini') runs.push({ label: 'empty answer', testCase: first, replies: [{ text: ' ' }, { text: ' ' }], expect: 'empty' });
  return runs;
}

interface Tally {
  runs: number;
  objects: number;
  failures: Record<string, number>;
  /** Runs whose outcome was not the expected one (a silent success, a wrong object, another error). */
  wrong: string[];
}

async function runCli(cli: CliName, root: string): Promise<Tally> {
  const real = findRealCli(cli);
  if ('missing' in real) throw new Error(`[real CLI] ${cli}: ${real.missing}`);
  const server: FakeLlmServer = await createFakeLlmServer({ scenario: 'text' });
  servers.push(server);
  const home = join(root, cli, 'home');
  const workDir = join(root, cli, 'work');
  mkdirSync(workDir, { recursive: true });
  const adapter =
    cli === 'claude'
      ? createClaudeCodeAdapter({ command: real.command, baseUrl: server.url, apiKey: 'sk-ant-fake-000', home, tmpDir: join(root, cli, 'tmp') })
      : cli === 'codex'
        ? createCodexAdapter({ command: real.command, baseUrl: `${server.url}/v1`, apiKey: 'sk-fake-000', home, codexHome: join(home, '.codex'), tmpDir: join(root, cli, 'tmp') })
        : createGeminiCliAdapter({ command: real.command, baseUrl: server.url, apiKey: 'fake-gemini-key', home, tmpDir: join(root, cli, 'tmp') });
  const adapters = new AdapterRegistry();
  adapters.register({ type: cli, create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 90_000 });
  const tally: Tally = { runs: 0, objects: 0, failures: {}, wrong: [] };
  let index = 0;
  try {
    for (const run of runsFor(cli)) {
      const role = `${cli}-${index++}`;
      server.reset();
      for (const reply of run.replies) server.enqueue(PROTOCOL[cli], reply);
      await manager.ensureAgentStarted(role, cli, { workDir });
      tally.runs++;
      try {
        const reply = await manager.sendAndReceive(role, `Answer about ${run.testCase.name}.`, { schema: run.testCase.schema });
        tally.objects++;
        const valid = validatorOf(run.testCase.schema).safeParse(reply.object);
        if (!valid.success) tally.wrong.push(`${cli} ${run.label}: returned an object that does not validate: ${JSON.stringify(reply.object)}`);
        else if (run.expect !== 'object') tally.wrong.push(`${cli} ${run.label}: a silent success (expected ${run.expect}): ${JSON.stringify(reply.object)}`);
        else if (JSON.stringify(valid.data) !== JSON.stringify(run.testCase.expected ?? run.testCase.answer)) {
          tally.wrong.push(`${cli} ${run.label}: a different object: ${JSON.stringify(reply.object)}`);
        } else if (run.attempts !== undefined && reply.attempts !== run.attempts) tally.wrong.push(`${cli} ${run.label}: ${reply.attempts} turn(s), expected ${run.attempts}`);
      } catch (error) {
        if (!StructuredOutputError.isInstance(error)) {
          tally.failures.other = (tally.failures.other ?? 0) + 1;
          tally.wrong.push(`${cli} ${run.label}: not a StructuredOutputError: ${String(error)}`);
        } else {
          tally.failures[error.failure] = (tally.failures[error.failure] ?? 0) + 1;
          if (run.expect !== error.failure) tally.wrong.push(`${cli} ${run.label}: ${error.failure}, expected ${run.expect}: ${error.message}`);
        }
      } finally {
        await manager.stopAgent(role);
      }
    }
  } finally {
    await manager.cleanup();
  }
  return tally;
}

const servers: FakeLlmServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

describe.skipIf(!runIntegration)('typed results: 3 real CLIs × 10 schemas against the fake API', () => {
  it('every returned object validates; every failure is a StructuredOutputError of the expected kind; no silent success', async () => {
    const root = mkdtempSync(join(tmpdir(), 'troupe-typed-output-'));
    const started = Date.now();
    try {
      const clis: CliName[] = ['claude', 'codex', 'gemini'];
      const tallies = await Promise.all(clis.map((cli) => runCli(cli, root)));
      const lines = clis.map((cli, i) => {
        const tally = tallies[i] as Tally;
        const failures = Object.entries(tally.failures).map(([kind, count]) => `${kind} ${count}`).join(', ') || 'none';
        return `  ${cli}: ${tally.runs} runs, ${tally.objects} objects, failures by kind: ${failures}`;
      });
      console.log(`[typed output] ${TYPED_OUTPUT_CASES.length} schemas × ${REPEATS} repeats, ${((Date.now() - started) / 1000).toFixed(1)} s\n${lines.join('\n')}`);
      expect(tallies.flatMap((tally) => tally.wrong)).toEqual([]);
      expect(tallies.map((tally) => tally.objects)).toEqual(clis.map((cli) => runsFor(cli).filter((run) => run.expect === 'object').length));
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  }, 400_000);
});
