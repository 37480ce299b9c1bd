/**
 * Typed results from coding-agent CLIs: Claude Code, Codex and Gemini CLI are each asked for the same object,
 * described by one zod schema. Each adapter hands the schema to its CLI the way that CLI takes it (Claude Code
 * `--json-schema`, Codex `--output-schema`, Gemini CLI in the prompt with one repair turn); the answer is validated
 * and comes back typed. An answer that is not a valid object is a StructuredOutputError, never a silent success.
 *
 *   pnpm --filter @troupe/example-typed-results start            # offline, on fake CLIs
 *   pnpm --filter @troupe/example-typed-results start -- --live  # the real claude, codex and gemini on your PATH
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { registerClaudeCodeAdapter } from '@troupe/adapter-claude';
import { registerCodexAdapter } from '@troupe/adapter-codex';
import { registerGeminiCliAdapter } from '@troupe/adapter-gemini';
import { StructuredOutputError } from '@troupe/core';
import { AgentManager } from '@troupe/core/cli-turn';
import { offlineAdapters } from './offline-clis';

const live = process.argv.includes('--live');

/** What every CLI must answer with. */
const ReleasePlan = z.object({
  title: z.string(),
  risk: z.enum(['low', 'medium', 'high']),
  steps: z.array(z.object({ name: z.string(), owner: z.string() })).min(1),
  rollback: z.string().nullable(),
});

const PROMPT = 'Plan the release of version 2.4 of this project: a title, the risk, the steps with an owner each, and how to roll back (or null).';

async function main(): Promise<number> {
  if (live) {
    registerClaudeCodeAdapter();
    registerCodexAdapter();
    registerGeminiCliAdapter();
  } else console.log("Offline mode: Troupe's Claude Code, Codex and Gemini adapters drive a fake agent CLI (--live for the real ones).\n");
  const workDir = mkdtempSync(join(tmpdir(), 'troupe-typed-results-'));
  const manager = new AgentManager({ ...(live ? {} : { adapters: offlineAdapters() }), defaultTimeoutMs: 300_000 });
  let failures = 0;
  try {
    for (const cli of ['claude', 'codex', 'gemini'] as const) {
      await manager.ensureAgentStarted(cli, cli, { workDir });
      try {
        // `object` is typed from the schema: ReleasePlan's output type.
        const { object, attempts } = await manager.sendAndReceive(cli, PROMPT, { schema: ReleasePlan });
        console.log(`${cli.padEnd(6)} ${object.risk.padEnd(6)} ${object.title} — ${object.steps.map((step) => `${step.name} (${step.owner})`).join(', ')}; rollback: ${object.rollback ?? 'none'} [${attempts} turn(s)]`);
      } catch (error) {
        if (!StructuredOutputError.isInstance(error)) throw error;
        failures++;
        console.log(`${cli.padEnd(6)} no valid object (${error.failure}): ${error.text}`);
      }
    }
    if (!live) {
      // The same typed turn, streamed: parts as they come, then the result, which rejects when there is no valid object.
      await manager.ensureAgentStarted('sloppy', 'codex', { workDir });
      const turn = manager.send('sloppy', PROMPT, { schema: ReleasePlan });
      let parts = 0;
      for await (const _part of turn) parts++;
      const outcome = await turn.result.then(
        () => 'a valid object',
        (error: unknown) => (StructuredOutputError.isInstance(error) ? `StructuredOutputError (${error.failure}), raw answer: ${JSON.stringify(error.text)}` : String(error)),
      );
      console.log(`\nA Codex turn answered in prose (${parts} parts streamed): ${outcome}`);
    }
  } finally {
    await manager.cleanup();
    rmSync(workDir, { recursive: true, force: true });
  }
  return failures === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
