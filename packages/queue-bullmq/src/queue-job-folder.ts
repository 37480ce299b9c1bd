import { createHash } from 'node:crypto';

/** Characters kept from a job id in its folder name (no `.`, so never `.`, `..` or a hidden name; no separator). */
const UNSAFE = /[^A-Za-z0-9_-]+/g;
/** Readable part of the name, at most this long (the hash keeps long ids apart). */
const READABLE_LENGTH = 48;

/**
 * The folder name of a job's clone under the worker's work dir: the id's
 * letters, digits, `_` and `-` (for people reading the folder) and a short
 * hash of the whole id (so two ids never share a folder). Any id — `..`,
 * `../x`, `a/b`, an empty-looking or very long one — gives one plain name
 * that stays inside the work dir.
 */
export function jobFolderName(jobId: string): string {
  const readable = jobId.replace(UNSAFE, '_').replace(/^_+|_+$/g, '').slice(0, READABLE_LENGTH);
  const hash = createHash('sha256').update(jobId, 'utf8').digest('hex').slice(0, 16);
  return `${readable || 'job'}-${hash}`;
}
