import { type AccessTokenPrincipal } from './access-token.principal';
import { VerificationCache } from './verification-cache';

const principal = (subject: string) => ({ subject }) as AccessTokenPrincipal;

describe('VerificationCache', () => {
  const t0 = Date.UTC(2030, 0, 1);

  it('returns a remembered principal until its expiry', () => {
    const cache = new VerificationCache(10);
    cache.set('token-a', principal('a'), t0 + 1000, 0);
    expect(cache.get('token-a', t0 + 999, 0)?.subject).toBe('a');
    expect(cache.get('token-a', t0 + 1000, 0)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('drops an entry verified with a key set that has since lost a key', () => {
    const cache = new VerificationCache(10);
    cache.set('token-a', principal('a'), t0 + 1000, 0);
    expect(cache.get('token-a', t0, 1)).toBeUndefined();
    expect(cache.get('token-a', t0, 0)).toBeUndefined();
  });

  it('holds at most its capacity, evicting the least recently used', () => {
    const cache = new VerificationCache(2);
    cache.set('token-a', principal('a'), t0 + 1000, 0);
    cache.set('token-b', principal('b'), t0 + 1000, 0);
    cache.get('token-a', t0, 0);
    cache.set('token-c', principal('c'), t0 + 1000, 0);
    expect(cache.size).toBe(2);
    expect(cache.get('token-b', t0, 0)).toBeUndefined();
    expect(cache.get('token-a', t0, 0)?.subject).toBe('a');
    expect(cache.get('token-c', t0, 0)?.subject).toBe('c');
  });

  it('remembers nothing with capacity 0', () => {
    const cache = new VerificationCache(0);
    cache.set('token-a', principal('a'), t0 + 1000, 0);
    expect(cache.get('token-a', t0, 0)).toBeUndefined();
  });
});
