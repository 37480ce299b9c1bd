import { fileURLToPath } from 'node:url';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { BenchKit } from './bench-kit';
import { benchAdapterLatency } from './adapter-latency';

/** Gemini CLI: `result` written → turn result (real CLI exits 23–162 ms after it). */
export default async function (kit: BenchKit): Promise<void> {
  await benchAdapterLatency(kit, {
    name: 'gemini',
    createAdapter: () => createGeminiCliAdapter({ prepareHome: false }),
    recording: fileURLToPath(new URL('../packages/adapter-gemini/src/__fixtures__/text.stdout.jsonl', import.meta.url)),
    completionType: 'result',
    expectedText: 'Hello from fake-llm.',
    exitDelayMs: 50,
  });
}
