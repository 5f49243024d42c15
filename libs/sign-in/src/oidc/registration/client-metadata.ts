import { ALWAYS_ALLOWED_SCOPES, isPrintableLine } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import {
  ClientEntity,
  type ClientRegistrationKind,
  ClientsError,
  type GrantType,
  validRedirectUris,
} from '@fed/identity/internal';

/** RFC 7591 3.2.2's error codes, also what a refused metadata document is logged with. */
export type RegistrationErrorCode = 'invalid_redirect_uri' | 'invalid_client_metadata';

export class RegistrationError extends Error {
  constructor(
    readonly code: RegistrationErrorCode,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = 'RegistrationError';
  }
}

/** What a client that registers itself may hold: the protocol scopes, nothing of the chat API or management. */
export const SELF_REGISTERED_SCOPES = ['mcp:all', 'a2a:all'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const MAX_NAME = 200;

/** A self-registered client's metadata (RFC 7591 2, the subset the platform honours), checked. */
export interface ClientMetadata {
  name: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  scopes: string[];
}

/**
 * Checks client metadata (a metadata document or a registration request) as hostile input: `redirect_uris`
 * required (the operator's rules: https, http only on the loopback); `token_endpoint_auth_method` absent or
 * `none` (the client is public); `grant_types` some of authorization_code and refresh_token (default both);
 * `response_types` absent or `code`; `scope` some of mcp:all and a2a:all (default both; openid and
 * offline_access may be named); `client_name` printable. `defaultName` names a client that gives none.
 */
export function checkClientMetadata(raw: unknown, defaultName: string): ClientMetadata {
  const invalid = (description: string): never => {
    throw new RegistrationError('invalid_client_metadata', description);
  };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return invalid('the metadata must be a JSON object');
  const metadata = raw as Record<string, unknown>;
  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    invalid('token_endpoint_auth_method must be none: a client that registers itself is public');
  }
  const grantTypes = stringList(metadata, 'grant_types', [...GRANT_TYPES]);
  const unknownGrant = grantTypes.find((grant) => !(GRANT_TYPES as readonly string[]).includes(grant));
  if (unknownGrant !== undefined || !grantTypes.includes('authorization_code')) {
    invalid('grant_types must be authorization_code, optionally with refresh_token');
  }
  const responseTypes = stringList(metadata, 'response_types', ['code']);
  if (responseTypes.some((type) => type !== 'code')) invalid('response_types must be code');
  const scope = metadata.scope;
  if (scope !== undefined && typeof scope !== 'string') invalid('scope must be a string');
  const asked = typeof scope === 'string' ? [...new Set(scope.split(' ').filter(Boolean))] : [];
  const refused = asked.find(
    (name) => !ALWAYS_ALLOWED_SCOPES.includes(name) && !(SELF_REGISTERED_SCOPES as readonly string[]).includes(name),
  );
  if (refused !== undefined) {
    invalid(`scope ${JSON.stringify(refused.slice(0, 64))} is not for self-registered clients (mcp:all, a2a:all)`);
  }
  const scopes = SELF_REGISTERED_SCOPES.filter((name) => asked.length === 0 || asked.includes(name));
  if (scopes.length === 0) invalid('scope must name mcp:all or a2a:all');
  const name = metadata.client_name ?? defaultName;
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME || !isPrintableLine(name)) {
    invalid(`client_name must be 1-${MAX_NAME} printable characters`);
  }
  let redirectUris: string[];
  try {
    redirectUris = validRedirectUris(stringList(metadata, 'redirect_uris', []), true);
  } catch (error) {
    if (error instanceof ClientsError) throw new RegistrationError('invalid_redirect_uri', error.message);
    throw error;
  }
  return { name: (name as string).trim(), redirectUris, grantTypes: grantTypes as GrantType[], scopes };
}

function stringList(metadata: Record<string, unknown>, field: string, fallback: string[]): string[] {
  const value = metadata[field];
  if (value === undefined) return fallback;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw new RegistrationError(
      field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field} must be an array of strings`,
    );
  }
  return [...new Set(value as string[])];
}

/**
 * The row of a client that registered itself: public (no secret, PKCE), in no tenant (users of every tenant may
 * use it; their tokens carry their own tenant), published, consent always asked.
 */
export function selfRegisteredClient(
  clientId: string,
  registration: Exclude<ClientRegistrationKind, 'operator'>,
  metadata: ClientMetadata,
  at: Date,
  metadataExpiresAt: Date | null,
): ClientEntity {
  return Object.assign(new ClientEntity(), {
    clientId,
    name: metadata.name,
    tenantId: null,
    secretHash: null,
    secretRotatedAt: at,
    tokenEndpointAuthMethod: 'none',
    registration,
    metadataExpiresAt,
    redirectUris: metadata.redirectUris,
    postLogoutRedirectUris: [],
    grantTypes: metadata.grantTypes,
    scopes: metadata.scopes,
    publicationStatus: 'Published',
    consentRequired: true,
    requirePkce: true,
    serviceAccountId: randomUUID(),
    enabled: true,
    createdAt: at,
    updatedAt: at,
  } satisfies Omit<ClientEntity, 'tenant'>);
}

/** What the consent page says of a client that registered itself. */
export type RegisteredBy = { kind: 'metadata_document'; url: string } | { kind: 'dynamic'; redirectHost: string };

/**
 * How the consent page names `client`: by its document's URL (the one thing vouched for, by whoever serves it),
 * or, registered dynamically, as unverified with the host the request sends the user back to. Nothing for an
 * operator's client.
 */
export function registeredByOf(
  client: Pick<ClientEntity, 'registration' | 'clientId'>,
  redirectUri: unknown,
): RegisteredBy | undefined {
  if (client.registration === 'metadata_document') return { kind: 'metadata_document', url: client.clientId };
  if (client.registration !== 'dynamic') return undefined;
  let redirectHost = '';
  try {
    redirectHost = new URL(String(redirectUri)).host;
  } catch {
    // The provider has matched redirect_uri against the registered ones: it is a URL.
  }
  return { kind: 'dynamic', redirectHost };
}
