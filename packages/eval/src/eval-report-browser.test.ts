// The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run) driven by
// playwright-core, as the dashboard's browser test does. The page is opened from a file with every network request
// refused; it must render both charts and log no console error.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEvalReport, evalReportHtml } from './index';
import { handWorkedRun } from './testing/eval-test-kit';

const CHROMIUM = process.env.TROUPE_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`eval report browser test: SKIPPED — no Chromium at ${CHROMIUM} (install Debian's "chromium" package, as .ci/run does, or set TROUPE_CHROMIUM)`);

const OUT = resolve(import.meta.dirname, '../../../.ci/out');

describe.skipIf(!available)('the HTML eval report in headless Chromium', () => {
  let browser: Browser;
  let folder: string;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'troupe-eval-report-'));
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('renders the pass-rate whiskers and the cost chart offline, with no console error', async () => {
    const report = buildEvalReport(handWorkedRun(), { name: 'browser', createdAt: new Date('2026-11-27T09:00:00Z') });
    const file = join(folder, 'report.html');
    writeFileSync(file, evalReportHtml(report));
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const problems: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:')) return route.continue();
      requests.push(url);
      return route.abort();
    });
    await page.goto(pathToFileURL(file).href);
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
