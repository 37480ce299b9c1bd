// The dashboard in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run) driven by
// playwright-core. It opens the page, sees a running Looper's iteration appear within 1 s of the event, queues
// a task from the page and sees the queue change, and reports no console errors. The screenshot goes to
// .ci/out/dashboard.png (a CI artifact).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitSampleActivity, gatedLooper } from './testing/dashboard-test-kit';
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

  it('shows a running Looper live, queues a task from the page, and logs no console error', async () => {
    const live = gatedLooper({ maxIterations: 3 });
    const dashboard = await serveDashboard({ bus: live.bus, store: live.store, looper: live.looper });
    served.push(dashboard);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));

    await page.goto(dashboard.url);
    await page.getByTestId('connection').filter({ hasText: 'live' }).waitFor();
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
});
