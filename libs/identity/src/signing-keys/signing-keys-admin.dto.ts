import { RefuseUnknownFields, withCode } from '@fed/server';
import { ValidateBy, ValidateIf } from 'class-validator';
import { MAX_ACTIVATE_IN_SECONDS, type SigningKeyRevocation } from './signing-keys-admin.service';
import { type SigningKeyState, type SigningKeyStatus } from './signing-keys.service';

/** The public half as the JWKS publishes it; the private key never leaves the database sealed. */
export interface SigningKeyJwkResponse {
  kty: 'RSA';
  kid: string;
  use: 'sig';
  alg: 'RS256';
  n: string;
  e: string;
}

export interface SigningKeyResponse {
  kid: string;
  algorithm: 'RS256';
  /** next (published, not signing yet), active, retired (published), expired, revoked. */
  state: SigningKeyState;
  createdAt: string;
  /** When it signs (signed) from. */
  activatesAt: string;
  /** When it stops (stopped) signing; null: no end planned. */
  retiredAt: string | null;
  /** When it leaves the JWKS, every token it signed having expired. */
  expiresAt: string | null;
  revokedAt: string | null;
  publicJwk: SigningKeyJwkResponse;
}

export interface SigningKeyListResponse {
  /** Every key, in the order they sign (activation time). */
  signingKeys: SigningKeyResponse[];
}

export interface SigningKeyRevocationResponse {
  revoked: SigningKeyResponse;
  /** The key that signs from now, when the revoked one was signing. */
  replacement?: SigningKeyResponse;
  /** Running services were told at once (`auth.signing-key-revoked`). */
  announced: boolean;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

export function toSigningKeyResponse(key: SigningKeyStatus): SigningKeyResponse {
  const { kty, kid, use, alg, n, e } = key.publicJwk;
  return {
    kid: key.kid,
    algorithm: key.alg,
    state: key.state,
    createdAt: key.createdAt.toISOString(),
    activatesAt: key.activatesAt.toISOString(),
    retiredAt: iso(key.retiredAt),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
    publicJwk: { kty, kid, use, alg, n, e },
  };
}

export function toSigningKeyRevocationResponse(revocation: SigningKeyRevocation): SigningKeyRevocationResponse {
  return {
    revoked: toSigningKeyResponse(revocation.revoked),
    ...(revocation.replacement ? { replacement: toSigningKeyResponse(revocation.replacement) } : {}),
    announced: revocation.announced,
  };
}

// RFC 7638 thumbprints are 43 base64url characters; anything else cannot name a key of ours.
const KID = /^[A-Za-z0-9_-]{1,100}$/;

export class SigningKeyParams {
  @ValidateBy(
    { name: 'isKid', validator: { validate: (value: unknown) => typeof value === 'string' && KID.test(value) } },
    withCode('not_found', 'no such signing key'),
  )
  kid!: string;
}

const LEAD_MESSAGE = `activateInSeconds must be a whole number of seconds from 0 to ${MAX_ACTIVATE_IN_SECONDS}`;

/** An unknown field (`now`) is refused rather than ignored: ignoring it would rotate with the default lead. */
@RefuseUnknownFields()
export class RotateSigningKeyBody {
  /**
   * Seconds between publishing the key and signing with it (default 600: every verifier has it by then); 0 signs at
   * once (verifiers fetch the JWKS on first sight of its kid).
   * @openapi {"type": "integer", "minimum": 0, "maximum": 9999999, "default": 600}
   */
  // Absent is the default; null is refused rather than read as absent.
  @ValidateIf((body: RotateSigningKeyBody) => body.activateInSeconds !== undefined)
  @ValidateBy(
    {
      name: 'activationLead',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_ACTIVATE_IN_SECONDS,
      },
    },
    withCode('invalid_parameter', LEAD_MESSAGE),
  )
  activateInSeconds?: number;
}
