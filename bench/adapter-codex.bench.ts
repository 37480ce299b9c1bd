import { fileURLToPath } from 'node:url';
import { createCodexAdapter } from '@troupe/adapter-codex';
import type { BenchKit } from './bench-kit';
import { benchAdapterLatency } from './adapter-latency';

/** Codex: `turn.completed` written → turn result (real CLI exits 14–49 ms after it). */
export default async function (kit: BenchKit): Promise<void> {
  await benchAdapterLatency(kit, {
    name: 'codex',
    createAdapter: () => createCodexAdapter(),
    recording: fileURLToPath(new URL('../packages/adapter-codex/src/__fixtures__/text.stdout.jsonl', import.meta.url)),
    completionType: 'turn.completed',
    expectedText: 'Hello from fake-llm.',
    exitDelayMs: 30,
  });
}
