// Issue 33's real-CLI "Done when": a small eval — two starter tasks, the REAL Claude Code, Codex and Gemini CLIs (the
// adapter packages' pinned devDependencies) against the in-repo fake API, modes `single` and `looper` — runs end to
// end and writes the JSON, Markdown and HTML reports; the HTML report renders in headless Chromium with no console
// error. The fake API is scripted, as each turn's CLI process starts (its working folder known then), to answer with
// that CLI's own file tool editing the task's file to the reference solution: in `single` only for the first task,
// in `looper` (the Coder's turn) for both. Part of `pnpm test`; `pnpm test:unit` (TROUPE_SKIP_INT=1) leaves it out.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createClaudeCodeAdapter } from '@troupe/adapter-claude';
import { createCodexAdapter } from '@troupe/adapter-codex';
import { createGeminiCliAdapter } from '@troupe/adapter-gemini';
import type { AgentAdapter } from '@troupe/core';
import { wrapAgentAdapter } from '@troupe/core/testing';
import { createFakeLlmServer, findRealCli, type FakeLlmServer, type FakeProtocol, type FakeToolCall } from '@troupe/test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvalReport, createLooperEvalMode, evalReportHtml, evalReportMarkdown, evalReportSchema, loadEvalSuite, runEval, type EvalTrialKey } from './index';
import { chromiumMissing, launchChromium, openReportOffline } from './testing/eval-report-page';

type CliName = 'claude' | 'codex' | 'gemini';
const CLIS: readonly CliName[] = ['claude', 'codex', 'gemini'];
const PROTOCOL: Record<CliName, FakeProtocol> = { claude: 'anthropic', codex: 'openai-responses', gemini: 'gemini' };
const STARTER = join(import.meta.dirname, '..', 'suites', 'starter');
const OUT = resolve(import.meta.dirname, '../../../.ci/out');

const real = Object.fromEntries(CLIS.map((cli) => [cli, findRealCli(cli)])) as Record<CliName, ReturnType<typeof findRealCli>>;
const missing = [
  ...CLIS.flatMap((cli) => {
    const found = real[cli];
    return 'missing' in found ? [`${cli}: ${found.missing}`] : [];
  }),
  ...(chromiumMissing !== undefined ? [chromiumMissing] : []),
];
const skipWhy = process.env.TROUPE_SKIP_INT ? 'TROUPE_SKIP_INT is set (pnpm test:unit leaves out the real-CLI tests)' : missing.join('; ');
if (skipWhy) console.warn(`[real CLI] SKIPPED the eval of the real Claude Code, Codex and Gemini CLIs: ${skipWhy}`);

/** Each task's one-line fix: the file, the line the starting file has, the line of the reference solution. */
const EDITS: Record<string, { file: string; from: string; to: string }> = {
  'fix-sum-off-by-one': { file: 'sum.mjs', from: '  for (let i = 0; i < numbers.length - 1; i++) total += numbers[i];', to: '  for (let i = 0; i < numbers.length; i++) total += numbers[i];' },
  'feature-fizzbuzz': {
    file: 'fizzbuzz.mjs',
    from: "  throw new Error('not implemented');",
    to: "  return Array.from({ length: n }, (_, i) => ((i + 1) % 15 === 0 ? 'FizzBuzz' : (i + 1) % 3 === 0 ? 'Fizz' : (i + 1) % 5 === 0 ? 'Buzz' : String(i + 1)));",
  },
};
const TASKS = Object.keys(EDITS);

