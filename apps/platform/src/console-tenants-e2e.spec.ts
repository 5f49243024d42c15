import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { type ProcessHandle, buildDist, buildWeb, cleanEnv, freePort, startProcess } from '@fed/testing';
import {
  type UpstreamProvider,
  axeContext,
  describeWithChromium,
  expectNoAxeViolations,
  launchChromium,
  startUpstreamProvider,
} from '@fed/sign-in/testing';
import { type DemoCredentials } from './demo-realm';
import type { PageDocument } from './testing/page-globals';
import { htmlLangDir, signInToWebApp, submitLoginForm, tabTo } from './testing/web-app';

declare const document: PageDocument;

const main = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const PASSWORD = 'a long passphrase for the console';

interface ListedTenant {
  tenantId: string;
  name: string;
  type: string;
  endpoint: string;
  enabled: boolean;
  userCount: number;
  hasIdentityProvider: boolean;
}

interface ListedKey {
  kid: string;
  state: string;
}

const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

/**
 * Issue 38, "The screens: tenants" and "signing keys": the demo administrator of `npm start` (a platform operator)
 * manages tenants, their identity providers (with a real upstream OpenID provider and a test sign-in in a window of
 * its own) and the provider's signing keys in the console.
 */
describeWithChromium('console-tenants-e2e.spec')('the console: tenants and signing keys', () => {
  let dataDir: string;
  let base: string;
  let platform: ProcessHandle;
  let browser: Browser;
  let demo: DemoCredentials;
  let upstream: UpstreamProvider;

  async function platformctl(args: string[]): Promise<string> {
    const handle = startProcess(cli, args, cleanEnv({ DATA_DIR: dataDir }));
    const code = await handle.exited(60_000);
    if (code !== 0) throw new Error(`platformctl ${args.join(' ')}: ${code}\n${handle.output()}`);
    return handle.output();
  }

  /** Records the bearer token the page sends to the admin API (the latest one). */
  function captureToken(page: Page): () => string {
    let token: string | undefined;
    page.on('request', (request) => {
      const header = request.headers()['authorization'];
      if (header?.startsWith('Bearer ') && new URL(request.url()).pathname.startsWith('/api/v1/')) token = header;
    });
    return () => {
      if (!token) throw new Error('no bearer token seen yet');
      return token;
    };
  }

  async function api<T>(token: string, route: string): Promise<{ status: number; body: T }> {
    const response = await fetch(`${base}${route}`, { headers: { authorization: token } });
    return { status: response.status, body: (await response.json()) as T };
  }

  // What the database holds, read through the API (not the screen).
  async function tenantNamed(token: string, name: string): Promise<ListedTenant | undefined> {
    const { body } = await api<{ tenants: ListedTenant[] }>(
      token,
      `/api/v1/admin/tenants?search=${encodeURIComponent(name)}`,
    );
    return body.tenants.find((tenant) => tenant.name === name);
  }

  async function signingKeys(token: string): Promise<ListedKey[]> {
    return (await api<{ signingKeys: ListedKey[] }>(token, '/api/v1/admin/signing-keys')).body.signingKeys;
  }

  /** The kids of the JWKS at the issuer's jwks_uri, found through its discovery document. */
  async function publishedKids(token: string): Promise<string[]> {
    const issuer = String(claimsOf(token.slice('Bearer '.length)).iss);
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      jwks_uri: string;
    };
    const jwks = (await (await fetch(discovery.jwks_uri, { cache: 'no-store' })).json()) as { keys: { kid: string }[] };
    return jwks.keys.map((key) => key.kid);
  }

  beforeAll(async () => {
    buildDist();
    buildWeb();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-console-tenants-'));
    const port = await freePort();
    // 127.0.0.1, while the upstream provider is at localhost: two hosts, so the two providers' cookies stay apart.
    base = `http://127.0.0.1:${port}`;
    platform = startProcess(main, [], cleanEnv({ PORT: String(port), PUBLIC_URL: base, DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
    const realm = path.join(dataDir, 'console-tenants.json');
    writeFileSync(
      realm,
      JSON.stringify({
        realm: 'federation',
        users: [
          // The tenant's administrator, not a platform operator.
          { email: 'tara@example.com', username: 'tara', displayName: 'Tara', role: 'admin', password: PASSWORD },
          { email: 'hal@example.com', username: 'hal', displayName: 'Hal', password: PASSWORD },
        ],
      }),
    );
    await platformctl(['realm', 'import', realm]);
    upstream = await startUpstreamProvider({
      redirectUri: `${base}/federation/auth/v1/idp/callback`,
      accounts: { uma: { name: 'Uma Upstream', email: 'uma@globex.example', email_verified: true } },
    });
    browser = await launchChromium();
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await upstream?.stop();
    platform?.child.kill('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a tenant (a bad endpoint refused), edits it, sets its identity provider, tests it, and signs in through it in a window of its own', async () => {
    // CSP bypassed for axe (below, on the provider's report).
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en', bypassCSP: true });
    // The upstream's development login page imports a web font: not needed here.
    await context.route('https://fonts.googleapis.com/**', (route) => route.abort());
    const token = captureToken(page);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Tenants' }).click();
    await page.getByRole('heading', { name: 'Tenants', level: 2 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/tenants');

    const create = page.getByRole('region', { name: 'Create a tenant' });
    await create.getByLabel('Name').fill('globex');
    await create.getByLabel('Endpoint').fill('not a url');
    await create.getByRole('button', { name: 'Create' }).click();
    await create.getByRole('alert').getByText('(invalid_parameter)').waitFor();
    expect(await tenantNamed(token(), 'globex')).toBeUndefined();
    await create.getByLabel('Endpoint').fill('https://globex.example');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Tenant globex created.').waitFor();
    expect(await tenantNamed(token(), 'globex')).toMatchObject({
      type: 'enterprise',
      endpoint: 'https://globex.example',
      enabled: true,
      hasIdentityProvider: false,
    });

    const row = page.getByRole('row', { name: /globex/ });
    await row.getByRole('button', { name: 'Manage' }).click();
    const detail = page.getByRole('region', { name: 'Tenant globex' });
    await detail.getByRole('heading', { name: 'Tenant globex' }).waitFor();
    const edit = detail.getByRole('form', { name: 'Edit the tenant' });
    await edit.getByLabel('Endpoint').fill('https://www.globex.example');
    await edit.getByRole('button', { name: 'Save' }).press('Enter');
    await page.getByRole('status').getByText('Tenant globex saved.').waitFor();
    // The focus stays on Save: the heading took it once, when the tenant was opened, not at every render.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Save');
    expect((await tenantNamed(token(), 'globex'))?.endpoint).toBe('https://www.globex.example');

    await detail.getByText('No identity provider is set.').waitFor();
    const idp = detail.getByRole('form', { name: 'Identity provider settings' });
    await idp.getByLabel('Issuer').fill(upstream.issuer);
    await idp.getByLabel('Client ID').fill(upstream.clientId);
    await idp.getByLabel('Client secret').fill(upstream.clientSecret);
    await idp.getByLabel('E-mail domains').fill('globex.example');
    await idp.getByRole('button', { name: 'Save the identity provider' }).click();
    await page.getByRole('status').getByText('The identity provider of globex was saved.').waitFor();
    expect(await tenantNamed(token(), 'globex')).toMatchObject({ hasIdentityProvider: true });
    const tenantId = (await tenantNamed(token(), 'globex'))!.tenantId;
    const stored = await api<{ issuer: string; clientId: string; domains: string[]; redirectUri: string }>(
      token(),
      `/api/v1/admin/tenants/${tenantId}/identity-provider`,
    );
    expect(stored.body).toMatchObject({
      issuer: upstream.issuer,
      clientId: upstream.clientId,
      domains: ['globex.example'],
      redirectUri: `${base}/federation/auth/v1/idp/callback`,
    });
    expect(JSON.stringify(stored.body)).not.toContain(upstream.clientSecret);
    await detail.getByText(`${base}/federation/auth/v1/idp/callback`).waitFor();
    // The secret is write-only: it left the form once sent.
    expect(await idp.getByLabel('Client secret').inputValue()).toBe('');

    await detail.getByRole('button', { name: 'Test', exact: true }).click();
    await detail.getByRole('heading', { name: 'Test passed: no problem found.' }).waitFor({ timeout: 30_000 });
    await detail.getByText(`${upstream.issuer}/.well-known/openid-configuration`).waitFor();
    await detail.getByText(`${upstream.issuer}/auth`).first().waitFor();
    await detail.getByRole('region', { name: 'Keys of the provider' }).getByRole('row').nth(1).waitFor();
    await expectNoAxeViolations(page);

    // The test sign-in: the platform's authorization request with idp_hint and prompt=login, in a new window.
    const navigations: string[] = [];
    context.on('request', (request) => {
      if (request.isNavigationRequest()) navigations.push(request.url());
    });
    const [signIn] = await Promise.all([
      context.waitForEvent('page'),
      detail.getByRole('button', { name: 'Test sign-in' }).click(),
    ]);
    const windowToken = captureToken(signIn);
    await signIn.waitForURL(`${upstream.issuer}/**`, { timeout: 30_000 });
    const authorize = new URL(navigations[0]!);
    expect(authorize.origin).toBe(base);
    expect(authorize.searchParams.get('idp_hint')).toBe('globex');
    expect(authorize.searchParams.get('prompt')).toBe('login');
    expect(authorize.searchParams.get('redirect_uri')).toBe(`${base}/callback`);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    await signIn.locator('input[name="login"]').waitFor();
    await signIn.fill('input[name="login"]', 'uma');
    await signIn.fill('input[name="password"]', 'any password');
    await signIn.click('button[type="submit"]');
    // Back at the platform, which signs this browser out of the operator's session and in as the upstream's uma
    // (one browser, one account), then in the web app of that window.
    await signIn.getByLabel('Message', { exact: true }).waitFor({ timeout: 30_000 });
    expect(navigations.some((url) => url.startsWith(`${base}/federation/auth/v1/idp/callback?code=`))).toBe(true);
    // Signed in as the upstream's uma, a user of the tenant globex.
    expect(claimsOf(windowToken().slice('Bearer '.length))).toMatchObject({
      tenant: { id: tenantId, type: 'enterprise', endpoint: 'https://www.globex.example' },
      idp: { sub: 'uma', preferred_username: 'uma@globex.example' },
    });
    // The operator's session in this browser ended with the hand-over (as a sign-out): its token is refused now.
    expect((await api(token(), '/api/v1/admin/tenants')).status).toBe(401);
    await context.close();
  }, 180_000);

  it('removes the identity provider and deletes a tenant behind their confirmations (Cancel keeps them), and shows the refusal for a tenant that still has a user', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/tenants`);
    const row = page.getByRole('row', { name: /globex/ });
    await row.getByRole('button', { name: 'Manage' }).click();
    const detail = page.getByRole('region', { name: 'Tenant globex' });
    const remove = detail.getByRole('button', { name: 'Remove the identity provider' });
    await remove.click();
    const dialog = page.getByRole('dialog', { name: 'Remove the identity provider' });
    await dialog.getByText('Remove the identity provider of globex?').waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await tenantNamed(token(), 'globex'))?.hasIdentityProvider).toBe(true);
    await remove.click();
    await dialog.getByRole('button', { name: 'Remove the identity provider' }).click();
    await page.getByRole('status').getByText('The identity provider of globex was removed.').waitFor();
    await detail.getByText('No identity provider is set.').waitFor();
    const globex = (await tenantNamed(token(), 'globex'))!;
    expect(globex.hasIdentityProvider).toBe(false);
    expect((await api(token(), `/api/v1/admin/tenants/${globex.tenantId}/identity-provider`)).status).toBe(404);

    // uma belongs to globex since her sign-in: the API refuses, and the dialog says why.
    await row.getByRole('button', { name: 'Delete' }).click();
    const del = page.getByRole('dialog', { name: 'Delete the tenant' });
    await del.getByText('Delete the tenant globex?').waitFor();
    await del.getByRole('button', { name: 'Delete' }).click();
    await del
      .getByRole('alert')
      .getByText(/\(conflict\)$/)
      .waitFor();
    await del.getByRole('button', { name: 'Cancel' }).click();
    await del.waitFor({ state: 'hidden' });
    expect(await tenantNamed(token(), 'globex')).toBeDefined();

    const create = page.getByRole('region', { name: 'Create a tenant' });
    await create.getByLabel('Name').fill('initech');
    await create.getByLabel('Type').selectOption('saas');
    await create.getByLabel('Endpoint').fill('https://initech.example');
    await create.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('status').getByText('Tenant initech created.').waitFor();
    expect((await tenantNamed(token(), 'initech'))?.type).toBe('saas');
    const initech = page.getByRole('row', { name: /initech/ });
    await initech.getByRole('button', { name: 'Delete' }).click();
    await del.getByText('Delete the tenant initech?').waitFor();
    await del.getByRole('button', { name: 'Cancel' }).click();
    await del.waitFor({ state: 'hidden' });
    expect(await tenantNamed(token(), 'initech')).toBeDefined();
    await initech.getByRole('button', { name: 'Delete' }).click();
    await del.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('status').getByText('Tenant initech deleted.').waitFor();
    await initech.waitFor({ state: 'detached' });
    // Its row (and the button the dialog would give the focus back to) went away: the focus is on the heading.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Tenants');
    expect(await tenantNamed(token(), 'initech')).toBeUndefined();
    await context.close();
  }, 90_000);

  it('lists the signing keys, rotates (the new key is in the JWKS of the discovery document) and revokes a key behind the confirmation (out of the JWKS at once)', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/signing-keys`);
    await page.getByRole('heading', { name: 'Signing keys', level: 2 }).waitFor();
    const table = page.getByRole('region', { name: 'Signing keys' });
    const before = await signingKeys(token());
    const active = before.find((key) => key.state === 'active')!;
    await table.locator(`tr[data-kid="${active.kid}"]`).getByRole('cell', { name: 'Signing' }).waitFor();
    expect(await table.locator('tbody tr').count()).toBe(before.length);

    await page.getByRole('button', { name: 'Rotate the key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Rotate the key' });
    await dialog.getByText('Create and publish a new key?').waitFor();
    await dialog.getByRole('button', { name: 'Rotate the key' }).click();
    await page
      .getByRole('status')
      .getByText(/^New key .+ created\.$/)
      .waitFor();
    const after = await signingKeys(token());
    expect(after).toHaveLength(before.length + 1);
    const next = after.find((key) => !before.some((old) => old.kid === key.kid))!;
    expect(next.state).toBe('next');
    await table.locator(`tr[data-kid="${next.kid}"]`).getByRole('cell', { name: 'Next' }).waitFor();
    // Published before it signs, so every verifier has it by then.
    expect(await publishedKids(token())).toEqual(expect.arrayContaining([active.kid, next.kid]));

    // The new key has signed nothing: revoking it leaves the operator's own token (signed by the active key) valid.
    await table.getByRole('button', { name: `Revoke the key ${next.kid}` }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke' });
    await revoke.getByText(`Revoke the key ${next.kid}?`).waitFor();
    await revoke.getByRole('button', { name: 'Cancel' }).click();
    await revoke.waitFor({ state: 'hidden' });
    expect(await publishedKids(token())).toContain(next.kid);
    await table.getByRole('button', { name: `Revoke the key ${next.kid}` }).click();
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').getByText(`Key ${next.kid} revoked.`).waitFor();
    await table.locator(`tr[data-kid="${next.kid}"]`).getByRole('cell', { name: 'Revoked', exact: true }).waitFor();
    expect(await table.getByRole('button', { name: `Revoke the key ${next.kid}` }).count()).toBe(0);
    await page.waitForFunction(() => document.activeElement?.textContent === 'Signing keys');
    expect(await publishedKids(token())).not.toContain(next.kid);
    expect((await signingKeys(token())).find((key) => key.kid === next.kid)?.state).toBe('revoked');
    await context.close();
  }, 90_000);

  it('shows a tenant administrator who is not an operator neither section, and her direct calls are 403', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'tara', password: PASSWORD },
      { locale: 'en' },
    );
    const token = captureToken(page);
    await page.getByRole('link', { name: 'Console' }).click();
    await page.getByRole('heading', { name: 'Users', level: 2 }).waitFor();
    const sections = await page
      .getByRole('navigation', { name: 'Console sections' })
      .getByRole('link')
      .allTextContents();
    expect(sections).toContain('Users');
    expect(sections).not.toContain('Tenants');
    expect(sections).not.toContain('Signing keys');
    for (const route of ['/api/v1/admin/tenants', '/api/v1/admin/signing-keys']) {
      expect((await api(token(), route)).status).toBe(403);
    }
    await context.close();
  }, 60_000);

  it('offers a plain user no console: no link, and /console/tenants and /console/signing-keys say why', async () => {
    const { context, page } = await signInToWebApp(
      browser,
      base,
      { login: 'hal', password: PASSWORD },
      { locale: 'en' },
    );
    expect(await page.getByRole('link', { name: 'Console' }).count()).toBe(0);
    const adminCalls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/v1/admin/')) adminCalls.push(request.url());
    });
    for (const section of ['tenants', 'signing-keys']) {
      await page.goto(`${base}/console/${section}`);
      await page.getByRole('alert').getByText('Your account may not use the console').waitFor();
    }
    expect(adminCalls).toEqual([]);
    await context.close();
  }, 60_000);

  it('rotates a key by keyboard alone: the confirmation opens on Cancel, Escape closes it and focus returns, Enter confirms', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/signing-keys`);
    await page.locator('tbody tr').first().waitFor();
    const before = await signingKeys(token());
    await tabTo(page, 'button[data-action="rotate"]');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Cancel');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Rotate the key');
    expect((await signingKeys(token())).map((key) => key.kid)).toEqual(before.map((key) => key.kid));

    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Rotate the key');
    await page.keyboard.press('Enter');
    await page
      .getByRole('status')
      .getByText(/^New key .+ created\.$/)
      .waitFor();
    await page.getByRole('dialog').waitFor({ state: 'hidden' });
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Rotate the key');
    const after = await signingKeys(token());
    expect(after.filter((key) => !before.some((old) => old.kid === key.kid))).toHaveLength(1);
    await context.close();
  }, 60_000);

  it('has no WCAG 2.1 AA violation (axe) in Japanese, English and Arabic (right to left) with a dialog open, and the signing keys fit a phone', async () => {
    for (const [locale, width, height] of [
      ['ja', 1280, 800],
      ['en', 1280, 800],
      ['ar', 1280, 800],
      ['ar', 390, 844],
    ] as const) {
      const context = await axeContext(browser, { locale });
      const page = await context.newPage();
      await page.setViewportSize({ width, height });
      await page.goto(`${base}/console/signing-keys`);
      await submitLoginForm(page, demo.user);
      await page.locator('tbody tr').first().waitFor();
      if (locale === 'ar') expect(await htmlLangDir(page)).toEqual(['ar', 'rtl']);
      await expectNoAxeViolations(page);
      if (width < 400) {
        // The table scrolls in its own box; the page does not scroll sideways.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      } else {
        await page.locator('button[data-action="revoke"]').first().click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
        await page.keyboard.press('Escape');
        await page.getByRole('dialog').waitFor({ state: 'hidden' });

        await page.goto(`${base}/console/tenants`);
        await page.locator('tr[data-tenant="globex"]').waitFor();
        await page.locator('tr[data-tenant="globex"] button[data-action="manage"]').click();
        await page.locator('.console-detail h3').waitFor();
        await expectNoAxeViolations(page);
        await page.locator('tr[data-tenant="globex"] button[data-action="delete"]').click();
        await page.getByRole('dialog').waitFor();
        await expectNoAxeViolations(page);
      }
      await context.close();
    }
  }, 120_000);

  it('revokes the key that signs the operator’s own token: a replacement signs, the kid leaves the JWKS, and the screen shows the new state and offers to sign in again', async () => {
    const { context, page } = await signInToWebApp(browser, base, demo.user, { locale: 'en' });
    const token = captureToken(page);
    await page.goto(`${base}/console/signing-keys`);
    await page.locator('tbody tr').first().waitFor();
    const kidOf = (bearer: string) =>
      String(
        (JSON.parse(Buffer.from(bearer.slice(7).split('.')[0]!, 'base64url').toString('utf8')) as { kid: string }).kid,
      );
    const oldToken = token();
    const own = kidOf(oldToken);
    const table = page.getByRole('region', { name: 'Signing keys' });
    await table.locator(`tr[data-kid="${own}"]`).getByRole('cell', { name: 'Signing' }).waitFor();
    await table.getByRole('button', { name: `Revoke the key ${own}` }).click();
    const revoke = page.getByRole('dialog', { name: 'Revoke' });
    await revoke.getByText('It is signing now, so a replacement starts signing at once.').waitFor();
    await revoke.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('status').getByText(`Key ${own} revoked.`).waitFor();
    // The answer's state, shown without another call (the page's token is refused from now on).
    await table.locator(`tr[data-kid="${own}"]`).getByRole('cell', { name: 'Revoked', exact: true }).waitFor();
    const replacement = await table.locator('tr[data-state="active"]').getAttribute('data-kid');
    expect(replacement).not.toBe(own);
    expect((await api(oldToken, '/api/v1/admin/signing-keys')).status).toBe(401);
    expect(await publishedKids(oldToken)).toEqual(expect.arrayContaining([replacement]));
    expect(await publishedKids(oldToken)).not.toContain(own);
    const notice = page.getByRole('alert').filter({ hasText: 'Your own access token was signed by this key' });
    await notice.waitFor();

    await notice.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL(`${base}/console/signing-keys`);
    await table.locator(`tr[data-kid="${own}"][data-state="revoked"]`).waitFor();
    expect(kidOf(token())).toBe(replacement);
    expect((await signingKeys(token())).find((key) => key.kid === own)?.state).toBe('revoked');
    expect(await page.getByRole('alert').count()).toBe(0);
    await context.close();
  }, 90_000);
});
