import { createHash, createPrivateKey, generateKeyPair, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { type EntityManager } from 'typeorm';
import { KeyEncryption } from './key-encryption';
import { type PublicSigningJwk, SigningKeyEntity } from './signing-key.entity';
import { SigningKeyRepository } from './signing-key.repository';
import { SigningKeysError } from './signing-keys.errors';

const generateRsaKeyPair = promisify(generateKeyPair);
// How stale the signing key in memory may be: a rotation by another process shows within this time.
const ACTIVE_KEY_RECHECK_MS = 5000;

export type SigningKeyState = 'next' | 'active' | 'retired' | 'expired' | 'revoked';

export interface SigningKeyStatus {
  kid: string;
  alg: 'RS256';
  /** The public half only, as the JWKS publishes it. */
  publicJwk: PublicSigningJwk;
  state: SigningKeyState;
  createdAt: Date;
  activatesAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

export interface SigningKeysSettings {
  /** Longest lifetime of a token signed with these keys (access and ID tokens). */
  tokenTtlSeconds: number;
  /** Added to the published period, for verifiers whose clocks run behind. */
  clockSkewSeconds: number;
  now?: () => Date;
}

export interface RevocationOutcome {
  revoked: SigningKeyStatus;
  /** A key that signs from now, when the revoked one was signing. */
  replacement?: SigningKeyStatus;
  /** It was revoked before this call: nothing changed. */
  alreadyRevoked: boolean;
}

export interface ActiveSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/** The next key is published before it signs, and a retired key stays published until every token it signed expired. */
export class SigningKeysService {
  private readonly now: () => Date;
  private active?: { key: ActiveSigningKey; recheckAt: Date; retiresAt: number };
  private lookup?: Promise<ActiveSigningKey>;
  /** Counts forgetSigningKey(): a lookup begun before one does not keep its answer. */
  private generation = 0;

  constructor(
    private readonly repository: SigningKeyRepository,
    /** Absent where KEY_ENCRYPTION_KEY is not known: the keys can be listed, not created, rotated or revoked. */
    private readonly encryption: KeyEncryption | undefined,
    private readonly settings: SigningKeysSettings,
  ) {
    this.now = settings.now ?? (() => new Date());
  }

  /** First start: creates a key that signs at once, unless one already does. Safe to race. */
  async ensureSigningKey(): Promise<string> {
    return this.repository.locked(async (manager) => {
      const now = this.now();
      const current = await this.repository.signingAt(now, manager);
      if (current) return current.kid;
      return (await this.createKey(manager, now, now)).kid;
    });
  }

  /** The current key signs until then, then stays published for the token lifetime; an unused announced key goes. */
  async rotate(activateInSeconds: number): Promise<SigningKeyStatus> {
    if (!Number.isInteger(activateInSeconds) || activateInSeconds < 0) {
      throw new RangeError('activateInSeconds must be a non-negative integer');
    }
    this.sealing();
    // A new key sealed with another encryption key would be unreadable: prove this one opens the current key first.
    if (await this.repository.signingAt(this.now())) await this.activeSigningKey();
    const created = await this.repository.locked(async (manager) => {
      const now = this.now();
      const activatesAt = new Date(now.getTime() + activateInSeconds * 1000);
      await this.repository.deleteNotYetActive(manager, now);
      const current = await this.repository.signingAt(now, manager);
      if (current) {
        const expiresAt = new Date(
          activatesAt.getTime() + (this.settings.tokenTtlSeconds + this.settings.clockSkewSeconds) * 1000,
        );
        await this.repository.retire(manager, current.kid, activatesAt, expiresAt);
      }
      return this.createKey(manager, now, activatesAt);
    });
    this.forgetSigningKey();
    return this.statusOf(created, this.now());
  }

  /**
   * When it is the key signing now, a new key signs at once, replacing an announced one. Telling running
   * verifiers (`auth.signing-key-revoked`) is the caller's job; repeating changes nothing.
   */
  async revoke(kid: string): Promise<RevocationOutcome> {
    this.sealing();
    // As in rotate(): a replacement sealed with another encryption key would be unreadable.
    if (await this.repository.signingAt(this.now())) await this.activeSigningKey();
    const outcome = await this.repository.locked(async (manager) => {
      const now = this.now();
      const key = await this.repository.find(manager, kid);
      if (!key) throw new SigningKeysError('key_not_found', `no signing key ${JSON.stringify(kid.slice(0, 100))}`);
      const alreadyRevoked = key.revokedAt !== null;
      let replacement: SigningKeyEntity | undefined;
      const signing = await this.repository.signingAt(now, manager);
      if (signing?.kid === kid) {
        await this.repository.deleteNotYetActive(manager, now);
        replacement = await this.createKey(manager, now, now);
      } else if (signing && key.activatesAt > now && signing.retiredAt?.getTime() === key.activatesAt.getTime()) {
        // An announced key that will not sign after all: the current key goes on signing.
        await this.repository.retire(manager, signing.kid, null, null);
      }
      if (!key.revokedAt) {
        key.revokedAt = now;
        await this.repository.revoke(manager, kid, now);
      }
      return { key, replacement, alreadyRevoked };
    });
    this.forgetSigningKey();
    const now = this.now();
    return {
      revoked: this.statusOf(outcome.key, now),
      ...(outcome.replacement ? { replacement: this.statusOf(outcome.replacement, now) } : {}),
      alreadyRevoked: outcome.alreadyRevoked,
    };
  }

  forgetActiveKey(): void {
    this.forgetSigningKey();
  }

  async list(): Promise<SigningKeyStatus[]> {
    const now = this.now();
    return (await this.repository.all()).map((key) => this.statusOf(key, now));
  }

  async publishedJwks(): Promise<{ keys: PublicSigningJwk[] }> {
    return { keys: (await this.repository.published(this.now())).map((key) => key.publicJwk) };
  }

  /**
   * Cached, and looked up again every few seconds (rotation by another process) and when a scheduled key activates.
   * One lookup at a time: calls meanwhile sign with the key in memory unless it retired, so signing never queues
   * behind a burst of queries.
   */
  activeSigningKey(): Promise<ActiveSigningKey> {
    const now = this.now();
    const active = this.active;
    if (active && now < active.recheckAt) return Promise.resolve(active.key);
    if (this.lookup) return active && now.getTime() < active.retiresAt ? Promise.resolve(active.key) : this.lookup;
    const lookup = this.lookUpSigningKey(now).finally(() => {
      if (this.lookup === lookup) this.lookup = undefined;
    });
    this.lookup = lookup;
    return lookup;
  }

  /** A lookup under way is not kept either. */
  private forgetSigningKey(): void {
    this.active = undefined;
    this.lookup = undefined;
    this.generation++;
  }

  private async lookUpSigningKey(now: Date): Promise<ActiveSigningKey> {
    const generation = this.generation;
    const key = await this.repository.signingAt(now);
    if (!key) throw new Error('no signing key is active: run ensureSigningKey() first');
    let privateKey = this.active?.key.kid === key.kid ? this.active.key.privateKey : undefined;
    if (!privateKey) {
      const der = this.sealing().decrypt(key.privateKeyCiphertext, key.kid);
      privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    }
    const retiresAt = key.retiredAt?.getTime() ?? Number.POSITIVE_INFINITY;
    const recheckAt = new Date(Math.min(now.getTime() + ACTIVE_KEY_RECHECK_MS, retiresAt));
    const active = { key: { kid: key.kid, privateKey }, recheckAt, retiresAt };
    if (generation === this.generation) this.active = active;
    return active.key;
  }

  private async createKey(manager: EntityManager, now: Date, activatesAt: Date): Promise<SigningKeyEntity> {
    const { publicKey, privateKey } = await generateRsaKeyPair('rsa', { modulusLength: 2048 });
    const jwk = publicKey.export({ format: 'jwk' }) as { n: string; e: string };
    const kid = thumbprint(jwk);
    const key = Object.assign(new SigningKeyEntity(), {
      kid,
      alg: 'RS256' as const,
      publicJwk: { kty: 'RSA', kid, use: 'sig', alg: 'RS256', n: jwk.n, e: jwk.e } satisfies PublicSigningJwk,
      privateKeyCiphertext: this.sealing().encrypt(privateKey.export({ format: 'der', type: 'pkcs8' }), kid),
      createdAt: now,
      activatesAt,
      retiredAt: null,
      expiresAt: null,
      revokedAt: null,
    });
    await this.repository.insert(manager, key);
    return key;
  }

  private sealing(): KeyEncryption {
    if (this.encryption) return this.encryption;
    throw new SigningKeysError(
      'no_encryption_key',
      'KEY_ENCRYPTION_KEY is not set here: give this service the key auth-service uses, or use platformctl keys',
    );
  }

  private statusOf(key: SigningKeyEntity, now: Date): SigningKeyStatus {
    let state: SigningKeyState = 'active';
    if (key.revokedAt) state = 'revoked';
    else if (key.activatesAt > now) state = 'next';
    else if (key.expiresAt && key.expiresAt <= now) state = 'expired';
    else if (key.retiredAt && key.retiredAt <= now) state = 'retired';
    const { kid, alg, publicJwk, createdAt, activatesAt, retiredAt, expiresAt, revokedAt } = key;
    return { kid, alg, publicJwk, state, createdAt, activatesAt, retiredAt, expiresAt, revokedAt };
  }
}

/** RFC 7638 JWK thumbprint: the key id is derived from the key itself. */
function thumbprint(jwk: { n: string; e: string }): string {
  const canonical = JSON.stringify({ e: jwk.e, kty: 'RSA', n: jwk.n });
  return createHash('sha256').update(canonical).digest('base64url');
}
