import { randomUUID } from 'node:crypto';
import { JoseSigner } from './jose-signer';

export type Claims = Record<string, unknown>;

export interface SigningKey {
  readonly kid: string;
  readonly publicJwk: Record<string, unknown>;
}

export interface MintOptions {
  /** Signs with this key instead of the current one (it need not be published). */
  key?: SigningKey;
  /** Header parameters merged over `{ alg: 'RS256', typ: 'JWT', kid }`; `kid: undefined` drops it. */
  header?: Record<string, unknown>;
  /** Claims left out of the defaults. */
  omit?: readonly string[];
}

export const TEST_ISSUER = 'http://127.0.0.1:8080/realms/federation';
/** The `tenant.id` of the default claims (tenants are keyed by UUID; the verifier refuses any other id). */
export const TEST_TENANT_ID = '00000000-0000-4000-8000-00000000000a';

/** Plays the auth service in tests; the newest published key signs. */
export class TestTokenIssuer {
  private readonly published: SigningKey[] = [];

  private constructor(
    readonly issuer: string,
    readonly signer: JoseSigner,
  ) {}

  static async create(issuer = TEST_ISSUER): Promise<TestTokenIssuer> {
    const tokenIssuer = new TestTokenIssuer(issuer, new JoseSigner());
    await tokenIssuer.rotate();
    return tokenIssuer;
  }

  get currentKey(): SigningKey {
    return this.published[this.published.length - 1];
  }

  /** A key pair the JWKS does not list. */
  async unpublishedKey(kid = `stray-${randomUUID()}`): Promise<SigningKey> {
    return { kid, publicJwk: await this.signer.generate(kid) };
  }

  async rotate(kid = `key-${randomUUID()}`): Promise<SigningKey> {
    const key = await this.unpublishedKey(kid);
    this.published.push(key);
    return key;
  }

  retire(kid: string): void {
    const index = this.published.findIndex((key) => key.kid === kid);
    if (index >= 0) this.published.splice(index, 1);
  }

  jwks(): { keys: Record<string, unknown>[] } {
    return { keys: this.published.map((key) => key.publicJwk) };
  }

  /** An Authorization Code access token as the spec describes it, valid for five minutes. */
  defaultClaims(): Claims {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: this.issuer,
      sub: randomUUID(),
      exp: now + 300,
      iat: now,
      jti: randomUUID(),
      typ: 'Bearer',
      azp: 'test-client',
      scope: 'openid profile chat:exec',
      aud: 'broker',
      sid: randomUUID(),
      auth_time: now,
      realm_access: { roles: ['user'] },
      tenant: { id: TEST_TENANT_ID, type: 'saas', endpoint: 'https://tenant-1.example.test' },
    };
  }

  claims(overrides: Claims = {}, omit: readonly string[] = []): Claims {
    const payload = { ...this.defaultClaims(), ...overrides };
    for (const name of omit) delete payload[name];
    return payload;
  }

  async mint(overrides: Claims = {}, options: MintOptions = {}): Promise<string> {
    const key = options.key ?? this.currentKey;
    const header: Record<string, unknown> = { alg: 'RS256', typ: 'JWT', kid: key.kid, ...options.header };
    if (header.kid === undefined) delete header.kid;
    return this.signer.sign(key.kid, header, this.claims(overrides, options.omit));
  }

  close(): Promise<void> {
    return this.signer.close();
  }
}
