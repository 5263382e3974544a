import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

// Debian's Chromium (apt-get install chromium), driven by playwright-core: no browser download.
// The background-networking flags keep Chromium from dialling out (it would flood refused connections).

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (own storage) at 1280x800. */
  page(opts?: { dark?: boolean; width?: number; height?: number }): Promise<Page>;
  close(): Promise<void>;
}

/** The console the tests look at is the built one (`npm run build`, which `npm test` runs first). */
export function assertConsoleBuilt(): void {
  const index = path.resolve(__dirname, '../../dist/ui/index.html');
  if (!fs.existsSync(index)) throw new Error(`The console is not built (no ${index}): run npm run build first`);
}

export async function startBrowser(): Promise<TestBrowser> {
  assertConsoleBuilt();
  if (!fs.existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`);
  // launch() gives every browser a fresh temporary --user-data-dir of its own.
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ARGS, timeout: 60_000 });
  const contexts: BrowserContext[] = [];
  return {
    browser,
    async page(opts = {}) {
      const ctx = await browser.newContext({ viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 }, colorScheme: opts.dark ? 'dark' : 'light' });
      ctx.setDefaultTimeout(30_000);
      contexts.push(ctx);
      return ctx.newPage();
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => undefined);
      await browser.close();
    },
  };
}

/** Screenshots go to docs/ui (committed, shown in docs/console.md) with SAVE_UI_SCREENSHOTS=1, else to one folder under the temp directory, overwritten each run. */
export const SCREENSHOT_DIR =
  process.env.SAVE_UI_SCREENSHOTS === '1' ? path.resolve(__dirname, '../../docs/ui') : path.join(os.tmpdir(), 'baton-ui-screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`) });
}

// Waits on the page by polling (playwright-core has no expect of its own), with generous limits.

const WAIT_MS = 30_000;

async function until<T>(what: () => string, read: () => Promise<T>, good: (v: T) => boolean): Promise<void> {
  const end = Date.now() + WAIT_MS;
  let last: T | undefined;
  let error: unknown;
  for (;;) {
    try {
      last = await read();
      if (good(last)) return;
    } catch (e) {
      error = e;
    }
    if (Date.now() > end) throw new Error(`${what()} not met within ${WAIT_MS} ms; last: ${JSON.stringify(last)}${error ? ` (${String(error)})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const waitCount = (l: Locator, n: number): Promise<void> =>
  until(
    () => `${l} count ${n}`,
    () => l.count(),
    (c) => c === n,
  );
export const waitAttr = (l: Locator, name: string, value: string): Promise<void> =>
  until(
    () => `${l} [${name}=${value}]`,
    () => l.getAttribute(name, { timeout: 1000 }),
    (v) => v === value,
  );
export const waitText = (l: Locator, text: string): Promise<void> =>
  until(
    () => `${l} contains ${JSON.stringify(text)}`,
    () => l.textContent({ timeout: 1000 }),
    (v) => (v ?? '').includes(text),
  );
export const waitExactText = (l: Locator, text: string): Promise<void> =>
  until(
    () => `${l} text ${JSON.stringify(text)}`,
    () => l.textContent({ timeout: 1000 }),
    (v) => (v ?? '').trim() === text,
  );
