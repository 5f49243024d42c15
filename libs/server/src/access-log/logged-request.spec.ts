import { HOST_LIMIT, PATH_LIMIT, USER_AGENT_LIMIT, loggedHeader, loggedPath } from './logged-request';

describe('the access log keeps no query secret', () => {
  it('keeps a path without a query as sent', () => {
    expect(loggedPath('/api/v1/admin/users/3f2c')).toBe('/api/v1/admin/users/3f2c');
  });

  it.each([
    'code=SplxlOBeZQQYbYS6WxSbIA',
    'access_token=eyJhbGciOiJSUzI1NiJ9.e30.sig',
    'client_secret=s3cr3t-value',
    'id_token_hint=eyJhbGciOiJSUzI1NiJ9.e30.sig',
    'state=af0ifjsldkj',
    'refresh_token=rt-123456',
    'password=hunter2',
  ])('replaces the value of %s by [redacted] and keeps its name', (pair) => {
    const [name, value] = pair.split('=') as [string, string];
    const logged = loggedPath(`/federation/auth/v1/auth?${pair}&limit=5`);
    expect(logged).toBe(`/federation/auth/v1/auth?${name}=[redacted]&limit=5`);
    expect(logged).not.toContain(value);
  });

  it('keeps the values of the harmless keys (limit, page, from, to, mode, cursor)', () => {
    expect(loggedPath('/api/v1/admin/audit-logs?limit=10&page=2&from=2026-11-01&to=2026-11-30&mode=x&cursor=c')).toBe(
      '/api/v1/admin/audit-logs?limit=10&page=2&from=2026-11-01&to=2026-11-30&mode=x&cursor=c',
    );
  });

  it('redacts a harmless key whose value is too long to be harmless', () => {
    expect(loggedPath(`/x?limit=${'9'.repeat(100)}`)).toBe('/x?limit=[redacted]');
  });

  it('drops names that are not plain words (a bare token, encoded names) and bare items whole', () => {
    expect(loggedPath('/x?eyJhbGciOiJIUzI1NiJ9.payload.signature-that-is-long&a%5B0%5D=1&sk-live&sk-live=1')).toBe(
      '/x?[redacted]&[redacted]&[redacted]&sk-live=[redacted]',
    );
  });

  it('skips empty pairs and an empty query', () => {
    expect(loggedPath('/x?')).toBe('/x');
    expect(loggedPath('/x?&&page=1&')).toBe('/x?page=1');
  });

  it(`caps a path at ${PATH_LIMIT} characters, query included`, () => {
    expect(loggedPath(`/${'a'.repeat(10_000)}`)).toHaveLength(PATH_LIMIT);
    const manyPairs = `/x?${Array.from({ length: 5000 }, (_, i) => `k${i}=v`).join('&')}`;
    expect(loggedPath(manyPairs).length).toBeLessThanOrEqual(PATH_LIMIT);
  });

  it('makes text storable: NUL removed, lone surrogates replaced (the batch would be refused)', () => {
    expect(loggedPath('/a\u0000b\ud800c')).toBe('/ab\ufffdc');
    expect(loggedHeader('agent\u0000\udc00', USER_AGENT_LIMIT)).toBe('agent\ufffd');
  });

  it('caps header values (host, user agent) and joins repeated ones', () => {
    expect(loggedHeader('h'.repeat(1000), HOST_LIMIT)).toHaveLength(HOST_LIMIT);
    expect(loggedHeader('u'.repeat(10_000), USER_AGENT_LIMIT)).toHaveLength(USER_AGENT_LIMIT);
    expect(loggedHeader(['a', 'b'], USER_AGENT_LIMIT)).toBe('a, b');
    expect(loggedHeader(undefined, USER_AGENT_LIMIT)).toBeNull();
  });
});
