import { type NumberedPageParams } from '@fed/contracts';
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ClientEntity, isClientIdShaped, isPublicClient } from './client.entity';
import { type ClientRegistration, validateRegistration } from './client-registration';
import { type ClientFilters, ClientRepository } from './client.repository';
import { type ClientTokenRevocations } from './client-token-revocations';
import { DEFAULT_TENANT } from '../tenants/tenant.repository';
import { ClientsError } from './clients.errors';

export type ClientView = Omit<ClientEntity, 'secretHash'>;

export interface IssuedSecret {
  client: ClientView;
  /** Shown once: only its hash is stored. */
  clientSecret: string;
}

/** A public client has no secret to show. */
export interface CreatedPublicClient {
  client: ClientView;
  clientSecret?: undefined;
}

type NewClient = ClientRegistration & { tenantName?: string };

/** What may change of a registered client; the lists given replace the stored ones. */
export interface ClientChanges {
  name?: string;
  redirectUris?: readonly string[];
  postLogoutRedirectUris?: readonly string[];
  scopes?: readonly string[];
  consentRequired?: boolean;
  enabled?: boolean;
  /** Needed when `scopes` gives an application (authorization_code) a management scope, as at registration. */
  allowManagementScopes?: boolean;
}

export interface ClientsSettings {
  defaultTenantEndpoint: string;
  /**
   * Clients the platform itself signs in with (the web app, whose console is where clients are managed): never
   * deleted or disabled unless `force` (platformctl `--force`); the HTTP API never forces.
   */
  protectedClientIds?: readonly string[];
  /** Told when a client's tokens end (disabled, deleted); absent: its access tokens expire by themselves. */
  revocations?: ClientTokenRevocations;
  now?: () => Date;
}

// Compared against for an unknown client, so the answer takes the same time either way.
const UNKNOWN_CLIENT_HASH = hashClientSecret(randomBytes(32).toString('base64url'));

