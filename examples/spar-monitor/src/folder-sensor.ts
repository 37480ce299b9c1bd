import { open, readdir, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import type { LoopSensor, PerceptionInput } from '@troupe/core';

/** Options of {@link createFolderSensor}. */
export interface FolderSensorOptions {
  /** Folder to watch (not recursive). */
  dir: string;
  /** Files to ignore (absolute paths), e.g. the report the loop writes. */
  ignore?: readonly string[];
  /** Extensions read as logs: their new lines become perceptions. Default `.log`, `.txt`. */
  logExtensions?: readonly string[];
  /** At most this many new lines per file and Sense phase (the rest is counted). Default 50. */
  maxLinesPerFile?: number;
}

interface FileState {
  size: number;
  mtimeMs: number;
  /** Bytes of a log already turned into lines, and an unfinished last line. */
  offset: number;
  partial: string;
}

/**
 * Senses a folder by comparing snapshots: a created, modified or deleted file
 * becomes an `fs` perception; a log that grew yields one `log` perception per
 * new complete line. Its `setup` takes the first snapshot, so only what
 * changes after the loop starts is perceived.
 */
export function createFolderSensor(options: FolderSensorOptions): LoopSensor {
  const dir = resolve(options.dir);
  const ignore = new Set(options.ignore ?? []);
  const logExtensions = new Set(options.logExtensions ?? ['.log', '.txt']);
  const maxLines = options.maxLinesPerFile ?? 50;
  let files = new Map<string, FileState>();

  const snapshot = async (): Promise<Map<string, { size: number; mtimeMs: number }>> => {
    const out = new Map<string, { size: number; mtimeMs: number }>();
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isFile() || ignore.has(join(dir, entry.name))) continue;
      try {
        const info = await stat(join(dir, entry.name));
        out.set(entry.name, { size: info.size, mtimeMs: info.mtimeMs });
      } catch {
        // deleted between readdir and stat: the next snapshot reports it
      }
    }
    return out;
  };

  const readLines = async (name: string, state: FileState, size: number): Promise<string[]> => {
    if (size < state.offset) {
      state.offset = 0; // truncated or rotated: start over
      state.partial = '';
    }
    if (size === state.offset) return [];
    const handle = await open(join(dir, name), 'r');
    try {
      const buffer = Buffer.alloc(size - state.offset);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, state.offset);
      state.offset += bytesRead;
      const text = state.partial + buffer.subarray(0, bytesRead).toString('utf8');
      const lines = text.split('\n');
      state.partial = lines.pop() ?? '';
      return lines.map((line) => line.trim()).filter((line) => line !== '');
    } finally {
      await handle.close();
    }
  };

  return {
    kind: 'sensor',
    name: 'spar:folder',
    description: `Watches ${dir} for file changes and new log lines.`,
    async setup() {
      files = new Map([...(await snapshot())].map(([name, info]) => [name, { ...info, offset: info.size, partial: '' }]));
    },
    teardown() {
      files.clear();
    },
    async sense() {
      const now = await snapshot();
      const perceptions: PerceptionInput[] = [];
      for (const [name, info] of now) {
        const previous = files.get(name);
        const isLog = logExtensions.has(extname(name));
        if (previous && previous.size === info.size && previous.mtimeMs === info.mtimeMs) continue;
        const state = previous ?? { size: 0, mtimeMs: 0, offset: 0, partial: '' };
        if (!previous) perceptions.push({ source: 'fs', subject: name, content: `created ${name} (${info.size} bytes)`, data: { event: 'created', size: info.size } });
        if (isLog) {
          const lines = await readLines(name, state, info.size);
          for (const line of lines.slice(0, maxLines)) perceptions.push({ source: 'log', subject: name, content: line });
          if (lines.length > maxLines) perceptions.push({ source: 'log', subject: name, content: `… ${lines.length - maxLines} more lines` });
        } else if (previous) {
          perceptions.push({ source: 'fs', subject: name, content: `modified ${name} (${info.size} bytes)`, data: { event: 'modified', size: info.size } });
        }
        files.set(name, { ...state, size: info.size, mtimeMs: info.mtimeMs });
      }
      for (const name of files.keys()) {
        if (now.has(name)) continue;
        files.delete(name);
        perceptions.push({ source: 'fs', subject: name, content: `deleted ${name}`, data: { event: 'deleted' } });
      }
      return perceptions;
    },
  };
}
