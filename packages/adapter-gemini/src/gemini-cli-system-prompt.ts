import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A system prompt written to a private file for `GEMINI_SYSTEM_MD`. */
export interface GeminiSystemPromptFile {
  /** Absolute path of the file, the value of `GEMINI_SYSTEM_MD`. */
  path: string;
  /** Removes the file and its private folder. Safe to call twice. */
  remove(): Promise<void>;
}

/** Prompt folders not yet removed; a safety net removes them when the host process exits. */
const liveDirs = new Set<string>();
let exitHookInstalled = false;

/**
 * Writes a member's system prompt to `<tmp>/troupe-gemini-system-*\/system.md`
 * (folder mode 0700, file 0600), for the `GEMINI_SYSTEM_MD` environment
 * variable. Gemini CLI reads it at startup and uses it *instead of* its whole
 * built-in system instruction (tool usage rules, environment notes…).
 * The folder goes with `remove()` (the turn's `ProcessConfig.cleanup`), or
 * at the latest when the host process exits.
 *
 * @internal
 */
export async function writeGeminiSystemPromptFile(systemPrompt: string, parent = tmpdir()): Promise<GeminiSystemPromptFile> {
  const dir = await mkdtemp(join(parent, 'troupe-gemini-system-'));
  liveDirs.add(dir);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const live of liveDirs) rmSync(live, { recursive: true, force: true });
    });
  }
  const path = join(dir, 'system.md');
  await writeFile(path, systemPrompt, { mode: 0o600 });
  return {
    path,
    remove: async () => {
      liveDirs.delete(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