export function hashClientSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant time; an unknown client (null) is compared against a decoy. */
export function clientSecretMatches(client: Pick<ClientEntity, 'secretHash'> | null, secret: string): boolean {
  // A public client has no secret: nothing matches, in the same time.
  const stored = client?.secretHash ?? null;
  return timingSafeEqual(stored ?? UNKNOWN_CLIENT_HASH, hashClientSecret(secret)) && stored !== null;
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function toView(client: ClientEntity): ClientView {
  const { secretHash: _secretHash, ...view } = client;
  return view;
}

export class ClientsService {
  private readonly now: () => Date;

  constructor(
    private readonly repository: ClientRepository,
    private readonly settings: ClientsSettings,
  ) {
    this.now = settings.now ?? (() => new Date());
  }

  /** In `tenantName` (default tenant when omitted), or in no tenant for the operator's integration. */
  async create(registration: NewClient & { publicClient: true }): Promise<CreatedPublicClient>;
  async create(registration: NewClient & { publicClient?: false }): Promise<IssuedSecret>;
  async create(registration: NewClient): Promise<IssuedSecret | CreatedPublicClient>;
  async create(registration: NewClient): Promise<IssuedSecret | CreatedPublicClient> {
    const valid = validateRegistration(registration);
    const tenantId = await this.tenantIdOf(registration);
    const clientSecret = valid.tokenEndpointAuthMethod === 'none' ? undefined : newSecret();
    const at = this.now();
    const client = Object.assign(new ClientEntity(), {
      ...valid,
      secretHash: clientSecret === undefined ? null : hashClientSecret(clientSecret),
      secretRotatedAt: at,
      serviceAccountId: randomUUID(),
      tenantId,
      enabled: true,
      createdAt: at,
      updatedAt: at,
    });
    if (!(await this.repository.insert(client))) {
      throw new ClientsError('client_exists', `client ${valid.clientId} already exists`);
    }
    const view = toView((await this.repository.find(valid.clientId)) as ClientEntity);
    return clientSecret === undefined ? { client: view } : { client: view, clientSecret };
  }

  private async tenantIdOf(registration: { operator?: boolean; tenantName?: string }): Promise<string | null> {
    if (registration.operator === true) {
      if (registration.tenantName === undefined) return null;
      throw new ClientsError('invalid_operator', "the platform operator's integration belongs to no tenant");
    }
    const tenantName = registration.tenantName ?? DEFAULT_TENANT;
    const tenant = await this.repository.tenantNamed(tenantName, this.settings.defaultTenantEndpoint);
    if (!tenant) throw new ClientsError('tenant_not_found', `no tenant named ${JSON.stringify(tenantName)}`);
    return tenant.id;
  }

  any(): Promise<boolean> {
    return this.repository.any();
  }

  async list(): Promise<ClientView[]> {
    return (await this.repository.list()).map(toView);
  }

  /** A numbered page by client id (the admin API's and `platformctl clients list`'s order). */
  async page(filters: ClientFilters, page: NumberedPageParams): Promise<{ clients: ClientView[]; total: number }> {
    const { clients, total } = await this.repository.page(filters, page);
    return { clients: clients.map(toView), total };
  }

  async setPostLogoutRedirectUris(clientId: string, uris: readonly string[]): Promise<ClientView> {
    return this.update(clientId, { postLogoutRedirectUris: uris });
  }

  /** Replaces the lists given, by the rules of registration (a code-flow client keeps at least one redirect URI). */
  async setRedirectUris(
    clientId: string,
    uris: { redirectUris?: readonly string[]; postLogoutRedirectUris?: readonly string[] },
  ): Promise<ClientView> {
    return this.update(clientId, uris);
  }

  /**
   * Checks the client as it would be by the rules of registration (its grants, tenant and kind kept), under the
   * row's lock. Disabling it ends every session of it, as deleting does: its refresh tokens are revoked (enabling it
   * again lets its users sign in again, not refresh), its users' live access tokens revoked and its own (client
   * credentials) refused. Other changes apply from the next token: live access tokens keep the scopes they carry
   * until they expire. A client that registered itself may only be disabled or enabled.
   */
  async update(clientId: string, changes: ClientChanges, options: { force?: boolean } = {}): Promise<ClientView> {
    const at = this.now();
    const { allowManagementScopes: _flag, ...fields } = changes;
    if (Object.values(fields).every((value) => value === undefined)) {
      throw new ClientsError('nothing_to_change', 'nothing to change: give at least one field');
    }
    if (changes.enabled === false) this.refuseIfProtected(clientId, 'disabled', options);
    // Its redirects and scopes are the platform's (they follow PUBLIC_URL at every start): only its name may change.
    if (SHAPING_FIELDS.some((field) => changes[field] !== undefined)) {
      this.refuseIfProtected(clientId, 'given other redirect URIs, scopes or consent', options);
    }
    const updated = await this.repository.updateLocked(clientId, (existing) => changedColumns(existing, changes, at));
    if (!updated) throw new ClientsError('client_not_found', `no client ${clientId}`);
    if (updated.ended) await this.settings.revocations?.clientTokensEnded(updated.ended, at);
    return toView(updated.client);
  }

  setEnabled(clientId: string, enabled: boolean, options: { force?: boolean } = {}): Promise<ClientView> {
    return this.update(clientId, { enabled }, options);
  }

  /**
   * Removes the client with its refresh tokens, consents and sign-ins under way; the live access tokens of its
   * users are revoked and its own refused, everywhere within a second (given `revocations`).
   */
  async delete(clientId: string, options: { force?: boolean } = {}): Promise<void> {
    this.refuseIfProtected(clientId, 'deleted', options);
    const at = this.now();
    const ended = await this.repository.delete(clientId);
    if (!ended) throw new ClientsError('client_not_found', `no client ${clientId}`);
    await this.settings.revocations?.clientTokensEnded(ended, at);
  }

  get protectedClientIds(): readonly string[] {
    return this.settings.protectedClientIds ?? [];
  }

  isProtected(clientId: string): boolean {
    return this.protectedClientIds.includes(clientId);
  }

  private refuseIfProtected(clientId: string, what: string, options: { force?: boolean }): void {
    if (this.isProtected(clientId) && options.force !== true) {
      throw new ClientsError(
        'protected_client',
        `client ${clientId} is the platform's own (the web app and its console sign in with it): it is not ${what} ` +
          'here; platformctl can, with --force',
      );
    }
  }

  async find(clientId: string): Promise<ClientView | undefined> {
    const client = await this.repository.find(clientId);
    return client ? toView(client) : undefined;
  }

  async get(clientId: string): Promise<ClientView> {
    const client = isClientIdShaped(clientId) ? await this.repository.find(clientId) : null;
    if (!client) throw new ClientsError('client_not_found', `no client ${clientId}`);
    return toView(client);
  }

  async rotateSecret(clientId: string): Promise<IssuedSecret> {
    const existing = await this.repository.find(clientId);
    if (existing && isPublicClient(existing)) {
      throw new ClientsError('public_client', `client ${clientId} is public: it has no secret to rotate`);
    }
    const clientSecret = newSecret();
    if (!(await this.repository.updateSecret(clientId, hashClientSecret(clientSecret), this.now()))) {
      throw new ClientsError('client_not_found', `no client ${clientId}`);
    }
    return { client: toView((await this.repository.find(clientId)) as ClientEntity), clientSecret };
  }

  /** The client when the id and secret match and it is enabled; null otherwise, in constant time. */
  async authenticate(clientId: string, clientSecret: string): Promise<ClientView | null> {
    const client = isClientIdShaped(clientId) ? await this.repository.find(clientId) : null;
    return client && clientSecretMatches(client, clientSecret) && client.enabled ? toView(client) : null;
  }
}

/** What makes a client sign people in where it does, with what it may ask for. */
const SHAPING_FIELDS = ['redirectUris', 'postLogoutRedirectUris', 'scopes', 'consentRequired'] as const;

/** The columns `changes` sets, checked by the rules of registration against the client as it is. */
function changedColumns(existing: ClientEntity, changes: ClientChanges, at: Date) {
  const fields = (['name', 'redirectUris', 'postLogoutRedirectUris', 'scopes', 'consentRequired'] as const).filter(
    (field) => changes[field] !== undefined,
  );
  if (existing.registration !== 'operator') {
    // Its own registration says what it is; the operator may only stop and start it.
    if (fields.length > 0) {
      throw new ClientsError(
        'self_registered_client',
        `client ${existing.clientId} registered itself: only enabled may change (its registration sets the rest)`,
      );
    }
    return { ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}), updatedAt: at };
  }
  const valid = validateRegistration({
    clientId: existing.clientId,
    name: changes.name ?? existing.name,
    grantTypes: existing.grantTypes,
    redirectUris: changes.redirectUris ?? existing.redirectUris,
    postLogoutRedirectUris: changes.postLogoutRedirectUris ?? existing.postLogoutRedirectUris,
    scopes: changes.scopes ?? existing.scopes,
    publicationStatus: existing.publicationStatus,
    consentRequired: changes.consentRequired ?? existing.consentRequired,
    requirePkce: existing.requirePkce,
    // Kept scopes were allowed when they were set; new ones need the flag, as at registration.
    allowManagementScopes: changes.scopes === undefined ? true : changes.allowManagementScopes,
    operator: existing.tenantId === null,
    publicClient: isPublicClient(existing),
  });
  return {
    ...Object.fromEntries(fields.map((field) => [field, valid[field]])),
    ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
    updatedAt: at,
  };
}
