import { randomBytes } from 'node:crypto';
import { defaultClaimMapping, KeyEncryption, profileFrom, validateIdpSettings } from '@fed/identity/internal';
import { IdpCookies } from './idp-cookies';

const encryption = new KeyEncryption(randomBytes(32).toString('base64'));

describe("a tenant's claim mapping", () => {
  it('reads mapped claims, dotted paths into nested claims, and {id, label} objects; leaves unusable values out', () => {
    const mapping = { ...defaultClaimMapping, organization: 'department', job: 'title', bio: 'about.bio' };
    const profile = profileFrom(
      'u-1',
      {
        name: 'Ada',
        email: 'Ada@Example.COM',
        email_verified: 'true',
        department: { id: 'rnd', label: 'Research' },
        title: 'Engineer',
        about: { bio: 'Analytical engines.' },
        preferred_username: 'a\u0000da',
      },
      mapping,
    );
    expect(profile).toEqual({
      subject: 'u-1',
      name: 'Ada',
      email: 'ada@example.com',
      emailVerified: true,
      organization: { id: 'rnd', label: 'Research' },
      job: { id: 'Engineer', label: 'Engineer' },
      bio: 'Analytical engines.',
    });
  });

  it('refuses an address that is not one, and counts only true (or "true") as verified', () => {
    expect(profileFrom('u', { email: 'not an address', email_verified: 1 }, defaultClaimMapping)).toEqual({
      subject: 'u',
      emailVerified: false,
    });
  });
});

describe("a tenant's provider settings", () => {
  const base = { issuer: 'https://login.example.com/tenant', clientId: 'broker', clientSecret: 's' };

  it('defaults the scopes and the claim names, lower-cases domains', () => {
    expect(validateIdpSettings({ ...base, domains: ['Example.COM'] })).toMatchObject({
      scopes: ['openid', 'profile', 'email'],
      domains: ['example.com'],
      claims: defaultClaimMapping,
    });
  });

  it.each([
    [{ issuer: 'http://login.example.com' }, 'invalid_issuer'],
    [{ issuer: 'https://login.example.com/?tenant=1' }, 'invalid_issuer'],
    [{ scopes: ['profile'] }, 'invalid_scopes'],
    [{ domains: ['not a domain'] }, 'invalid_domain'],
    [{ claims: { password: 'x' } }, 'invalid_claims'],
    [{ clientId: 'a\nb' }, 'invalid_client_id'],
  ])('refuses %j (%s)', (change, code) => {
    expect(() => validateIdpSettings({ ...base, ...change })).toThrow(expect.objectContaining({ code }));
  });

  it('accepts plain http only on the loopback (a development provider)', () => {
    expect(validateIdpSettings({ ...base, issuer: 'http://localhost:4000' }).issuer).toBe('http://localhost:4000');
  });
});

describe('the cookies of a sign-in through a tenant provider', () => {
  const flow = { uid: 'i-1', tenantId: 't', state: 's', nonce: 'n', codeVerifier: 'v', locale: 'en' as const };
  const header = (setCookie: string) => setCookie.split(';')[0];

  it('are HttpOnly, SameSite=Lax, sealed, and read back only by the same key before they expire', () => {
    let now = 1_000_000;
    const cookies = new IdpCookies(encryption, true, () => now);
    const set = cookies.flow(flow);
    expect(set).toMatch(/; Path=\/federation\/auth\/v1\/idp\/callback; Max-Age=900; HttpOnly; SameSite=Lax; Secure$/);
    expect(set).not.toContain('"state"');
    expect(cookies.readFlow(header(set))).toMatchObject(flow);
    expect(
      new IdpCookies(new KeyEncryption(randomBytes(32).toString('base64')), true).readFlow(header(set)),
    ).toBeUndefined();
    now += 901_000;
    expect(cookies.readFlow(header(set))).toBeUndefined();
  });

  it('bind a result to its interaction: another interaction cannot use it', () => {
    const cookies = new IdpCookies(encryption, false);
    const set = cookies.result({ uid: 'i-1', accountId: 'a' });
    expect(set).toContain('Path=/federation/auth/v1/interaction/i-1;');
    expect(cookies.readResult(header(set), 'i-1')).toEqual(expect.objectContaining({ accountId: 'a' }));
    expect(cookies.readResult(header(set), 'i-2')).toBeUndefined();
  });
});
