import { type WebConfig, readWebConfig } from './web-config';

/** A page whose fed-web-config meta tag carries `config` (what libs/web-host's webIndexHtml writes). */
function page(config: Record<string, unknown> | undefined) {
  return {
    querySelector: () => (config === undefined ? null : { content: JSON.stringify(config) }),
  } as unknown as Document;
}

const served = {
  issuer: 'https://login.example.test/realms/federation',
  clientId: 'web',
  scopes: ['openid', 'platform:manage'],
  endSessionEndpoint: 'https://login.example.test/federation/auth/v1/logout',
  chatModel: 'federation-agent',
  sandboxUrl: 'https://sandbox.example.test',
};

describe('readWebConfig (the fed-web-config meta tag)', () => {
  it("reads the edition: the Marketplace edition's admin panel, or the SaaS app", () => {
    expect(readWebConfig(page({ ...served, edition: 'marketplace' }))).toEqual<WebConfig>({
      ...served,
      edition: 'marketplace',
    });
    expect(readWebConfig(page({ ...served, edition: 'saas' })).edition).toBe('saas');
  });

  it('takes a page without an edition (a server older than the edition in the meta) as the SaaS app', () => {
    expect(readWebConfig(page(served)).edition).toBe('saas');
  });

  it('refuses an unknown edition rather than showing sections of neither', () => {
    expect(() => readWebConfig(page({ ...served, edition: 'enterprise' }))).toThrow(/unknown edition "enterprise"/);
  });

  it('refuses a page the platform did not serve, or one lacking a setting', () => {
    expect(() => readWebConfig(page(undefined))).toThrow(/no fed-web-config/);
    expect(() => readWebConfig(page({ ...served, issuer: undefined }))).toThrow(/lacks issuer/);
  });
});
