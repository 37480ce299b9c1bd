import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's `chromium` (installed by .ci/run), or `TROUPE_CHROMIUM`. */
export const CHROMIUM = process.env.TROUPE_CHROMIUM ?? '/usr/bin/chromium';

/** Why the browser tests cannot run here, or undefined when Chromium is there. */
export const chromiumMissing: string | undefined = existsSync(CHROMIUM)
  ? undefined
  : `no Chromium at ${CHROMIUM} (install Debian's "chromium" package, as .ci/run does, or set TROUPE_CHROMIUM)`;

/** Headless Chromium with nothing of its own on the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
}

/**
 * Opens a report file offline: every request that is not for a file is refused and listed in `requests`; console
 * errors, warnings and page errors are listed in `problems` (a report that works offline leaves both empty).
 */
export async function openReportOffline(browser: Browser, file: string): Promise<{ page: Page; problems: string[]; requests: string[] }> {
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
  return { page, problems, requests };
}
