import { connect } from 'node:net';

/**
 * A seeded pseudo-random source in [0, 1): `seededRandom(seed).next` from
 * `@troupe/core/testing`, so a failing fuzz run replays from its seed.
 */
export type FuzzRandom = () => number;

/**
 * The fuzz seed: `TROUPE_FUZZ_SEED` when set (to replay a failure), else a
 * fresh one. It is printed, so a failing run can be replayed.
 */
export function fuzzSeed(label: string): number {
  const fromEnv = process.env.TROUPE_FUZZ_SEED;
  const seed = fromEnv !== undefined && fromEnv !== '' ? Number(fromEnv) >>> 0 : Math.floor(Math.random() * 2 ** 32);
  console.log(`[fuzz] ${label}: seed ${seed} (replay with TROUPE_FUZZ_SEED=${seed})`);
  return seed;
}

const pick = <T>(random: FuzzRandom, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

/** Values of every JSON type and the edge cases protocols trip on. */
const ODD_VALUES: readonly unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  2 ** 53 + 1,
  Number.MAX_SAFE_INTEGER,
  '',
  'x',
  '\u0000',
  '\ud800',
  '🎭'.repeat(10),
  [],
  [null],
  [1, 2, 3],
  {},
  { __proto__: null },
  { constructor: { prototype: { polluted: true } } },
  'a'.repeat(5000),
];

/** Raw junk lines: not JSON, or JSON that is not an object. */
const JUNK_LINES: readonly string[] = [
  'null',
  '[]',
  '[{}]',
  '0',
  '-0',
  '1e999',
  '"string"',
  'true',
  '{',
  '}',
  '{"id":',
  '{"id":1,}',
  "{'id':1}",
  '{"id":1}}',
  'NaN',
  'undefined',
  '{"__proto__":{"polluted":true},"id":1}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '\u0000\u0001\u0002',
  '\ufeff{"id":1}',
  '{"id":1,"id":"two"}',
  `${'['.repeat(5000)}${']'.repeat(5000)}`,
  `{"a":${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}}`,
];

/**
 * One junk line for a JSON-lines protocol (no newline): random bytes as text,
 * malformed JSON, JSON of the wrong type, or an object whose fields (from
 * `fields`, the protocol's own names, plus `__proto__` and unknown ones) hold
 * values of the wrong type. Valid requests can come out of it by chance; a
 * server must answer them like any other.
 */
export function fuzzJunkLine(random: FuzzRandom, fields: readonly string[], values: readonly unknown[] = []): string {
  const kind = random();
  if (kind < 0.15) {
    const bytes = Buffer.alloc(1 + Math.floor(random() * 200));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(random() * 256);
    return bytes.toString('latin1').replaceAll('\n', ' ');
  }
  if (kind < 0.4) return pick(random, JUNK_LINES);
  if (kind < 0.5) return JSON.stringify(pick(random, ODD_VALUES)) ?? 'null';
  const names = [...fields, '__proto__', 'constructor', 'prototype', 'unknownField'];
  const pool = [...ODD_VALUES, ...values];
  const entries = Array.from({ length: 1 + Math.floor(random() * 5) }, () => `${JSON.stringify(pick(random, names))}:${JSON.stringify(pick(random, pool)) ?? 'null'}`);
  const text = `{${entries.join(',')}}`;
  // Sometimes cut it short: a partial frame, completed by the newline that follows.
  return random() < 0.1 ? text.slice(0, Math.floor(random() * text.length)) : text;
}

/** What one junk connection saw: the lines the server answered with. */
export interface JunkConnectionReport {
  answers: string[];
}

/**
 * Opens a connection to a Unix socket (or `{ port }` on 127.0.0.1) and sends
 * `lines` junk lines cut at random points into chunks, sometimes with a huge
 * line (`hugeLineLength` characters, no newline) in the middle; then closes
 * gracefully or abruptly (destroy without reading). Resolves when the
 * connection is gone (never rejects: a server that hangs up is fine).
 */
