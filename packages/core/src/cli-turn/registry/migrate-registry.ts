import { copyFile, rename, writeFile } from 'node:fs/promises';
import type { RemovedSystemPrompt } from './convert-legacy-registry';
import { readConfigFile } from '../../util/read-config-file';
import { parseRegistryConfig, type ParseRegistryOptions } from './load-registry';
import type { RegistryConfig } from './registry-schema';

/** Options for {@link migrateRegistry}. */
export interface MigrateRegistryOptions {
  /** Compute the result without writing anything. */
  dryRun?: boolean;
  /** Clock for the backup file name (tests). */
  now?: () => Date;
  /** Where each entry's CLI facts come from (see {@link ParseRegistryOptions.adapters}). Default: the default adapter registry. */
  adapters?: ParseRegistryOptions['adapters'];
}

/** What a migration did. */
export interface MigrateRegistryResult {
  /** False when the file already was schema 1.2 (nothing written). */
  changed: boolean;
  fromVersion: string;
  config: RegistryConfig;
  /** Copy of the original file, written before the new one. */
  backupPath?: string;
  /** Role text taken out of `args`; move it to members' `systemInstruction`. */
  removedSystemPrompts: RemovedSystemPrompt[];
  warnings: string[];
}

/**
 * Converts a registry file from schema 1.1 to 1.2 in place (seed 001 §2.1):
 * writes a backup first, moves role text out of `args`, adds `capabilities`,
 * keeps unknown fields. The new file is written atomically (temp + rename).
 * Each entry's capabilities come from its adapter plugin (`registryCapabilities`):
 * register the adapters first, or pass `adapters`.
 *
 * @example
 * ```ts
 * const result = await migrateRegistry(`${os.homedir()}/.troupe/agents/config.json`);
 * for (const removed of result.removedSystemPrompts) console.log(`${removed.agent}: move "${removed.text}" to a member`);
 * ```
 */
export async function migrateRegistry(path: string, options: MigrateRegistryOptions = {}): Promise<MigrateRegistryResult> {
  const parsed = parseRegistryConfig(await readConfigFile(path), { source: path, onWarning: () => {}, ...(options.adapters ? { adapters: options.adapters } : {}) });
  const alreadyCurrent = !parsed.usedFallback;
  const result: MigrateRegistryResult = {
    changed: !alreadyCurrent,
    fromVersion: parsed.sourceVersion,
    config: parsed.config,
    removedSystemPrompts: parsed.removedSystemPrompts,
    warnings: parsed.conversionWarnings,
  };
  if (alreadyCurrent || options.dryRun) return result;
  const stamp = (options.now?.() ?? new Date()).toISOString().replace(/[:.]/g, '-');
  const backupPath = `${path}.${parsed.sourceVersion}.${stamp}.bak`;
  await copyFile(path, backupPath);
  const temp = `${path}.tmp-${process.pid}`;
  await writeFile(temp, `${JSON.stringify(parsed.config, null, 2)}\n`, 'utf8');
  await rename(temp, path);
  return { ...result, backupPath };
}
