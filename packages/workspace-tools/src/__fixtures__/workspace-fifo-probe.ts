/**
 * Run by workspace-fifo.test.ts in its own process (a blocked libuv thread
 * pool cannot be freed, so it must not be the test runner's): starts
 * `count` concurrent `read_file` or `write_file` calls on the FIFO `pipe` of
 * the workspace `root`, then checks that the thread pool still serves a
 * file read and a DNS lookup. Prints one JSON line and exits.
 *
 * Usage: workspace-fifo-probe.ts <root> <read|write> <count>
 */
import { lookup } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createReadFileTool, createWriteFileTool } from '../index';
import { executeTool } from '@troupe/core';

const [root = '', mode = 'read', count = '6'] = process.argv.slice(2);
const tool = mode === 'read' ? createReadFileTool({ root }) : createWriteFileTool({ root });
const input = mode === 'read' ? { path: 'pipe' } : { path: 'pipe', content: 'x' };

function within<T>(ms: number, promise: Promise<T>): Promise<T | 'hung'> {
  return Promise.race([promise, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), ms).unref())]);
}

const calls = Array.from({ length: Number(count) }, (_, index) =>
  executeTool(tool, input, { toolCallId: `c${index}`, toolName: tool.name, abortSignal: new AbortController().signal }),
);
// Let the calls reach their open() before asking the thread pool for more.
await new Promise((resolve) => setTimeout(resolve, 500));
const fsRead = await within(5000, readFile(join(root, 'other.txt'), 'utf8'));
const dns = await within(5000, lookup('localhost').then(() => 'resolved'));
const results = await Promise.all(calls.map((call) => within(2000, call)));
process.stdout.write(`${JSON.stringify({ fsRead, dns, results })}\n`);
process.exit(0);
