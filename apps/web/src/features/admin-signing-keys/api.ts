import { apiJson } from '../../lib/api';

/** As `GET /api/v1/admin/signing-keys` lists it (docs/identity.md, "Signing keys"). */
export interface SigningKey {
  kid: string;
  algorithm: string;
  state: 'next' | 'active' | 'retired' | 'expired' | 'revoked';
  createdAt: string;
  activatesAt: string;
  retiredAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

export const SIGNING_KEYS_KEY = ['admin', 'signing-keys'] as const;

const post = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export async function listSigningKeys(token: string): Promise<SigningKey[]> {
  return (await apiJson<{ signingKeys: SigningKey[] }>('/api/v1/admin/signing-keys', token)).signingKeys;
}

/** `activateInSeconds` absent: the API's default lead (every verifier has fetched the key by then). */
export function rotateSigningKey(token: string, activateInSeconds?: number): Promise<SigningKey> {
  return apiJson<SigningKey>(
    '/api/v1/admin/signing-keys/rotate',
    token,
    post(activateInSeconds === undefined ? {} : { activateInSeconds }),
  );
}

export function revokeSigningKey(
  token: string,
  kid: string,
): Promise<{ revoked: SigningKey; replacement?: SigningKey }> {
  return apiJson(`/api/v1/admin/signing-keys/${encodeURIComponent(kid)}/revoke`, token, post({}));
}
