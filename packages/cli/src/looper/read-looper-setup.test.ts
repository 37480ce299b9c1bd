import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CliUsageError } from '../cli-errors';
import { readLooperSetup } from './read-looper-setup';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'troupe-cli-mcp-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('troupe looper --mcp FILE', () => {
  it('reads the .mcp.json-style file (variables from the environment) into the setup the Coder and Review get', () => {
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
    const { setup, summary } = readLooperSetup({ mcp: file }, { DOCS_TOKEN: 'tok-123456' }, 'looper');
    expect(setup.mcpServers).toEqual({
      files: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
      docs: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer tok-123456' } },
    });
    expect(summary).toContain('MCP: files, docs');
    expect(readLooperSetup({}, {}, 'looper').setup.mcpServers).toBeUndefined();
  });

  it('a missing file, bad JSON or a bad entry is bad input naming the problem', () => {
    expect(() => readLooperSetup({ mcp: join(dir, 'none.json') }, {}, 'looper')).toThrow(CliUsageError);
    expect(() => readLooperSetup({ mcp: join(dir, 'none.json') }, {}, 'looper')).toThrow(/--mcp .*none\.json: file not found/);
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect(() => readLooperSetup({ mcp: join(dir, 'bad.json') }, {}, 'looper')).toThrow(/not valid JSON/);
    writeFileSync(join(dir, 'sse.json'), JSON.stringify({ mcpServers: { old: { type: 'sse', url: 'http://x' } } }));
    expect(() => readLooperSetup({ mcp: join(dir, 'sse.json') }, {}, 'looper')).toThrow(/mcpServers\.old\.type: SSE servers are not supported/);
    writeFileSync(join(dir, 'var.json'), JSON.stringify({ mcpServers: { a: { command: '${MISSING_BIN}' } } }));
    expect(() => readLooperSetup({ mcp: join(dir, 'var.json') }, {}, 'looper')).toThrow(/\$\{MISSING_BIN\}/);
  });
});
