import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigError } from '@troupe/core';
import { forgetAtExit, removeAtExit } from './gemini-cli-exit-cleanup';

/** What {@link prepareGeminiCliHome} writes into `settings.json`. */
export interface GeminiCliHomeOptions {
  /** `general.maxAttempts`: API attempts per request (1–10). */
  maxAttempts: number;
  /** Write `privacy.usageStatisticsEnabled: false` and `telemetry.enabled: false`. */
  disableTelemetry: boolean;
}

/** A parsed settings.json. */
export type JsonObject = Record<string, unknown>;

/**
 * The settings the adapter needs, as a partial `settings.json`:
 * `security.auth.selectedType: "gemini-api-key"` (pitfall 1: without it an API
 * key from the environment selects the `gateway` auth type, which headless
 * mode rejects with exit 41), auto-update off, `general.maxAttempts`, and
 * telemetry off when asked.
 */
export function geminiCliSettingsPatch(options: GeminiCliHomeOptions): JsonObject {
  return {
    security: { auth: { selectedType: 'gemini-api-key' } },
    ...(options.disableTelemetry ? { privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } } : {}),
    general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, maxAttempts: options.maxAttempts },
  };
}

/**
 * Writes `<home>/.gemini/settings.json` for headless API-key use, keeping
 * any other keys already in the file. Returns the path written.
 *
 * @example
 * ```ts
 * await prepareGeminiCliHome('/tmp/gemini-home', { maxAttempts: 2, disableTelemetry: true });
 * // HOME=/tmp/gemini-home gemini -p "Say hello" -o stream-json --skip-trust -m gemini-2.5-flash
 * ```
 *
 * @throws ConfigError when an existing settings.json is not a JSON object.
 */
export async function prepareGeminiCliHome(home: string, options: GeminiCliHomeOptions): Promise<string> {
  return updateGeminiCliSettings(home, (existing) => deepMerge(existing, geminiCliSettingsPatch(options)));
}

/** Updates in flight by settings file: updates of one file in this process run one after another. */
const pendingUpdates = new Map<string, Promise<unknown>>();

/**
 * Rewrites `<home>/.gemini/settings.json` with `update(current settings)`
 * (an absent or empty file reads as `{}`), atomically. Returns the path.
 *
 * Safe when many turns share one home: updates of one file in this process
 * are serialized (none loses another's change), the file is written only
 * when its content changes, and each write goes through a temporary file of
 * its own (pid and random suffix) renamed over the file, so concurrent
 * writers (other processes too) never rename each other's file away and a
 * CLI starting meanwhile never reads half a file.
 *
 * @throws ConfigError when the existing file is not a JSON object.
 * @internal
 */
export async function updateGeminiCliSettings(home: string, update: (existing: JsonObject) => JsonObject): Promise<string> {
  const file = join(home, '.gemini', 'settings.json');
  const previous = pendingUpdates.get(file) ?? Promise.resolve();
  const current = previous.catch(() => {}).then(() => rewriteSettings(file, update));
  pendingUpdates.set(file, current);
  try {
    return await current;
  } finally {
    if (pendingUpdates.get(file) === current) pendingUpdates.delete(file);
  }
}

/**
 * Reads a Gemini CLI settings file: its object, or `{}` when the file is absent or empty. `fix` ends the error message.
 *
 * @throws ConfigError naming the file when it is not a JSON object.
 * @internal
 */
export async function readGeminiSettingsFile(file: string, fix: string): Promise<JsonObject> {
  return (await readSettings(file, fix)).settings;
}

async function readSettings(file: string, fix: string): Promise<{ settings: JsonObject; text: string | undefined }> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined || text.trim() === '') return { settings: {}, text };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [{ path: [], message: `is not valid JSON; ${fix}` }], { cause: error });
  }
  if (!isObject(parsed)) throw new ConfigError(file, [{ path: [], message: 'must hold a JSON object' }]);
  return { settings: parsed, text };
}

async function rewriteSettings(file: string, update: (existing: JsonObject) => JsonObject): Promise<string> {
  const dir = dirname(file);
  await mkdir(dir, { recursive: true });
  const { settings: existing, text } = await readSettings(file, 'fix or delete it, or set prepareHome: false');
  const content = `${JSON.stringify(update(existing), null, 2)}\n`;
  if (content === text) return file;
  // Write then rename, so a CLI starting concurrently never reads half a file.
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, content, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return file;
}

/**
 * Creates a private, empty home folder (`troupe-gemini-home-*`) under
 * `parent` (default: the OS temp dir). It is removed by
 * {@link removeGeminiCliHome}, or when the host process exits.
 *
 * @internal
 */
export async function createGeminiCliHome(parent = tmpdir()): Promise<string> {
  const home = await mkdtemp(join(parent, 'troupe-gemini-home-'));
  removeAtExit(home);
  return home;
}

/** Removes a home made by {@link createGeminiCliHome}. @internal */
export async function removeGeminiCliHome(home: string): Promise<void> {
  forgetAtExit(home);
  await rm(home, { recursive: true, force: true });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function deepMerge(base: JsonObject, patch: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    const current = out[key];
    out[key] = isObject(value) && isObject(current) ? deepMerge(current, value) : value;
  }
  return out;
}
