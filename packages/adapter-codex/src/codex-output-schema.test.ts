import { existsSync, readFileSync } from 'node:fs';
import { AdapterRegistry, AgentManager } from '@troupe/core/cli-turn';
import { StructuredOutputError } from '@troupe/core';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { codexOverFakeCli, fixtureStdout, makeTempDir } from './codex-test-support';
import { toCodexStrictSchema } from './codex-output-schema';

describe('toCodexStrictSchema: what Codex strict mode accepts', () => {
  it('closes every object, requires every property, makes optional ones nullable; leaves the input alone', () => {
    const input = {
      type: 'object',
      properties: {
        id: { type: 'string' },
        note: { type: 'string' },
        level: { enum: ['a', 'b'] },
        tags: { type: 'array', items: { type: 'object', properties: { k: { type: 'string' }, v: { type: ['number', 'null'] } }, required: ['k'] } },
        meta: { type: 'object', properties: { owner: { type: 'string' } } },
      },
      required: ['id'],
    };
    const before = JSON.stringify(input);
    expect(toCodexStrictSchema(input)).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        note: { type: ['string', 'null'] },
        level: { anyOf: [{ enum: ['a', 'b'] }, { type: 'null' }] },
        tags: {
          type: ['array', 'null'],
          items: { type: 'object', properties: { k: { type: 'string' }, v: { type: ['number', 'null'] } }, required: ['k', 'v'], additionalProperties: false },
        },
        meta: { type: ['object', 'null'], properties: { owner: { type: ['string', 'null'] } }, required: ['owner'], additionalProperties: false },
      },
      required: ['id', 'note', 'level', 'tags', 'meta'],
      additionalProperties: false,
    });
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('Codex typed results (--output-schema; recorded from Codex 0.169.0 against the fake API)', () => {
  const Thing = z.object({ name: z.string(), n: z.number().int(), note: z.string().optional() });
  const temp = makeTempDir();
  const managers: AgentManager[] = [];
  afterEach(async () => {
    await Promise.all(managers.splice(0).map((manager) => manager.cleanup()));
  });

  async function replaying(name: string) {
    const { adapter, configs } = codexOverFakeCli(() => ({ replay: fixtureStdout(name) }), { apiKey: 'sk-fake-000', baseUrl: 'http://127.0.0.1:1/v1' });
    const adapters = new AdapterRegistry();
    adapters.register({ type: 'codex', create: () => adapter });
    const manager = new AgentManager({ adapters, defaultTimeoutMs: 20_000 });
    managers.push(manager);
    await manager.ensureAgentStarted('coder', 'codex', { workDir: temp.path });
    return { manager, configs };
  }

  it('writes the strict schema to a file for --output-schema, removed with the process, and parses the final message', async () => {
    const { manager, configs } = await replaying('output-schema');
    const reply = await manager.sendAndReceive('coder', 'Give me a thing', { schema: Thing });
    expect(reply.object).toEqual({ name: 'x', n: 3 });
    const args = configs.at(-1)?.config.args ?? [];
    const schemaFile = args[args.indexOf('--output-schema') + 1] ?? '';
    expect(configs[0]?.config.args).not.toContain('--output-schema'); // the warm process, started without a schema
    expect(args.indexOf('--output-schema')).toBeLessThan(args.indexOf('--'));
    expect(existsSync(schemaFile)).toBe(true); // until the process is removed
    expect(JSON.parse(readFileSync(schemaFile, 'utf8'))).toEqual(toCodexStrictSchema(z.toJSONSchema(Thing) as never));
    await manager.cleanup();
    expect(existsSync(schemaFile)).toBe(false);
  });

  it('takes the FINAL agent message, never an intermediate JSON one', async () => {
    const { manager } = await replaying('output-schema-intermediate-json');
    const reply = await manager.sendAndReceive('coder', 'Give me a thing', { schema: Thing });
    expect(reply.object).toEqual({ name: 'final', n: 2 });
  });

  it('an intermediate JSON message followed by final prose is a StructuredOutputError (not-json), not the intermediate object', async () => {
    const { manager } = await replaying('output-schema-final-prose');
    const error = await manager.sendAndReceive('coder', 'Give me a thing', { schema: Thing }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(StructuredOutputError.isInstance(error)).toBe(true);
    expect((error as StructuredOutputError).failure).toBe('not-json');
    expect((error as StructuredOutputError).text).toBe('All done: the thing is named final.');
  });
});