/** The tool calls, one per request, with which the CLI's own file tools replace `from` by `to` (Claude Code reads a file before it edits it). */
function editCalls(cli: CliName, path: string, from: string, to: string): FakeToolCall[] {
  if (cli === 'claude') return [{ name: 'Read', arguments: { file_path: path } }, { name: 'Edit', arguments: { file_path: path, old_string: from, new_string: to } }];
  if (cli === 'codex') return [{ name: 'apply_patch', arguments: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${from}\n+${to}\n*** End Patch\n` }];
  return [{ name: 'replace', arguments: { file_path: path, old_string: from, new_string: to, instruction: 'Apply the fix.' } }];
}

let server: FakeLlmServer;
let scratch: string;

beforeAll(async () => {
  if (skipWhy) return;
  server = await createFakeLlmServer({ scenario: 'text' });
  scratch = mkdtempSync(join(tmpdir(), 'troupe-eval-int-'));
});
afterAll(async () => {
  await server?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 5 });
});

/** The CLI's Troupe adapter: the fake API, a private HOME and TMPDIR, allowed to edit files in its working directory. */
function adapterFor(cli: CliName): AgentAdapter {
  const found = real[cli] as { command: string };
  const home = join(scratch, cli, 'home');
  const tmpDir = join(scratch, cli, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  const common = { command: found.command, baseUrl: server.url, home, tmpDir, permissionMode: 'auto-edit' as const };
  if (cli === 'claude') return createClaudeCodeAdapter({ ...common, apiKey: 'sk-ant-fake-eval-000', maxRetries: 0 });
  if (cli === 'codex') return createCodexAdapter({ ...common, apiKey: 'sk-fake-eval-000', codexHome: join(home, '.codex'), requestMaxRetries: 0, streamMaxRetries: 0 });
  return createGeminiCliAdapter({ ...common, apiKey: 'fake-gemini-eval-key', maxAttempts: 1 });
}

/** Whether the trial's agent fixes its task: in `single` the first task only, in `looper` (the Coder) both. */
const fixes = (trial: EvalTrialKey) => trial.mode === 'looper' || trial.task === TASKS[0];

/**
 * The trial's agent: the real CLI, whose turn (when it is one that fixes the task) has the fake API answer its
 * first requests with its edit of the task's file in the turn's own folder. Trials run one at a time, so each
 * CLI's queue on its own protocol holds only the turn that is starting.
 */
function scriptedAgent(cli: CliName) {
  return (trial: EvalTrialKey): AgentAdapter => {
    const adapter = adapterFor(cli);
    return wrapAgentAdapter(adapter, {
      async getProcessConfig(member, workDir, context) {
        const edit = EDITS[trial.task]!;
        const review = context?.roleId?.endsWith('-review') === true;
        if (!review && fixes(trial) && workDir) for (const call of editCalls(cli, join(workDir, edit.file), edit.from, edit.to)) server.enqueue(PROTOCOL[cli], { toolCalls: [call] });
        return adapter.getProcessConfig(member, workDir, context);
      },
    });
  };
}

describe.skipIf(Boolean(skipWhy))('an eval of the real Claude Code, Codex and Gemini CLIs', () => {
  it('runs two starter tasks in modes single and looper, writes the three reports, and the HTML renders in Chromium', { timeout: 600_000 }, async () => {
    const full = await loadEvalSuite(STARTER);
    const tasks = full.tasks.filter((task) => TASKS.includes(task.id));
    expect(tasks.map((task) => task.id).sort()).toEqual([...TASKS].sort());
    const startedAt = performance.now();
    const run = await runEval({
      suite: { ...full, tasks },
      agents: CLIS.map((cli) => ({ id: cli, agent: scriptedAgent(cli) })),
      // One round: the Review (its plain answer is no report, so the rule policy takes it as a warning) ends the run.
      modes: ['single', createLooperEvalMode({ maxRounds: 1 })],
      trials: 1,
      concurrency: 1,
    });
    const evalMs = performance.now() - startedAt;
    const report = buildEvalReport(run, { name: 'real CLIs' });
    const folder = join(scratch, 'report');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'report.json'), JSON.stringify(report, null, 2));
    writeFileSync(join(folder, 'report.md'), evalReportMarkdown(report));
    writeFileSync(join(folder, 'report.html'), evalReportHtml(report));
    console.info(
      `[eval real CLIs] ${run.records.length} trials in ${Math.round(evalMs)} ms; ${run.records
        .map((record) => `${record.task}/${record.agent}/${record.mode} ${record.status} ${record.turns} turns ${record.inputTokens}+${record.outputTokens} tokens $${record.costUsd ?? '?'} ${record.wallMs} ms`)
        .join('; ')}`,
    );

    // Every trial ran its real CLI to completion and was judged as scripted: single fixes the first task only.
    for (const record of run.records) {
      const what = JSON.stringify({ ...record, diff: record.diff.slice(0, 400) });
      expect(record.agentStatus, what).toBe('completed');
      expect(record.status, what).toBe(fixes(record) ? 'pass' : 'fail');
      expect(record.turns, what).toBe(record.mode === 'looper' ? 2 : 1);
      if (record.mode === 'looper') expect(record.rounds, what).toBe(1);
      // Each CLI reports its usage (the fake API's counts), in the trial's ledger.
      expect(record.inputTokens, what).toBeGreaterThan(0);
      expect(record.outputTokens, what).toBeGreaterThan(0);
      if (fixes(record)) expect(record.diff, what).toContain(`+${EDITS[record.task]!.to}`);
      else expect(record.diff, what).toBe('');
    }
    for (const cli of CLIS) {
      expect(report.configurations.find((c) => c.id === `${cli}/single`)).toMatchObject({ passes: 1, judged: 2, passRate: 0.5 });
      expect(report.configurations.find((c) => c.id === `${cli}/looper`)).toMatchObject({ passes: 2, judged: 2, passRate: 1 });
      // single vs looper: both pass the first task; only the Looper the second.
      expect(report.comparisons.find((c) => c.first === `${cli}/single` && c.second === `${cli}/looper`)).toMatchObject({ pairs: 2, bothPass: 1, onlyFirst: 0, onlySecond: 1, bothFail: 0, pValue: 1 });
    }
    expect(evalReportSchema.parse(JSON.parse(readFileSync(join(folder, 'report.json'), 'utf8')))).toEqual(report);
    expect(readFileSync(join(folder, 'report.md'), 'utf8')).toContain('| claude/looper | 100.0% |');

    // The HTML report, offline in headless Chromium: both charts drawn, no console error, no request.
    const browser = await launchChromium();
    try {
      const { page, problems, requests } = await openReportOffline(browser, join(folder, 'report.html'));
      await page.getByTestId('pass-rate-chart').waitFor();
      expect(await page.getByTestId('pass-rate-row').count()).toBe(6);
      expect((await page.getByTestId('pass-rate-chart').boundingBox())!.width).toBeGreaterThan(300);
      // A point per configuration whose cost is known (Codex's pinned model has no price: its cost is unknown).
      expect(await page.getByTestId('cost-point').count()).toBe(report.configurations.filter((c) => c.costUsd !== null).length);
      expect(await page.getByTestId('cost-point').count()).toBeGreaterThan(0);
      mkdirSync(OUT, { recursive: true });
      await page.screenshot({ path: join(OUT, 'eval-real-clis.png'), fullPage: true });
      expect(problems).toEqual([]);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
