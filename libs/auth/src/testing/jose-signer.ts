import { type CryptoKey, SignJWT, UnsecuredJWT, exportJWK, generateKeyPair } from 'jose';

/** jose as an independent token signer for the tests: the verifier under test never shares its code. */
export class JoseSigner {
  private readonly privateKeys = new Map<string, CryptoKey>();

  async generate(kid: string): Promise<Record<string, unknown>> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    this.privateKeys.set(kid, privateKey);
    return { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  }

  async sign(kid: string, header: Record<string, unknown>, payload: Record<string, unknown>): Promise<string> {
    const key = this.privateKeys.get(kid);
    if (!key) throw new Error(`no private key for kid ${kid}`);
    return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', ...header }).sign(key);
  }

  /** An HMAC-signed JWT, e.g. HS256 keyed with an RSA public key (the algorithm-confusion attack). */
  async signWithSecret(
    secret: string,
    header: Record<string, unknown>,
    payload: Record<string, unknown>,
  ): Promise<string> {
    return new SignJWT(payload).setProtectedHeader({ alg: 'HS256', ...header }).sign(new TextEncoder().encode(secret));
  }

  /** `alg: none`. */
  async unsecured(payload: Record<string, unknown>): Promise<string> {
    return new UnsecuredJWT(payload).encode();
  }

  async close(): Promise<void> {
    this.privateKeys.clear();
  }
}
