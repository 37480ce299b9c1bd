// Troupe's main demo: the Looper (Coder → Review → JUDGE) adds a sum function and its tests to a copy of a
// sample project, run through the `troupe` command line.
//
// Real agents when `troupe doctor` finds an agent CLI with credentials (and a model API key for JUDGE);
// otherwise OFFLINE: a fake Coder CLI replays a recorded Claude Code session that applies a prepared patch,
// the Review really runs `node --test` in the workspace, and JUDGE applies its rule policy. No network.
//
// Usage: pnpm demo [--offline]
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { detectEnvironment, runCli } from 'troupe';

const TASK = 'Add a sum function in sum.js (sum(numbers) returns the total of a list of numbers) and tests for it in sum.test.js using node:test.';
const here = fileURLToPath(new URL('..', import.meta.url));
const forceOffline = process.argv.includes('--offline') || process.env.TROUPE_DEMO_OFFLINE === '1';
const started = Date.now();

const environment = await detectEnvironment();
const offline = forceOffline || environment.demo.mode === 'offline';
const rule = '─'.repeat(72);
console.log(rule);
if (offline) {
  console.log('Troupe demo — OFFLINE MODE (no agent CLI or API is called)');
  console.log('  Coder : fake `claude` replaying a recorded Claude Code session that applies a prepared patch');
  console.log('  Review: runs `node --test` in the workspace and reports health from the results');
  console.log('  JUDGE : rule policy (no model)');
  console.log(forceOffline ? '  (offline on request)' : '  Why offline: ' + environment.demo.reasons.filter((reason) => reason.startsWith('Coder')).join(' '));
  console.log('  For real agents: install and log in to claude, codex or gemini, then run `troupe doctor`.');
} else {
  console.log(`Troupe demo — REAL AGENTS`);
  for (const reason of environment.demo.reasons) console.log(`  ${reason}`);
}
console.log(rule);

// A fresh copy of the sample project.
const workspace = mkdtempSync(join(tmpdir(), 'troupe-demo-'));
cpSync(join(here, 'sample-workspace'), workspace, { recursive: true });
if (offline) process.env.PATH = `${join(here, 'fake-coder')}${delimiter}${process.env.PATH ?? ''}`;

const coder = offline ? 'claude' : (environment.demo.coder as string);
const args = [
  'looper',
  '--workspace', workspace,
  '--newsession',
  '--coder', coder,
  '--reviewer', 'tests',
  '--max-iterations', '4',
  ...(offline || environment.demo.judge === 'rules' ? ['--judge', 'rules'] : ['--model', environment.demo.judge]),
  '-p', JSON.stringify({ type: 'start', task: TASK }),
];
console.log(`Workspace: ${workspace} (a copy of examples/looper-demo/sample-workspace)`);
console.log(`$ troupe ${args.map((arg) => (/^[\w./:=@-]+$/.test(arg) ? arg : `'${arg}'`)).join(' ')}\n`);

const code = await runCli(args);

console.log(`\n${rule}`);
for (const file of ['sum.js', 'sum.test.js']) {
  try {
    console.log(`${file}:\n${readFileSync(join(workspace, file), 'utf8').trimEnd()}\n`);
  } catch {
    console.log(`${file}: (not written)\n`);
  }
}
console.log(`Done in ${((Date.now() - started) / 1000).toFixed(1)}s (exit code ${code}). The workspace stays at ${workspace}, its session in .troupe/.`);
console.log(`Ask the Looper about it: troupe looper --workspace ${workspace} -p '{"type":"status"}'`);
console.log('(from this repository: npx -y pnpm@10.34.9 troupe looper …)');
process.exitCode = code;
