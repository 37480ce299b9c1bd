import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../cli-errors';
import type { CliIo } from '../cli-io';
import { readLooperOptions } from './read-looper-setup';

let dir: string;
const io = (env: Record<string, string> = {}): CliIo => ({
  stdout: { write: () => true },
  stderr: { write: () => true },
  stdin: process.stdin,
  env: { LANG: 'en_US.UTF-8', ...env },
  cwd: dir,
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-cli-mcp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('troupe looper --mcp FILE', () => {
  it('reads the .mcp.json-style file (variables from the environment) into the setup the Coder and Review get', async () => {
    const file = join(dir, '.mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
          docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer ${DOCS_TOKEN}' } },
        },
      }),
    );
    const { base } = await readLooperOptions({ mcp: '.mcp.json' }, io({ DOCS_TOKEN: 'tok-123456' }), 'looper');
    expect(base.mcpServers).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
      docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer tok-123456' } },
    });
    expect((await readLooperOptions({}, io(), 'looper')).base.mcpServers).toBeUndefined();
    expect(file).toContain(dir);
  });

  it('a missing file, bad JSON or a bad entry is bad input naming the problem', async () => {
    await expect(readLooperOptions({ mcp: join(dir, 'none.json') }, io(), 'looper')).rejects.toThrow(CliUsageError);
    await expect(readLooperOptions({ mcp: join(dir, 'none.json') }, io(), 'looper')).rejects.toThrow(/--mcp .*none\.json: file not found/);
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    await expect(readLooperOptions({ mcp: join(dir, 'bad.json') }, io(), 'looper')).rejects.toThrow(/not valid JSON/);
    writeFileSync(join(dir, 'sse.json'), JSON.stringify({ mcpServers: { old: { type: 'sse', url: 'http://x' } } }));
    await expect(readLooperOptions({ mcp: join(dir, 'sse.json') }, io(), 'looper')).rejects.toThrow(/mcpServers\.old\.type: SSE servers are not supported/);
    writeFileSync(join(dir, 'var.json'), JSON.stringify({ mcpServers: { a: { command: '${MISSING_BIN}' } } }));
    await expect(readLooperOptions({ mcp: join(dir, 'var.json') }, io(), 'looper')).rejects.toThrow(/\$\{MISSING_BIN\}/);
  });
});
