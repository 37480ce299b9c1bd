import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forgetAtExit, removeAtExit } from './gemini-cli-exit-cleanup';

/** A system prompt written to a private file for `GEMINI_SYSTEM_MD`. */
export interface GeminiSystemPromptFile {
  /** Absolute path of the file, the value of `GEMINI_SYSTEM_MD`. */
  path: string;
  /** Removes the file and its private folder. Safe to call twice. */
  remove(): Promise<void>;
}

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
  removeAtExit(dir);
  const path = join(dir, 'system.md');
  await writeFile(path, systemPrompt, { mode: 0o600 });
  return {
    path,
    remove: async () => {
      forgetAtExit(dir);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
