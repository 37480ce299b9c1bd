/**
 * An AI SDK model in Troupe: `fromAISdk(openai('gpt-5.5'))` runs a streamed tool loop on a temporary workspace,
 * then gives a structured verdict with generateObject.
 *
 *   pnpm --filter @troupe/example-ai-sdk-model start            # offline: @ai-sdk/openai against the in-repo fake API
 *   pnpm --filter @troupe/example-ai-sdk-model start -- --live  # a real provider (OPENAI_API_KEY or ANTHROPIC_API_KEY)
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatModel } from '@troupe/core';
import { runAiSdkDemo } from './ai-sdk-demo';
import { liveModel, offlineModel } from './ai-sdk-models';

async function main(): Promise<number> {
  const live = process.argv.includes('--live');
  let model: ChatModel;
  let close = async () => {};
  if (live) {
    const found = liveModel();
    if (!found) {
      console.error('--live needs an API key: set OPENAI_API_KEY or ANTHROPIC_API_KEY (or run without --live).');
      return 2;
    }
    console.log(`Live mode with ${found.name}`);
    model = found.model;
  } else {
    const offline = await offlineModel();
    console.log(`Offline mode: @ai-sdk/openai against the in-repo fake OpenAI API at ${offline.server.url} (pass --live for a real model)`);
    model = offline.model;
    close = () => offline.server.close();
  }
  const workspace = await mkdtemp(join(tmpdir(), 'troupe-ai-sdk-demo-'));
  try {
    await runAiSdkDemo(model, workspace, (text) => process.stdout.write(text), AbortSignal.timeout(300_000));
    console.log(`\nnotes.md in the workspace:\n${await readFile(join(workspace, 'notes.md'), 'utf8').catch(() => '(not written)\n')}`);
    return 0;
  } finally {
    await rm(workspace, { recursive: true, force: true });
    await close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`ai-sdk-model example failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
