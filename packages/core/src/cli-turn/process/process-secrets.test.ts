import { describe, expect, it } from 'vitest';
import { REDACTED } from '@troupe/core/util';
import { runProcess, type OutputLine } from '@troupe/core/cli-turn';
import { fakeAgentProcessConfig } from '@troupe/core/testing';

// Redaction sits in core's process path: every stdout line (and so every stream part and result built
// from it), `outcome.output`, stderr and error messages, whatever writes the secret and however it is split.

const ENV = {
  MY_SERVICE_PASSWORD: 'hunter2-canary-password',
  ANTHROPIC_API_KEY: 'sk-ant-api03-canaryAAAAAAAAAAAAAAAAAAAA',
  PLAIN_VALUE: 'not-a-secret-at-all',
};
const jsonl = { type: 'jsonl', completionTypes: ['result'] } as const;

async function collect(run: ReturnType<typeof runProcess>) {
  const lines: OutputLine[] = [];
  let stderr = '';
  for await (const line of run) lines.push(line);
  const outcome = await run.outcome;
  await run.exited;
  return { lines, outcome, stderr };
}

describe('secrets are redacted on the stream', () => {
  it('env secrets, a listed secret and key shapes, split across 5-byte writes on stdout and stderr', async () => {
    let stderr = '';
    const run = runProcess(
      fakeAgentProcessConfig(
        {
          expandEnv: true,
          chunkSize: 5,
          stderr: 'warn: password=${env:MY_SERVICE_PASSWORD} key=${env:ANTHROPIC_API_KEY} custom=${env:CUSTOM_VALUE}',
          lines: [
            'plain text line with ${env:MY_SERVICE_PASSWORD} and ${env:CUSTOM_VALUE} and ${env:PLAIN_VALUE}',
            '{"type":"text","text":"key ${env:ANTHROPIC_API_KEY}; github ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123; google AIzaSyDUMMYDUMMYDUMMYDUMMY12; Authorization: Bearer eyJhbGciOi.J9abc123.def456"}',
            '{"type":"result","result":"openai sk-proj-AAAAAAAAAAAAAAAAAAAAAAAA, fine-grained github_pat_11ABCDEFG0123456789_abcdefghij"}',
          ],
        },
        { env: { ...ENV, CUSTOM_VALUE: 'acme-internal-9f8e7d' }, secrets: ['acme-internal-9f8e7d'] },
      ),
      { completion: jsonl, onStderr: (text) => (stderr += text), timeoutMs: 20_000 },
    );
    const { lines, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    const everything = JSON.stringify({ lines, outcome, stderr });
    for (const secret of [ENV.MY_SERVICE_PASSWORD, ENV.ANTHROPIC_API_KEY, 'acme-internal-9f8e7d', 'ghp_ABCDEF', 'AIzaSyDUMMY', 'eyJhbGciOi', 'sk-proj-AAAA', 'github_pat_11']) {
      expect(everything).not.toContain(secret);
    }
    expect(lines[0]?.line).toBe(`plain text line with ${REDACTED} and ${REDACTED} and not-a-secret-at-all`);
    expect(lines[1]?.json).toEqual({
      type: 'text',
      text: `key ${REDACTED}; github ${REDACTED}; google ${REDACTED}; Authorization: Bearer ${REDACTED}`,
    });
    expect(stderr).toBe(`warn: password=${REDACTED} key=${REDACTED} custom=${REDACTED}\n`);
    expect(outcome.stderrTail).toBe(stderr);
    expect(outcome.output.split('\n').filter(Boolean)).toEqual(lines.map((line) => line.line));
  });

  it('a secret with JSON-special characters is found escaped in a JSON line; one outside a string leaves valid JSON', async () => {
    const quoted = 'pa"ss\\word-canary';
    const run = runProcess(
      fakeAgentProcessConfig(
        { expandEnv: true, lines: ['{"type":"text","text":"value ${env:DB_PASSWORD}"}', '{"type":"result","pin":98765432}'] },
        { env: { DB_PASSWORD: quoted }, secrets: ['98765432'] },
      ),
      { completion: jsonl, timeoutMs: 20_000 },
    );
    const { lines, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    expect(lines[0]?.json).toEqual({ type: 'text', text: `value ${REDACTED}` });
    // The bare number became text in the line; the parsed value is the original with the number hidden.
    expect(lines[1]?.line).toBe(`{"type":"result","pin":${REDACTED}}`);
    expect(lines[1]?.json).toEqual({ type: 'result', pin: REDACTED });
    expect(outcome.output).not.toContain('pa\\"ss');
  });

  it('a secret written with \\u escapes (every character, or only the non-ASCII ones) is hidden in the parsed value, the line and the output', async () => {
    const escapeAll = (text: string) => [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const accented = 'pässwörd-canary-4471'; // JSON.dumps(ensure_ascii=True) writes p\u00e4ssw\u00f6rd-canary-4471
    const ascii = JSON.stringify(accented).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).slice(1, -1);
    const github = 'ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123';
    const run = runProcess(
      fakeAgentProcessConfig(
        {
          lines: [
            `{"type":"tool_use","name":"${escapeAll(ENV.MY_SERVICE_PASSWORD)}","input":{"${escapeAll('key')}":"${escapeAll(ENV.ANTHROPIC_API_KEY)}"}}`,
            `{"type":"text","text":"github ${escapeAll(github)}, accented ${ascii}\\nbye"}`,
            `{"type":"result","result":"${escapeAll(ENV.MY_SERVICE_PASSWORD)}"}`,
          ],
        },
        { env: { ...ENV, ACCENTED_PASSWORD: accented } },
      ),
      { completion: jsonl, timeoutMs: 20_000 },
    );
    const { lines, outcome } = await collect(run);
    expect(outcome.status).toBe('completed');
    expect(lines.map((line) => line.json)).toEqual([
      { type: 'tool_use', name: REDACTED, input: { key: REDACTED } },
      { type: 'text', text: `github ${REDACTED}, accented ${REDACTED}\nbye` },
      { type: 'result', result: REDACTED },
    ]);
    // The line and the output are the redacted value, so whoever parses them again finds no secret either.
    expect(lines.map((line) => JSON.parse(line.line) as unknown)).toEqual(lines.map((line) => line.json));
    expect(outcome.output.split('\n').filter(Boolean)).toEqual(lines.map((line) => line.line));
    const decoded = JSON.stringify(outcome.output.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown));
    for (const secret of [ENV.MY_SERVICE_PASSWORD, ENV.ANTHROPIC_API_KEY, accented, github]) expect(decoded).not.toContain(secret);
  });

  it('a secret pattern given in `secrets` is matched too', async () => {
    const run = runProcess(fakeAgentProcessConfig({ lines: ['token acme_0123456789abcdef0123456789abcdef done'] }, { secrets: [/acme_[0-9a-f]{32}/] }));
    const { outcome } = await collect(run);
    expect(outcome.output).toBe(`token ${REDACTED} done\n`);
  });

  it('error messages quote stderr redacted, with the first meaningful lines and the last ones', async () => {
    const script = [
      "console.error('node:internal/modules/cjs/loader:1228');",
      "console.error('  throw err;');",
      "console.error('  ^');",
      "console.error('');",
      "console.error(`Error: Cannot find module '/srv/app/missing.js' (key ${process.env.MY_SERVICE_PASSWORD})`);",
      "for (let i = 0; i < 40; i++) console.error(`    at frame${i} (node:internal/x:${i}:1)`);",
      "console.error('  code: \\'MODULE_NOT_FOUND\\'');",
      "console.error('Node.js v20');",
      'process.exit(1);',
    ].join('\n');
    const outcome = await runProcess({ command: process.execPath, args: ['-e', script], env: ENV }).outcome;
    expect(outcome.status).toBe('failed');
    if (outcome.status !== 'failed') return;
    expect(outcome.error.message).toContain(`Error: Cannot find module '/srv/app/missing.js' (key ${REDACTED})`);
    expect(outcome.error.message).toContain('Node.js v20');
    expect(outcome.error.message).not.toContain(ENV.MY_SERVICE_PASSWORD);
    expect(outcome.error.stderrHead).toContain('Cannot find module');
  });
});
