import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

// Debian's chromium (.ci/run installs it); specs needing it are skipped loudly where it is missing.
export const CHROMIUM = '/usr/bin/chromium';

export function describeWithChromium(spec: string): jest.Describe {
  if (existsSync(CHROMIUM)) return describe;
  process.stderr.write(`${spec}: ${CHROMIUM} not found; skipped\n`);
  return describe.skip;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The provider's pages forbid every script by CSP, which axe-core must bypass. */
export function axeContext(browser: Browser, options: { locale?: string } = {}): Promise<BrowserContext> {
  return browser.newContext({ bypassCSP: true, ...options });
}
