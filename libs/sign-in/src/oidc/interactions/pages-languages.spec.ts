import 'reflect-metadata';
import { GATEWAY_SCOPE, scopes as specScopes } from '@fed/contracts';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { type RunningService } from '@fed/server';
import { TestBrowser } from '@fed/testing';
import { createHash, randomBytes } from 'node:crypto';
import { uiLocales } from '@fed/identity';
import { scopeText, signInText } from './messages';
import { bootAuthService, createApprovedUser, registryOf } from '../../testing/boot-auth-service';

const REDIRECT_URI = 'https://app.example.com/callback';
const PASSWORD = 'correct horse battery staple';
const CHALLENGE = createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

function titleOf(html: string): string | undefined {
  return /<title>([^<]*)<\/title>/.exec(html)?.[1];
}

function decoded(html: string): string {
  return html.replace(/&#(\d+);/g, (_entity, code: string) => String.fromCharCode(Number(code)));
}

/** The login, consent and error pages in the 14 languages of `ui_locales` (spec document 1). */
describe('login, consent and error pages in every language', () => {
  let database: TestDatabase;
  let service: RunningService;
  let base: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    service = await bootAuthService({ databaseUrl: database.url });
    base = `${service.url}/federation/auth/v1`;
    const { clients, users } = registryOf(service);
    await clients.create({
      clientId: 'web',
      name: 'Web',
      grantTypes: ['authorization_code', 'refresh_token'],
      scopes: [...specScopes],
      redirectUris: [REDIRECT_URI],
      allowManagementScopes: true,
    });
    // An admin and platform operator, who may hold every management scope, platform:manage too (a user is never
    // offered those, nor anyone llm:invoke).
    await createApprovedUser(users, 'ada', { password: PASSWORD, role: 'admin' });
    await users.setPlatformOperator((await users.findByLogin('ada')).id, true);
  });

  afterAll(async () => {
    await service?.shutdown('test');
    await database?.drop();
  });

  const authorizeUrl = (extra: Record<string, string> = {}) =>
    `${base}/authorize?${new URLSearchParams({
      client_id: 'web',
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: 'openid',
      state: 'xyz',
      code_challenge: CHALLENGE,
      code_challenge_method: 'S256',
      ...extra,
    })}`;

  it.each(uiLocales.map((locale) => [locale]))('renders the login page in %s with its own text', async (locale) => {
    const page = await new TestBrowser(service.url).visit(authorizeUrl({ ui_locales: locale }));
    expect(page.status).toBe(200);
    expect(page.html).toContain(`<html lang="${locale}" dir="${locale === 'ar' ? 'rtl' : 'ltr'}">`);
    expect(decoded(titleOf(page.html) ?? '')).toBe(signInText(locale, 'signInTitle'));
    expect(decoded(page.html)).toContain(signInText(locale, 'passwordLabel'));
  });

  it('gives every language its own login title', () => {
    const titles = new Set(uiLocales.map((locale) => signInText(locale, 'signInTitle')));
    expect(titles.size).toBe(uiLocales.length);
  });

  it('falls back to Accept-Language (q-values honoured) when ui_locales is absent, and ui_locales wins over it', async () => {
    const browser = new TestBrowser(service.url);
    const first = await browser.visit(authorizeUrl());
    const french = await browser.visit(first.url, { headers: { 'accept-language': 'xx, en;q=0.5, fr;q=0.8' } });
    expect(french.html).toContain('<html lang="fr"');
    const korean = new TestBrowser(service.url);
    const explicit = await korean.visit(authorizeUrl({ ui_locales: 'ko' }));
    const stillKorean = await korean.visit(explicit.url, { headers: { 'accept-language': 'fr' } });
    expect(stillKorean.html).toContain('<html lang="ko"');
  });

  it('switches language with plain links on the page, and keeps the choice through the login to consent', async () => {
    const browser = new TestBrowser(service.url);
    const japanese = await browser.visit(authorizeUrl());
    expect(japanese.html).toContain('<html lang="ja"');
    const links = [...japanese.html.matchAll(/<a href="([^"]+)" hreflang="([^"]+)"/g)];
    expect(links.map((link) => link[2]).sort()).toEqual(uiLocales.filter((locale) => locale !== 'ja').sort());
    expect(japanese.html).toContain('<span lang="ja" dir="ltr" aria-current="true">日本語</span>');
    const arabicLink = links.find((link) => link[2] === 'ar')?.[1] as string;
    const arabic = await browser.visit(new URL(decoded(arabicLink), japanese.url).href);
    expect(arabic.html).toContain('<html lang="ar" dir="rtl">');

    const wrong = await browser.submit(arabic, { login: 'ada', password: 'wrong password' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('<html lang="ar" dir="rtl">');
    expect(decoded(wrong.html)).toContain(signInText('ar', 'wrongCredentials'));

    const consent = await browser.submit(wrong, { login: 'ada', password: PASSWORD });
    expect(consent.html).toContain('name="decision"');
    expect(consent.html).toContain('<html lang="ar" dir="rtl">');
    expect(decoded(titleOf(consent.html) ?? '')).toBe(signInText('ar', 'consentTitle'));
  });

  it('trusts no language tag beyond the 14 from the switcher', async () => {
    const browser = new TestBrowser(service.url);
    const page = await browser.visit(authorizeUrl({ ui_locales: 'en' }));
    for (const lang of ['xx', '"><script>', 'AR', 'ar-SA']) {
      const answer = await browser.visit(`${page.url}?lang=${encodeURIComponent(lang)}`);
      expect(answer.html).toContain('<html lang="en" dir="ltr">');
      expect(answer.html).not.toContain('<script>');
    }
  });

  it('lists each requested scope with its description in the page language', async () => {
    for (const locale of ['ja', 'en', 'ar'] as const) {
      const browser = new TestBrowser(service.url);
      const scope = [...specScopes, 'offline_access'].join(' ');
      const login = await browser.visit(authorizeUrl({ ui_locales: locale, scope }));
      const consent = await browser.submit(login, { login: 'ada', password: PASSWORD });
      const text = decoded(consent.html);
      for (const scope of [...specScopes.filter((scope) => scope !== GATEWAY_SCOPE), 'offline_access'] as const) {
        expect(text).toContain(`${scopeText(locale, scope)} (<code>${scope}</code>)`);
      }
      expect(text).not.toContain(`<code>${GATEWAY_SCOPE}</code>`);
    }
  });

  it('shows the error page of a forged form in the page language', async () => {
    const browser = new TestBrowser(service.url);
    const page = await browser.visit(authorizeUrl({ ui_locales: 'de' }));
    const forged = await browser.submit(page, { login: 'ada', password: PASSWORD, csrf: 'forged' });
    expect(forged.status).toBe(403);
    expect(forged.html).toContain('<html lang="de-DE"');
    expect(decoded(forged.html)).toContain(signInText('de-DE', 'formExpired'));
    expect(decoded(forged.html)).toContain(signInText('de-DE', 'errorCode', { code: 'invalid_request' }));
  });

  it('shows the provider’s own error page (an unregistered redirect_uri) in the language asked for', async () => {
    const res = await fetch(authorizeUrl({ redirect_uri: 'https://evil.example.com/cb', ui_locales: 'vi' }), {
      redirect: 'manual',
    });
    expect(res.status).toBe(400);
    const html = decoded(await res.text());
    expect(html).toContain('<html lang="vi"');
    expect(html).toContain(signInText('vi', 'requestInvalid'));
  });
});
