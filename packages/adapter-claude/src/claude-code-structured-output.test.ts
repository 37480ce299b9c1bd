import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { StructuredOutputError } from '@troupe/core';
import { withFakeAgentCli } from '@troupe/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createClaudeCodeAdapter } from './index';

// Typed results through Claude Code's `--json-schema` (recorded from Claude Code 2.1.330 against the fake API):
// the CLI offers the model a StructuredOutput tool and returns the call's input as the result's `structured_output`.
const fixturesDir = new URL('./__fixtures__/', import.meta.url).pathname;
const Thing = z.object({ name: z.string(), n: z.number().int() });

const managers: AgentManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
});

async function replaying(name: string) {
  const argsSeen: (readonly string[])[] = [];
  const adapters = new AdapterRegistry();
  const adapter = withFakeAgentCli(createClaudeCodeAdapter(), { replay: `${fixturesDir}${name}.stdout.jsonl` }, { onProcessConfig: (args) => argsSeen.push(args) });
  adapters.register({ type: 'claude', create: () => adapter });
  const manager = new AgentManager({ adapters, defaultTimeoutMs: 20_000 });
  managers.push(manager);
  await manager.ensureAgentStarted('coder', 'claude', { workDir: fixturesDir });
  return { manager, argsSeen };
}

describe('Claude Code typed results (--json-schema)', () => {
  it('passes the JSON Schema with --json-schema and returns structured_output as the object', async () => {
    const { manager, argsSeen } = await replaying('json-schema-structured');
    const reply = await manager.sendAndReceive('coder', 'Give me a thing', { schema: Thing });
    expect(reply.object).toEqual({ name: 'x', n: 3 });
    expect(reply.attempts).toBe(1);
    const args = argsSeen.at(-1) ?? [];
    const schemaArg = args[args.indexOf('--json-schema') + 1];
    expect(JSON.parse(schemaArg ?? 'null')).toMatchObject({ type: 'object', required: ['name', 'n'] });
    expect(argsSeen[0]).not.toContain('--json-schema'); // the warm process, started without a schema, is replaced
  });

  it('a schema the model never answered through (text only, subtype success) is a StructuredOutputError, not a success', async () => {
    const { manager } = await replaying('json-schema-ignored');
    const error = await manager.sendAndReceive('coder', 'Give me a thing', { schema: Thing }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).failure).toBe('schema-ignored');
    expect((error as StructuredOutputError).text).toBe('Hello from fake-llm.');
  });

  it('without a schema, no --json-schema flag', async () => {
    const { manager, argsSeen } = await replaying('json-schema-ignored');
    await manager.sendAndReceive('coder', 'Say hello');
    expect(argsSeen.flat()).not.toContain('--json-schema');
  });
});
