import { type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { PageDocument, PageMutationObserver } from './page-globals';

declare const document: PageDocument;
declare const window: object;
declare const MutationObserver: PageMutationObserver;

/** A new browser context signed in to the web app at `base` through the login page, at the composer. */
export async function signInToWebApp(
  browser: Browser,
  base: string,
  user: { login: string; password: string },
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  await page.goto(`${base}/`);
  await page.getByLabel('E-mail address or username').fill(user.login);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Message', { exact: true }).waitFor();
  return { context, page };
}

/** Sends a message from the composer. */
export async function ask(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message', { exact: true }).fill(text);
  await page.getByLabel('Message', { exact: true }).press('Enter');
}

/** Fills and submits the platform's login form by its fields' ids, in whatever language the page is. */
export async function submitLoginForm(page: Page, user: { login: string; password: string }): Promise<void> {
  await page.locator('#login').fill(user.login);
  await page.locator('#password').fill(user.password);
  await page.locator('#password').press('Enter');
}

/** The page's `<html lang dir>`. */
export function htmlLangDir(page: Page): Promise<[string, string]> {
  return page.evaluate(() => [document.documentElement.lang, document.documentElement.dir] as [string, string]);
}

/**
 * Presses Tab (or Shift+Tab) until the focused element matches `selector`, as a keyboard user moves; nothing
 * is pressed when it already has the focus. Fails after `limit` presses.
 */
export async function tabTo(
  page: Page,
  selector: string,
  { backwards = false, limit = 80 }: { backwards?: boolean; limit?: number } = {},
): Promise<void> {
  const focused = () => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
  for (let pressed = 0; !(await focused()); pressed++) {
    if (pressed >= limit)
      throw new Error(`${selector} not focused after ${limit} presses of ${backwards ? 'Shift+Tab' : 'Tab'}`);
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
}

/**
 * Records every value `aria-busy` takes on the chat's log region from now on (the first entry is its value now);
 * the returned function reads them.
 */
export async function recordLogBusy(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const log = document.querySelector('[role="log"]');
    if (!log) throw new Error('no role="log" region on the page');
    const values = [log.getAttribute('aria-busy') ?? ''];
    (window as unknown as { logBusy: string[] }).logBusy = values;
    // Each record's old value is the one before it, so a quick true-then-false within one batch is still seen.
    new MutationObserver((records) => {
      for (const record of records) {
        if (record.oldValue !== values[values.length - 1]) values.push(record.oldValue ?? '');
      }
      const now = log.getAttribute('aria-busy') ?? '';
      if (now !== values[values.length - 1]) values.push(now);
    }).observe(log, { attributes: true, attributeFilter: ['aria-busy'], attributeOldValue: true });
  });
  return () => page.evaluate(() => (window as unknown as { logBusy: string[] }).logBusy);
}
