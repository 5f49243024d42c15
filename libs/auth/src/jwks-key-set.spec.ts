import { MemorySignals } from '@fed/bus';
import { generateKeyPairSync } from 'node:crypto';
import { JwksKeySet } from './jwks-key-set';
import { JwksServer } from './testing/jwks-server';

// Keys of every kind a JWKS might list; only 2048-bit (or larger) RSA signing keys may verify RS256.
function rsaJwk(kid: string, modulusLength = 2048, extra: Record<string, unknown> = {}) {
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig', ...extra };
}

describe('JwksKeySet', () => {
  let served: unknown;
  let jwks: JwksServer;

  beforeAll(async () => {
    jwks = await JwksServer.start(() => served);
  });

  afterAll(() => jwks.close());

  const keySet = () => new JwksKeySet({ url: jwks.url, refetchCooldownMs: 0 });
  const refusal = (message: string) => ({ code: 'invalid_token', status: 401, message });

  it('uses only RSA signing keys of at least 2048 bits that allow RS256', async () => {
    const { publicKey: ecKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    served = {
      keys: [
        rsaJwk('good'),
        rsaJwk('no-alg-no-use', 2048, { alg: undefined, use: undefined }),
        rsaJwk('short', 1024),
        rsaJwk('encryption', 2048, { use: 'enc' }),
        rsaJwk('other-alg', 2048, { alg: 'RS512' }),
        rsaJwk('not-for-verify', 2048, { key_ops: ['encrypt'] }),
        { ...ecKey.export({ format: 'jwk' }), kid: 'ec', alg: 'ES256' },
        { ...privateKey.export({ format: 'jwk' }), kid: 'private', alg: 'RS256' },
        { kty: 'oct', k: 'c2VjcmV0', kid: 'secret', alg: 'HS256' },
      ],
    };
    const keys = keySet();
    await expect(keys.keyFor('good')).resolves.toMatchObject({ asymmetricKeyType: 'rsa' });
    await expect(keys.keyFor('no-alg-no-use')).resolves.toMatchObject({ asymmetricKeyType: 'rsa' });
    for (const kid of ['short', 'encryption', 'other-alg', 'not-for-verify', 'ec', 'private', 'secret']) {
      await expect(keys.keyFor(kid)).rejects.toMatchObject(refusal('the token was signed by an unknown key'));
    }
  });

  it('uses neither of two keys published under one kid', async () => {
    served = { keys: [rsaJwk('twice'), rsaJwk('twice'), rsaJwk('once')] };
    const keys = keySet();
    await expect(keys.keyFor('once')).resolves.toBeDefined();
    await expect(keys.keyFor('twice')).rejects.toMatchObject(refusal('the token was signed by an unknown key'));
  });

  it.each([
    ['not JSON', 'not json'],
    ['not a JWK set', { kid: 'x' }],
    ['an empty set', { keys: [] }],
  ])('yields no key when the endpoint answers %s', async (_case, body) => {
    served = body;
    await expect(keySet().keyFor('any')).rejects.toMatchObject(refusal('the signing keys are unavailable'));
  });

  it('keeps the known keys when a refetch answers garbage', async () => {
    served = { keys: [rsaJwk('kept')] };
    const keys = keySet();
    await keys.keyFor('kept');
    served = { keys: [] };
    await expect(keys.keyFor('unknown')).rejects.toMatchObject(refusal('the signing keys are unavailable'));
    await expect(keys.keyFor('kept')).resolves.toBeDefined();
    expect(keys.version).toBe(0);
  });

  it('refuses a revoked key at once, and never takes it back from a JWKS copy that still lists it', async () => {
    served = { keys: [rsaJwk('compromised'), rsaJwk('kept')] };
    const keys = new JwksKeySet({ url: jwks.url });
    await keys.keyFor('compromised');
    const signals = new MemorySignals();
    try {
      await keys.attach(signals);
      await signals.publishRetained('auth.signing-key-revoked', { version: 1, kid: 'compromised' }, 4102444800);
      await new Promise((resolve) => setImmediate(resolve));
      expect(keys.version).toBe(1);
      await expect(keys.keyFor('compromised')).rejects.toMatchObject(refusal('the token was signed by a revoked key'));
      // The replacement is fetched at once, despite the refetch cooldown, and the stale listing is ignored.
      served = { keys: [rsaJwk('compromised'), rsaJwk('kept'), rsaJwk('replacement')] };
      await expect(keys.keyFor('replacement')).resolves.toBeDefined();
      await expect(keys.keyFor('compromised')).rejects.toMatchObject(refusal('the token was signed by a revoked key'));
      // An instance that starts later reads the retained revocation.
      const late = new JwksKeySet({ url: jwks.url, refetchCooldownMs: 0 });
      await late.attach(signals);
      await expect(late.keyFor('kept')).resolves.toBeDefined();
      await expect(late.keyFor('compromised')).rejects.toMatchObject(refusal('the token was signed by a revoked key'));
      await late.detach();
    } finally {
      await keys.detach();
      await signals.close();
    }
  });

  it('refreshes a set older than its maximum age in the background and notices withdrawn keys', async () => {
    served = { keys: [rsaJwk('first')] };
    const keys = new JwksKeySet({ url: jwks.url, refetchCooldownMs: 0, maxAgeMs: 0 });
    await keys.keyFor('first');
    served = { keys: [rsaJwk('second')] };
    const before = jwks.requests;
    await expect(keys.keyFor('first')).resolves.toBeDefined(); // served from the stale set
    const deadline = Date.now() + 5000;
    while (keys.version === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(keys.version).toBe(1);
    expect(jwks.requests - before).toBe(1);
    await expect(keys.keyFor('first')).rejects.toMatchObject(refusal('the token was signed by an unknown key'));
  });
});