export function sendJunkConnection(
  target: string | { port: number },
  random: FuzzRandom,
  options: { fields: readonly string[]; values?: readonly unknown[]; lines: number; hugeLineLength?: number },
): Promise<JunkConnectionReport> {
  return new Promise((resolve) => {
    const socket = typeof target === 'string' ? connect(target) : connect(target.port, '127.0.0.1');
    const answers: string[] = [];
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > 1024 * 1024) received = received.slice(-4096);
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      answers.push(...received.split('\n').filter((line) => line !== ''));
      resolve({ answers });
    });
    socket.on('connect', () => {
      let text = Array.from({ length: options.lines }, () => `${fuzzJunkLine(random, options.fields, options.values)}\n`).join('');
      if (options.hugeLineLength !== undefined && random() < 0.3) {
        const at = Math.floor(random() * text.length);
        text = `${text.slice(0, at)}${'x'.repeat(options.hugeLineLength)}\n${text.slice(at)}`;
      }
      const bytes = Buffer.from(text, 'utf8');
      // Chunks cut anywhere, UTF-8 characters included.
      for (let from = 0; from < bytes.length; ) {
        const size = 1 + Math.floor(random() * Math.min(bytes.length - from, random() < 0.1 ? 64 * 1024 : 64));
        socket.write(bytes.subarray(from, from + size));
        from += size;
      }
      if (random() < 0.3) socket.destroy();
      else socket.end();
      // A server that keeps the half-open connection: give up on it.
      setTimeout(() => socket.destroy(), 5000).unref();
    });
  });
}

/** Options of {@link fuzzRounds}. */
export interface FuzzRoundsOptions {
  random: FuzzRandom;
  /** The server: a Unix socket path, or `{ port }` on 127.0.0.1. */
  target: string | { port: number };
  /** The protocol's field names, for junk objects that look almost right. */
  fields: readonly string[];
  /** Values worth putting in those fields (the protocol's own words). */
  values?: readonly unknown[];
  /** Sometimes send a line this long (no limit check by default). */
  hugeLineLength?: number;
  /** Stop after this long (ms; default 4000)… */
  durationMs?: number;
  /** …or after this many rounds (default 400), whichever comes first. */
  maxRounds?: number;
  /** The round's valid request: asserts it got its own answer. */
  valid(round: number): Promise<void>;
  /** Checks each line the server answered junk with. */
  checkJunkAnswer?(line: string): void;
}

/**
 * Runs fuzz rounds for a bounded time: each round opens up to 8 junk
 * connections ({@link sendJunkConnection}) and, meanwhile, makes one valid
 * request (which must get its correct answer); then checks what the junk got
 * back. Returns how many rounds ran and how many junk answers came back, for
 * the test to assert the fuzz did something.
 */
export async function fuzzRounds(options: FuzzRoundsOptions): Promise<{ rounds: number; junkAnswers: number }> {
  const { random } = options;
  const deadline = Date.now() + (options.durationMs ?? 4000);
  let rounds = 0;
  let junkAnswers = 0;
  while (Date.now() < deadline && rounds < (options.maxRounds ?? 400)) {
    rounds++;
    const junk = Array.from({ length: 1 + Math.floor(random() * 8) }, () =>
      sendJunkConnection(options.target, random, {
        fields: options.fields,
        lines: 1 + Math.floor(random() * 20),
        ...(options.values !== undefined ? { values: options.values } : {}),
        ...(options.hugeLineLength !== undefined ? { hugeLineLength: options.hugeLineLength } : {}),
      }),
    );
    await options.valid(rounds);
    for (const report of await Promise.all(junk)) {
      junkAnswers += report.answers.length;
      for (const line of report.answers) options.checkJunkAnswer?.(line);
    }
  }
  return { rounds, junkAnswers };
}

/**
 * Sends one line of `length` bytes (`x`, no newline) in `chunkBytes` writes,
 * each after the last was flushed, so the server reads it in many small
 * chunks (the case that made a reader rescanning its whole buffer per chunk
 * quadratic); stops when the server closes. Resolves with the lines the server
 * answered and the number of bytes written, never rejects; gives up after `timeoutMs`.
 */
export function sendHugeLine(
  target: string | { port: number },
  options: { length: number; chunkBytes: number; timeoutMs: number },
): Promise<{ answers: string[]; written: number }> {
  return new Promise((resolve) => {
    const socket = typeof target === 'string' ? connect(target) : connect(target.port, '127.0.0.1');
    const chunk = Buffer.alloc(options.chunkBytes, 'x');
    let received = '';
    let written = 0;
    const timer = setTimeout(() => socket.destroy(), options.timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => (received += text));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answers: received.split('\n').filter((line) => line !== ''), written });
    });
    const writeNext = () => {
      if (socket.destroyed || !socket.writable) return;
      if (written >= options.length) return void socket.end();
      written += chunk.length;
      socket.write(chunk, () => setImmediate(writeNext));
    };
    socket.on('connect', writeNext);
  });
}
