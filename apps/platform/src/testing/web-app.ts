import { type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';

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
