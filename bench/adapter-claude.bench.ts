import { fileURLToPath } from 'node:url';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import type { BenchKit } from './bench-kit';
import { benchAdapterLatency } from './adapter-latency';

/** Claude Code: `result` written → turn result (real CLI exits 32–79 ms after it). */
export default async function (kit: BenchKit): Promise<void> {
  await benchAdapterLatency(kit, {
    name: 'claude',
    createAdapter: () => createClaudeCodeAdapter(),
    recording: fileURLToPath(new URL('../packages/adapter-claude/src/__fixtures__/text.stdout.jsonl', import.meta.url)),
    completionType: 'result',
    expectedText: 'Hello from fake-llm.',
    exitDelayMs: 50,
  });
}
