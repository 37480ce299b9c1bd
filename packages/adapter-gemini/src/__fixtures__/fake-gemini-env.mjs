#!/usr/bin/env node
// A stand-in for `gemini -o stream-json` that reports how it was started: its
// argv, cwd, the Gemini-related environment and the content of the file named
// by GEMINI_SYSTEM_MD, as the assistant message of one successful turn.
import { readFileSync } from 'node:fs';

const names = [
  'HOME', 'GEMINI_CLI_HOME', 'TMPDIR', 'GOOGLE_GEMINI_BASE_URL', 'GEMINI_API_KEY', 'GEMINI_CLI_NO_RELAUNCH',
  'GEMINI_TELEMETRY_ENABLED', 'GEMINI_SYSTEM_MD', 'TROUPE_TEST_ENV',
];
const env = Object.fromEntries(names.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]]));
const systemMdPath = process.env.GEMINI_SYSTEM_MD;
let systemMd = null;
if (systemMdPath) {
  try {
    systemMd = readFileSync(systemMdPath, 'utf8');
  } catch (error) {
    systemMd = `unreadable: ${error.code}`;
  }
}
const report = { argv: process.argv.slice(2), cwd: process.cwd(), env, systemMd };
const now = () => new Date().toISOString();
const lines = [
  { type: 'init', timestamp: now(), session_id: 'fake-session-1', model: 'gemini-2.5-flash' },
  { type: 'message', timestamp: now(), role: 'assistant', content: JSON.stringify(report), delta: true },
  { type: 'result', timestamp: now(), status: 'success', stats: { total_tokens: 2, input_tokens: 1, output_tokens: 1, cached: 0 } },
];
process.stdout.write(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
