import { UUID_PATTERN } from '@fed/contracts';

// JSON Schema (draft-07) of a realm file; a test keeps docs/realm.schema.json equal to it for editors.
const labelled = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'label'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 100 },
    label: { type: 'string', minLength: 1, maxLength: 200 },
  },
};

const claimName = { type: 'string', minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7E]+$' };
const tenantIdp = {
  type: 'object',
  additionalProperties: false,
  required: ['issuer', 'clientId'],
  description: "The upstream OpenID provider the tenant's staff sign in with (enterprise tenants only).",
  properties: {
    issuer: { type: 'string', maxLength: 2000, description: 'Issuer URL, compared exactly with the upstream.' },
    clientId: { type: 'string', minLength: 1, maxLength: 256 },
    clientSecret: {
      type: 'string',
      minLength: 1,
      maxLength: 1024,
      description: 'Stored encrypted; required for a new provider, kept when omitted. Never exported.',
    },
    scopes: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1, maxLength: 200 } },
    domains: {
      type: 'array',
      maxItems: 100,
      items: { type: 'string', minLength: 1, maxLength: 253 },
      description: 'E-mail domains whose users the login page sends to this provider.',
    },
    claims: {
      type: 'object',
      additionalProperties: false,
      description: 'Upstream claim names, where they differ from the default (the field name itself).',
      properties: {
        name: claimName,
        preferred_username: claimName,
        email: claimName,
        email_verified: claimName,
        organization: claimName,
        job: claimName,
        bio: claimName,
      },
    },
  },
};

export const realmSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://federation-platform.dev/schemas/realm.schema.json',
  title: 'Federation realm',
  description: 'Tenants, client applications (service accounts included) and users of the realm "federation".',
  type: 'object',
  additionalProperties: false,
  required: ['realm'],
  properties: {
    $schema: { type: 'string' },
    realm: { const: 'federation' },
    tenants: {
      type: 'array',
      maxItems: 10000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type', 'endpoint'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 100 },
          type: { enum: ['enterprise', 'saas'] },
          endpoint: { type: 'string', pattern: '^https?://', maxLength: 2000 },
          enabled: { type: 'boolean', default: true },
          idp: tenantIdp,
        },
      },
    },
    clients: {
      type: 'array',
      maxItems: 10000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['clientId', 'name', 'grantTypes'],
        properties: {
          clientId: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$' },
          name: { type: 'string', minLength: 1, maxLength: 200 },
          secret: {
            type: 'string',
            minLength: 32,
            maxLength: 256,
            description:
              'Plain secret (hashed on import). At least 32 characters: generate it, e.g. `openssl rand -base64 32`.',
          },
          secretSha256: {
            type: 'string',
            pattern: '^[0-9a-f]{64}$',
            description: 'SHA-256 of the secret, hex (what `realm export` writes).',
          },
          grantTypes: {
            type: 'array',
            minItems: 1,
            uniqueItems: true,
            items: { enum: ['authorization_code', 'client_credentials', 'refresh_token'] },
          },
          redirectUris: { type: 'array', maxItems: 20, items: { type: 'string', maxLength: 2000 } },
          postLogoutRedirectUris: {
            type: 'array',
            maxItems: 20,
            items: { type: 'string', maxLength: 2000 },
            description: 'Where the sign-out page may send the browser back (post_logout_redirect_uri, exact match).',
          },
          scopes: {
            type: 'array',
            maxItems: 50,
            items: { type: 'string', maxLength: 64 },
            description:
              "Scopes of document 1 (chat:exec, users:read, ...), plus llm:invoke: a client_credentials client's token calls the model gateway (/llm/v1) only with it.",
          },
          publicationStatus: { enum: ['Published', 'Unpublished'], default: 'Published' },
          consentRequired: { type: 'boolean', default: true },
          requirePkce: {
            type: 'boolean',
            default: true,
            description:
              'The authorization code flow must use PKCE (S256). false only for a legacy confidential client that cannot send it.',
          },
          allowManagementScopes: {
            type: 'boolean',
            default: false,
            description:
              'Required (true) to give an authorization_code client a management scope (users:read, users:manage, logs:read, master:manage, sharedmemory:query): only its users whose role is admin hold it.',
          },
          enabled: { type: 'boolean', default: true },
          serviceAccountId: {
            type: 'string',
            pattern: UUID_PATTERN,
          },
          tenant: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description: 'Tenant name; the default saas tenant when omitted (none for an operator client).',
          },
          public: {
            type: 'boolean',
            default: false,
            description:
              'A browser or native application without a secret (token_endpoint_auth_method none): authorization_code and refresh_token only, PKCE always; give no secret.',
          },
          operator: {
            type: 'boolean',
            default: false,
            description:
              "The platform operator's own integration, in no tenant (give no tenant): client_credentials only; its tokens carry no tenant claim, so they read every tenant's admin logs and manage the platform-wide master data.",
          },
        },
        not: { required: ['secret', 'secretSha256'] },
        if: { properties: { public: { const: true } }, required: ['public'] },
        then: { not: { anyOf: [{ required: ['secret'] }, { required: ['secretSha256'] }] } },
      },
    },
    users: {
      type: 'array',
      maxItems: 100000,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['email', 'displayName'],
        properties: {
          email: { type: 'string', minLength: 3, maxLength: 254 },
          username: { type: 'string', minLength: 1, maxLength: 64 },
          displayName: { type: 'string', minLength: 1, maxLength: 200 },
          emailVerified: { type: 'boolean', default: false },
          password: { type: 'string', minLength: 8, maxLength: 256, description: 'Plain password (hashed on import).' },
          passwordHash: {
            type: 'string',
            pattern: '^\\$argon2id\\$',
            description: 'argon2id PHC string (what `realm export` writes).',
          },
          role: { enum: ['admin', 'user'], default: 'user' },
          developer: { type: 'boolean', default: false },
          platformOperator: {
            type: 'boolean',
            default: false,
            description:
              "An account of the platform itself (role admin only): while an admin, it may hold platform:manage, the platform operator's scope (clients, gateway keys, tool servers, tenants, signing keys). Turning it off ends the user's sessions.",
          },
          status: { enum: ['unverified', 'pending', 'approved'], default: 'approved' },
          tenant: {
            type: 'string',
            minLength: 1,
            maxLength: 100,
            description: 'Tenant name; the default saas tenant when omitted.',
          },
          organization: labelled,
          job: labelled,
          bio: { type: 'string', maxLength: 2000 },
          idpSubject: { type: 'string', minLength: 1, maxLength: 256 },
        },
        not: { required: ['password', 'passwordHash'] },
      },
    },
  },
} as const;
