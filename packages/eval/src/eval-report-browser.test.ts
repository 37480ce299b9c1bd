// The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run) driven by
// playwright-core, as the dashboard's browser test does. The page is opened from a file with every network request
// refused; it must render both charts and log no console error.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvalReport, evalReportHtml } from './index';
import { chromiumMissing, launchChromium, openReportOffline } from './testing/eval-report-page';
import { handWorkedRun } from './testing/eval-test-kit';

const available = chromiumMissing === undefined;
if (!available) console.warn(`eval report browser test: SKIPPED — ${chromiumMissing}`);

const OUT = resolve(import.meta.dirname, '../../../.ci/out');

describe.skipIf(!available)('the HTML eval report in headless Chromium', () => {
  let browser: Browser;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'troupe-eval-report-'));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('renders the pass-rate whiskers and the cost chart offline, with no console error', async () => {
    const report = buildEvalReport(handWorkedRun(), { name: 'browser', createdAt: new Date('2026-11-27T09:00:00Z') });
    const file = join(folder, 'report.html');
    writeFileSync(file, evalReportHtml(report));
    const { page, problems, requests } = await openReportOffline(browser, file);
    await page.getByTestId('pass-rate-chart').waitFor();
    // One row per configuration; A's whisker spans its Wilson interval, [30.06%, 95.44%] of the 440 px axis from x = 180.
    const rows = page.getByTestId('pass-rate-row');
    expect(await rows.count()).toBe(2);
    const whisker = rows.first().locator('line.whisker');
    expect(Number(await whisker.getAttribute('x1'))).toBeCloseTo(180 + 0.300642 * 440, 1);
    expect(Number(await whisker.getAttribute('x2'))).toBeCloseTo(180 + 0.954413 * 440, 1);
    const box = await page.getByTestId('pass-rate-chart').boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(await page.getByTestId('cost-point').count()).toBe(2);
    // The diff holding markup is shown as text, never run.
    await page.locator('details').first().click();
    expect(await page.locator('pre').first().textContent()).toContain('<script>alert("x")</script>');
    mkdirSync(OUT, { recursive: true });
    await page.screenshot({ path: join(OUT, 'eval-report.png'), fullPage: true });
    expect(problems).toEqual([]);
    expect(requests).toEqual([]);
  });
});
