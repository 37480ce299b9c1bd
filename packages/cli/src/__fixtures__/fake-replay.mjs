// Shared by the fake agent CLIs in ./bin: replays a recorded stdout stream, with ${env:NAME}
// placeholders filled from the environment (JSON-escaped), written in small pieces with pauses
// (so a reader gets a secret in two chunks), and an optional stderr text treated the same way.
import { readFileSync } from 'node:fs';

const CHUNK = 7;

function expand(text, json) {
  return text.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_match, name) => {
    const value = process.env[name] ?? '';
    return json ? JSON.stringify(value).slice(1, -1) : value;
  });
}

async function writeInPieces(stream, text) {
  const bytes = Buffer.from(text, 'utf8');
  for (let offset = 0; offset < bytes.length; offset += CHUNK) {
    if (!stream.write(bytes.subarray(offset, offset + CHUNK))) await new Promise((resolve) => stream.once('drain', resolve));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Prints `file`'s lines (and `stderr`, if any) with the environment's values, in pieces. */
export async function replayWithEnv(file, stderr) {
  if (stderr) await writeInPieces(process.stderr, `${expand(stderr, false)}\n`);
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    await writeInPieces(process.stdout, `${expand(line, true)}\n`);
  }
}
