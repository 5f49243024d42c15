import { Injectable } from '@nestjs/common';
import { type JWTPayload, createLocalJWKSet, jwtVerify } from 'jose';
import { PublishedJwks } from '@fed/identity/internal';

export class TokenRejected extends Error {}

/** Against our own published keys (no HTTP), accepting what the `auth` lib's verifier would and nothing more. */
@Injectable()
export class LocalTokenVerifier {
  constructor(private readonly jwks: PublishedJwks) {}

  /** `ignoreExpiry` for revocation, where an expired token is simply done. */
  async verify(token: string, issuer: string, options: { ignoreExpiry?: boolean; clockSkewSeconds?: number } = {}) {
    if (token.length > 16_384 || token.split('.').length !== 3) throw new TokenRejected('the token is malformed');
    const keys = createLocalJWKSet(await this.jwks.current());
    try {
      const { payload, protectedHeader } = await jwtVerify(token, keys, {
        algorithms: ['RS256'],
        issuer,
        clockTolerance: options.clockSkewSeconds ?? 0,
        currentDate: options.ignoreExpiry ? new Date(0) : undefined,
      });
      if (!protectedHeader.kid) throw new TokenRejected('the token has no key id');
      return payload as JWTPayload & Record<string, unknown>;
    } catch (error) {
      if (error instanceof TokenRejected) throw error;
      const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw new TokenRejected(expired ? 'the token has expired' : 'the token is invalid');
    }
  }
}
