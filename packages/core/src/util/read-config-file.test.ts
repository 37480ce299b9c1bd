import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AbortError, ConfigError } from '@troupe/core';
import { readConfigFile } from '@troupe/core/util';

const dir = mkdtempSync(join(tmpdir(), 'troupe-read-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<ConfigError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('readConfigFile', () => {
  it('parses JSON, or the text with the parser given', async () => {
    writeFileSync(join(dir, 'ok.json'), '{ "a": [1, 2] }');
    expect(await readConfigFile(join(dir, 'ok.json'))).toEqual({ a: [1, 2] });
    writeFileSync(join(dir, 'ok.txt'), 'a=1');
    expect(await readConfigFile(join(dir, 'ok.txt'), { parse: (text) => Object.fromEntries([text.split('=')]) })).toEqual({ a: '1' });
  });

  it('names the file and the problem: missing (with the hint), unreadable, not valid in its format', async () => {
    const missing = join(dir, 'missing.json');
    expect((await rejection(readConfigFile(missing, { missingHint: 'create it' }))).message).toBe(`Invalid configuration in ${missing}:\n  - (root): file not found; create it`);
    expect((await rejection(readConfigFile(missing, { source: 'team configuration' }))).source).toBe('team configuration');
    expect((await rejection(readConfigFile(dir))).issues).toEqual([{ path: [], message: 'cannot read the file (EISDIR)' }]);
    writeFileSync(join(dir, 'bad.json'), '{ "a": ');
    const bad = await rejection(readConfigFile(join(dir, 'bad.json')));
    expect(bad.issues[0]?.message).toMatch(/^not valid JSON \(.+\)$/);
    expect(bad.cause).toBeInstanceOf(SyntaxError);
    const custom = await rejection(readConfigFile(join(dir, 'ok.txt'), { format: 'INI', parse: () => { throw new Error('line 1: no section'); } }));
    expect(custom.issues[0]?.message).toBe('not valid INI (line 1: no section)');
  });

  it('passes a ConfigError of the parser through, and honours the signal', async () => {
    const own = new ConfigError('x.toml', [{ path: [], message: 'not valid TOML at line 3, column 1: bad key' }]);
    expect(await rejection(readConfigFile(join(dir, 'ok.txt'), { parse: () => { throw own; } }))).toBe(own);
    await expect(readConfigFile(join(dir, 'ok.json'), { signal: AbortSignal.abort() })).rejects.toThrow(AbortError);
  });
});
