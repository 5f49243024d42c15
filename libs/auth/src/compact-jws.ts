import { type KeyObject, verify } from 'node:crypto';
import { invalidToken } from './auth.errors';

// Deliberately narrow (compact, RS256, no extensions) and on node:crypto's sync verify: jose's WebCrypto path
// is too slow for the budget (docs/benchmarks.md). jose stays the independent signer in the tests.

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MAX_TOKEN_LENGTH = 16_384;

export interface JwsHeader {
  readonly alg: 'RS256';
  readonly kid: string;
  readonly [parameter: string]: unknown;
}

export interface CompactJws {
  readonly header: JwsHeader;
  readonly payload: Record<string, unknown>;
  readonly signingInput: string;
  readonly signature: Buffer;
}

export function parseCompactJws(token: string): CompactJws {
  if (token.length > MAX_TOKEN_LENGTH) throw invalidToken('the token is too large');
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part))) throw invalidToken('malformed token');
  const [encodedHeader, encodedPayload, encodedSignature] = parts;
  const header = decodeJsonObject(encodedHeader);
  // Checked before any key lookup, so `none` and HS256-with-the-RSA-key are refused whatever the key set holds.
  if (header.alg !== 'RS256') throw invalidToken('the signing algorithm is not allowed');
  // No extension is understood here, so none may be critical (RFC 7515 section 4.1.11; b64=false).
  if (header.crit !== undefined || header.b64 !== undefined) throw invalidToken('unsupported token header');
  if (typeof header.kid !== 'string' || header.kid === '') throw invalidToken('the token has no key id');
  return {
    header: header as JwsHeader,
    payload: decodeJsonObject(encodedPayload),
    signingInput: `${encodedHeader}.${encodedPayload}`,
    signature: Buffer.from(encodedSignature, 'base64url'),
  };
}

export function verifyRs256(jws: CompactJws, key: KeyObject): void {
  // RSASSA-PKCS1-v1_5 with SHA-256, the default padding for an RSA KeyObject.
  if (!verify('sha256', Buffer.from(jws.signingInput, 'latin1'), key, jws.signature)) {
    throw invalidToken('the token signature is invalid');
  }
}

function decodeJsonObject(encoded: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    throw invalidToken('malformed token');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidToken('malformed token');
  return value as Record<string, unknown>;
}
