import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { ClientEntity, isClientIdShaped, isPublicClient } from './client.entity';
import {
  type ClientRegistration,
  validPostLogoutRedirectUris,
  validRedirectUris,
  validateRegistration,
} from './client-registration';
import { ClientRepository } from './client.repository';
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
    private readonly settings: { defaultTenantEndpoint: string; now?: () => Date },
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

  async setPostLogoutRedirectUris(clientId: string, uris: readonly string[]): Promise<ClientView> {
    return this.setRedirectUris(clientId, { postLogoutRedirectUris: uris });
  }

  /** Replaces the lists given, by the rules of registration (a code-flow client keeps at least one redirect URI). */
  async setRedirectUris(
    clientId: string,
    uris: { redirectUris?: readonly string[]; postLogoutRedirectUris?: readonly string[] },
  ): Promise<ClientView> {
    const existing = await this.repository.find(clientId);
    if (!existing) throw new ClientsError('client_not_found', `no client ${clientId}`);
    const valid = {
      ...(uris.redirectUris
        ? { redirectUris: validRedirectUris(uris.redirectUris, existing.grantTypes.includes('authorization_code')) }
        : {}),
      ...(uris.postLogoutRedirectUris
        ? { postLogoutRedirectUris: validPostLogoutRedirectUris(uris.postLogoutRedirectUris) }
        : {}),
    };
    if (!(await this.repository.updateRedirectUris(clientId, valid, this.now()))) {
      throw new ClientsError('client_not_found', `no client ${clientId}`);
    }
    return toView((await this.repository.find(clientId)) as ClientEntity);
  }

  async find(clientId: string): Promise<ClientView | undefined> {
    const client = await this.repository.find(clientId);
    return client ? toView(client) : undefined;
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
