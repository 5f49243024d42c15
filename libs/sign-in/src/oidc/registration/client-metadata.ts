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

/** Protocol scopes only: nothing of the chat API or management. */
export const SELF_REGISTERED_SCOPES = ['mcp:all', 'a2a:all'] as const;
const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
const MAX_NAME = 200;

export interface ClientMetadata {
  name: string;
  redirectUris: string[];
  grantTypes: GrantType[];
  scopes: string[];
}

/**
 * Hostile input: the client must be public (`none`), redirect URIs follow the operator's rules, and grants and
 * scopes are limited to the code flow and mcp:all/a2a:all (defaults: all of them).
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

/** Public (PKCE), in no tenant (tokens carry the user's tenant), published, consent always asked. */
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

export type RegisteredBy = { kind: 'metadata_document'; url: string } | { kind: 'dynamic'; redirectHost: string };

/** By the document's URL (the one thing vouched for), or as unverified with the redirect host; none for operators'. */
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
