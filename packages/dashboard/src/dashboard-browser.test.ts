// The dashboard in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run) driven by
// playwright-core. It opens the page, sees a running Looper's iteration appear within 1 s of the event, queues
// a task from the page and sees the queue change, and reports no console errors. The screenshot goes to
// .ci/out/dashboard.png (a CI artifact). The Workspaces panel lists each workspace and shows its diff on a click,
// as text (a diff holding markup never becomes HTML). The Best-of-N panel shows each attempt's scorecard and the
// winner's diff.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApprovalStore, decideToolUse, deferTo, EventBus, MemoryStore, type ToolUseRequest } from '@troupe/core';
import { emitBestOfNActivity, emitSampleActivity, emitWorkspaceActivity, gatedLooper, sampleDiff } from './testing/dashboard-test-kit';
import { serveDashboard, type ServedDashboard } from './index';

const CHROMIUM = process.env.TROUPE_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`dashboard browser test: SKIPPED — no Chromium at ${CHROMIUM} (install Debian's "chromium" package, as .ci/run does, or set TROUPE_CHROMIUM)`);

const OUT = resolve(import.meta.dirname, '../../../.ci/out');

describe.skipIf(!available)('the dashboard in headless Chromium', () => {
  let context: BrowserContext;
  let profile: string;
  const served: ServedDashboard[] = [];

  beforeAll(async () => {
    profile = mkdtempSync(join(tmpdir(), 'troupe-dashboard-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1400, height: 1000 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    for (const dashboard of served) await dashboard.close();
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  /** Serves a dashboard, opens it in a new page (recording console errors and warnings) and waits for its stream. */
  async function openPage(options: Parameters<typeof serveDashboard>[0]) {
    const dashboard = await serveDashboard(options);
    served.push(dashboard);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.goto(dashboard.url);
    await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor();
    return { page, problems };
  }

  it('shows a running Looper live, queues a task from the page, and logs no console error', async () => {
    const live = gatedLooper({ maxIterations: 3 });
    const { page, problems } = await openPage({ bus: live.bus, store: live.store, looper: live.looper });
    expect(await page.getByTestId('looper-state').textContent()).toBe('IDLE');

    // The iteration appears within 1 s of its event (a bound of the feature, measured from the event).
    let eventAt = 0;
    const seen = new Promise<void>((resolve) => live.bus.once('looper:iteration-started', () => ((eventAt = Date.now()), resolve())));
    live.looper.command({ type: 'start', task: 'Write the tokenizer' });
    await seen;
    await page.getByTestId('iteration').filter({ hasText: 'Write the tokenizer' }).waitFor({ timeout: Math.max(1, 1000 - (Date.now() - eventAt)) });
    expect(await page.getByTestId('looper-state').textContent()).toBe('RUNNING');

    // add_pending from the page: the Looper's queue and the page's list change.
    await live.coderWaiting();
    await page.locator('#pending-task').fill('Add tests for the tokenizer');
    await page.getByTestId('add-pending').click();
    await page.getByTestId('pending-item').filter({ hasText: 'Add tests for the tokenizer' }).waitFor();
    expect(live.looper.getStatus().pending.map((item) => item.task)).toEqual(['Add tests for the tokenizer']);
    await page.getByTestId('reply').waitFor();

    // The run goes on: the step durations and JUDGE's decision show on the timeline.
    live.release('Tokenizer written.');
    await page.getByTestId('iteration').filter({ hasText: /judge/ }).locator('.s-success', { hasText: 'judge' }).first().waitFor();
    await page.getByTestId('auto-stream').getByText('[AUTO]').first().waitFor();

    // The other panels: agent tree, team conversation, pipeline Gantt chart, tokens and cost per agent.
    emitSampleActivity(live.bus, Date.now() - 1000);
    await page.getByTestId('agents').locator('ul ul [data-testid=agent]').filter({ hasText: 'main/2' }).waitFor();
    await page.getByTestId('team-message').filter({ hasText: 'the printer needs tests' }).waitFor();
    expect(await page.getByTestId('batch').count()).toBe(2);
    expect(await page.locator('.gantt .bar').count()).toBe(4);
    expect(await page.getByTestId('usage-row').count()).toBe(2);

    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard.png'), fullPage: true });
    live.looper.command({ type: 'stop', now: true });
    await live.looper.whenIdle();
    await page.close();
    expect(problems).toEqual([]);
  });

  it('lists workspaces with branch, commits, state and diffstat, and shows a diff on a click', async () => {
    const bus = new EventBus();
    const { page, problems } = await openPage({ bus });
    emitWorkspaceActivity(bus);
    const rows = page.getByTestId('workspace');
    await rows.filter({ hasText: 'troupe/team-carol-c1' }).getByTestId('workspace-state').filter({ hasText: 'removed' }).waitFor();
    const alice = rows.filter({ hasText: 'troupe/team-alice-c1' });
    expect(await alice.textContent()).toContain('alice');
    expect(await alice.textContent()).toContain('01234567 → fedcba98');
    expect(await alice.getByTestId('workspace-state').textContent()).toBe('finished');
    expect((await alice.getByTestId('workspace-diffstat').textContent())?.replace(/\s+/g, ' ').trim()).toBe('notes.md +2 -0 1 file(s) +2 -0');
    const bob = rows.filter({ hasText: 'troupe/team-bob-c1' });
    expect(await bob.getByTestId('workspace-state').textContent()).toBe('escaped');
    expect(await bob.textContent()).toContain('stray.txt');
    expect(await bob.textContent()).toContain('logo.png +bin -bin');

    await alice.click();
    const diff = page.getByTestId('workspace-diff');
    await diff.waitFor();
    expect(await diff.textContent()).toBe(sampleDiff('notes.md', ['first', 'second']));
    expect(await page.getByTestId('workspace-diff-truncated').count()).toBe(0);
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard-workspaces.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  });

  it('shows a diff holding markup as text, never as HTML, and says when it was truncated', async () => {
    const bus = new EventBus();
    const { page, problems } = await openPage({ bus });
    const hostile = sampleDiff('index.html', ['<script>window.__pwned = 1</script>', '<img src=x onerror="window.__pwned = 2">', '</pre><b id="injected">bold</b>']);
    emitWorkspaceActivity(bus, { aliceDiff: hostile, aliceDiffTruncated: true });
    await page.getByTestId('workspace').filter({ hasText: 'troupe/team-alice-c1' }).click();
    const diff = page.getByTestId('workspace-diff');
    await diff.waitFor();
    expect(await diff.textContent()).toBe(hostile);
    expect(await diff.locator('script, img, b').count()).toBe(0);
    expect(await page.locator('#injected').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.getByTestId('workspace-diff-truncated').textContent()).toContain('diff truncated');
    await page.close();
    expect(problems).toEqual([]);
  });

  it("shows a best-of-N run's attempts live with their scorecards, the winner, the judge's reasons and the winner's diff", async () => {
    const bus = new EventBus();
    const { page, problems } = await openPage({ bus });
    emitBestOfNActivity(bus, { finish: false });
    const panel = page.getByTestId('best-of-n');
    const rows = panel.getByTestId('bon-attempt');
    await rows.filter({ hasText: 'gemini-1' }).getByTestId('bon-attempt-state').filter({ hasText: 'running' }).waitFor();
    expect(await panel.getByTestId('bon-run-state').textContent()).toBe('running');

    // The attempts finish, the judge picks claude-1, the winner's workspace is kept with its diff.
    const hostile = sampleDiff('src/dates.ts', ['fixed', '<img src=x onerror="window.__pwned = 3">']);
    emitBestOfNActivity(bus, { winnerDiff: hostile });
    await panel.getByTestId('bon-run-state').filter({ hasText: 'finished' }).waitFor();
    expect(await panel.getByTestId('bon-winner').textContent()).toBe('claude-1');
    const cells = async (id: string) => (await rows.filter({ hasText: id }).locator('td').allTextContents()).map((cell) => cell.replace(/\s+/g, ' ').trim());
    expect(await cells('claude-1')).toEqual(['claude-1 winner', 'claude', 'passed', 'pass', '1,500', '$0.0123', '4.2 s', '1 file(s) +2 -0', 'Smallest diff that passes; keeps the parser pure.']);
    expect(await cells('codex-1')).toEqual(['codex-1', 'codex', 'failed', 'fail (exit 1)', '2,500', '$0.0200', '1 m 05 s', '2 file(s) +10 -3', 'codex-1 did not pass.']);
    expect(await cells('gemini-1')).toEqual(['gemini-1', 'gemini', 'error', '—', '0', '$0.0000', '900 ms', '0 file(s) +0 -0', 'gemini-1 did not pass.gemini exited with code 1']);
    expect(await panel.getByTestId('bon-winner-mark').count()).toBe(1);

    await panel.getByTestId('bon-show-diff').click();
    const diff = panel.getByTestId('workspace-diff');
    await diff.waitFor();
    expect(await diff.textContent()).toBe(hostile);
    expect(await diff.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'dashboard-best-of-n.png'), fullPage: true });
    await page.close();
    expect(problems).toEqual([]);
  });

  it('lists deferred tool calls with Allow and Deny: Allow lets the waiting call run, Deny (with its reason) refuses it', async () => {
    const approvals = new ApprovalStore(new MemoryStore(), { pollMs: 10 });
    const request = (id: string, command: string): ToolUseRequest => ({ id, agent: 'coder', adapter: 'claude', tool: 'Bash', kind: 'execute', input: { command }, target: command, signal: new AbortController().signal });
    const defer = () => ({ behavior: 'defer' as const, reason: 'shell needs a human' });
    const push = decideToolUse(request('toolu_1', 'git push'), { canUseTool: defer, ...deferTo(approvals) });
    const wipe = decideToolUse(request('toolu_2', 'rm -rf build'), { canUseTool: defer, ...deferTo(approvals) });
    const { page, problems } = await openPage({ bus: new EventBus(), approvals });
    const rows = page.getByTestId('approval');
    await rows.filter({ hasText: 'rm -rf build' }).waitFor();
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: 'git push' }).textContent()).toContain('shell needs a human');
    expect(await rows.filter({ hasText: 'rm -rf build' }).getByTestId('approval-deny').isDisabled()).toBe(true); // a denial needs a reason

    await rows.filter({ hasText: 'git push' }).getByTestId('approval-allow').click();
    expect(await push).toMatchObject({ behavior: 'allow', record: { decidedBy: 'approval' } });
    const wipeRow = rows.filter({ hasText: 'rm -rf build' });
    await wipeRow.getByLabel('reason').fill('not on main');
    await wipeRow.getByTestId('approval-deny').click();
    expect(await wipe).toMatchObject({ behavior: 'deny', message: 'The tool call was refused by dashboard: not on main' });
    await page.getByTestId('approvals').filter({ hasText: 'No tool call is waiting' }).waitFor();
    expect(await page.getByTestId('approval-reply').textContent()).toMatch(/^Denied ap-/);
    await page.close();
    expect(problems).toEqual([]);
  });
});
