import { type TestDatabase, createTestDatabase, schemaDrift } from '@fed/persistence/testing';
import { createHash, randomBytes } from 'node:crypto';
import { SignJWT, createLocalJWKSet, jwtVerify } from 'jose';
import { identityEntities } from '..';
import { KeyDecryptionError, KeyEncryption } from './key-encryption';
import { SigningKeyEntity } from './signing-key.entity';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeysService } from './signing-keys.service';

const ttl = 300;
const skew = 10;

describe('signing keys (real PostgreSQL)', () => {
  let database: TestDatabase;
  let clock: Date;
  let encryptionKey: string;
  const service = () =>
    new SigningKeysService(new SigningKeyRepository(database.dataSource), new KeyEncryption(encryptionKey), {
      tokenTtlSeconds: ttl,
      clockSkewSeconds: skew,
      now: () => clock,
    });
  const later = (seconds: number) => (clock = new Date(clock.getTime() + seconds * 1000));

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    clock = new Date('2026-11-22T10:00:00.000Z');
    encryptionKey = randomBytes(32).toString('base64');
  });
  afterEach(() => database?.drop());

  it('creates one signing key on first start, and only one when instances start together', async () => {
    const kids = await Promise.all([
      service().ensureSigningKey(),
      service().ensureSigningKey(),
      service().ensureSigningKey(),
    ]);
    expect(new Set(kids).size).toBe(1);
    expect(await service().ensureSigningKey()).toBe(kids[0]);
    expect((await service().list()).map((k) => k.state)).toEqual(['active']);
  });

  it('publishes exactly the JWKS fields of the spec, with the RFC 7638 thumbprint as kid', async () => {
    await service().ensureSigningKey();
    const { keys } = await service().publishedJwks();
    expect(keys).toHaveLength(1);
    const key = keys[0] as unknown as Record<string, string>;
    expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256', e: 'AQAB' });
    const thumbprint = createHash('sha256')
      .update(JSON.stringify({ e: key.e, kty: 'RSA', n: key.n }))
      .digest('base64url');
    expect(key.kid).toBe(thumbprint);
  });

  it('signs tokens that verify against the published JWKS', async () => {
    await service().ensureSigningKey();
    const { kid, privateKey } = await service().activeSigningKey();
    const token = await new SignJWT({ typ: 'Bearer' }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
    const jwks = createLocalJWKSet((await service().publishedJwks()) as Parameters<typeof createLocalJWKSet>[0]);
    await expect(jwtVerify(token, jwks, { algorithms: ['RS256'] })).resolves.toBeDefined();
  });

  it('stores the private key encrypted, and refuses to use it under another encryption key', async () => {
    await service().ensureSigningKey();
    const [row] = await database.dataSource.getRepository(SigningKeyEntity).find();
    expect(row?.privateKeyCiphertext.includes(Buffer.from('PRIVATE KEY'))).toBe(false);
    encryptionKey = randomBytes(32).toString('base64');
    await expect(service().activeSigningKey()).rejects.toBeInstanceOf(KeyDecryptionError);
  });

  it('rotates by publishing the next key first, then signing with it, then expiring the old one after the token lifetime', async () => {
    const first = await service().ensureSigningKey();
    const next = await service().rotate(600);
    expect(next.state).toBe('next');
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([first, next.kid]);
    expect((await service().activeSigningKey()).kid).toBe(first);

    later(600);
    expect((await service().activeSigningKey()).kid).toBe(next.kid);
    expect((await service().list()).map((k) => [k.kid, k.state])).toEqual([
      [first, 'retired'],
      [next.kid, 'active'],
    ]);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([first, next.kid]);

    later(ttl + skew - 1);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([first, next.kid]);
    later(1);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([next.kid]);
    expect((await service().list()).find((k) => k.kid === first)?.state).toBe('expired');
  });

  it('rotates immediately when asked, signing with the new key at once', async () => {
    const first = await service().ensureSigningKey();
    const next = await service().rotate(0);
    expect(next.state).toBe('active');
    expect((await service().activeSigningKey()).kid).toBe(next.kid);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([first, next.kid]);
  });

  it('replaces a key announced by an earlier rotation that never signed', async () => {
    const first = await service().ensureSigningKey();
    const announced = await service().rotate(600);
    const replacement = await service().rotate(0);
    const kids = (await service().list()).map((k) => k.kid);
    expect(kids).not.toContain(announced.kid);
    expect(kids).toEqual([first, replacement.kid]);
  });

  it('keeps the signing key in memory, and follows a rotation made by another process', async () => {
    const signer = service();
    const first = await signer.ensureSigningKey();
    expect((await signer.activeSigningKey()).kid).toBe(first);
    const next = await service().rotate(600);
    later(599);
    expect((await signer.activeSigningKey()).kid).toBe(first);
    later(1);
    expect((await signer.activeSigningKey()).kid).toBe(next.kid);
    const immediate = await service().rotate(0);
    expect((await signer.activeSigningKey()).kid).toBe(next.kid);
    later(5);
    expect((await signer.activeSigningKey()).kid).toBe(immediate.kid);
  });

  it('looks the key up once however many tokens ask at the same moment, the others signing with the key in memory', async () => {
    const repository = new SigningKeyRepository(database.dataSource);
    const signer = new SigningKeysService(repository, new KeyEncryption(encryptionKey), {
      tokenTtlSeconds: ttl,
      clockSkewSeconds: skew,
      now: () => clock,
    });
    const first = await signer.ensureSigningKey();
    expect((await signer.activeSigningKey()).kid).toBe(first);
    const next = await service().rotate(10);
    const lookups = jest.spyOn(repository, 'signingAt');
    later(5);
    // Due for a recheck: 200 calls at once make one query; the first waits for it and sees the key
    // that still signs, the others are answered from memory at once.
    const kids = await Promise.all(Array.from({ length: 200 }, () => signer.activeSigningKey()));
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(new Set(kids.map((key) => key.kid))).toEqual(new Set([first]));
    // Past the retirement of the key in memory, nobody signs with it: every call waits for the one lookup.
    later(5);
    const afterRetirement = await Promise.all(Array.from({ length: 50 }, () => signer.activeSigningKey()));
    expect(lookups).toHaveBeenCalledTimes(2);
    expect(new Set(afterRetirement.map((key) => key.kid))).toEqual(new Set([next.kid]));
  });

  it('does not keep a lookup begun before its own rotation', async () => {
    const signer = service();
    const first = await signer.ensureSigningKey();
    expect((await signer.activeSigningKey()).kid).toBe(first);
    later(5);
    const before = signer.activeSigningKey();
    const rotated = await signer.rotate(0);
    // The lookup under way started before the rotation: whatever it found is not kept.
    await before;
    expect((await signer.activeSigningKey()).kid).toBe(rotated.kid);
  });

  it('revokes the signing key at once: out of the JWKS, replaced by a key that signs from now', async () => {
    const first = await service().ensureSigningKey();
    const signer = service();
    expect((await signer.activeSigningKey()).kid).toBe(first);
    const announced = await service().rotate(600);
    const { revoked, replacement } = await signer.revoke(first);
    expect(revoked).toMatchObject({ kid: first, state: 'revoked', revokedAt: clock });
    expect(replacement?.state).toBe('active');
    // The key held in memory by the revoking instance is dropped; the announced key never signed, so it goes.
    expect((await signer.activeSigningKey()).kid).toBe(replacement?.kid);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([replacement?.kid]);
    expect((await service().list()).map((k) => k.kid)).not.toContain(announced.kid);
    // Repeating it changes nothing; a later rotation never brings the revoked key back.
    expect((await service().revoke(first)).replacement).toBeUndefined();
    later(3600);
    await service().rotate(0);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).not.toContain(first);
    expect((await service().list()).find((k) => k.kid === first)?.state).toBe('revoked');
  });

  it('revokes a retired or announced key without touching the signing one', async () => {
    const first = await service().ensureSigningKey();
    const second = await service().rotate(0);
    const announced = await service().rotate(600);
    expect((await service().revoke(first)).replacement).toBeUndefined();
    expect((await service().revoke(announced.kid)).replacement).toBeUndefined();
    expect((await service().activeSigningKey()).kid).toBe(second.kid);
    expect((await service().publishedJwks()).keys.map((k) => k.kid)).toEqual([second.kid]);
    later(600);
    expect((await service().activeSigningKey()).kid).toBe(second.kid);
  });

  it('refuses to revoke a key it does not know', async () => {
    await service().ensureSigningKey();
    await expect(service().revoke('no-such-kid')).rejects.toMatchObject({ code: 'key_not_found' });
  });

  it('refuses a negative or fractional publication lead', async () => {
    await expect(service().rotate(-1)).rejects.toThrow(RangeError);
    await expect(service().rotate(1.5)).rejects.toThrow(RangeError);
  });
});

describe('identity schema', () => {
  it('matches its migrations (no drift between entities and migrations)', async () => {
    expect(await schemaDrift(identityEntities)).toEqual([]);
  });
});
