import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { identityEntities } from '..';
import { ClientEntity } from './client.entity';
import { TenantEntity } from '../tenants/tenant.entity';
import { ClientRepository } from './client.repository';
import { ClientsError } from './clients.errors';
import { ClientsService } from './clients.service';
import { ensureFirstPartyWebClient } from './first-party-web-client';
import { managementScopes } from '@fed/contracts';
import { randomUUID } from 'node:crypto';

describe('client registry (real PostgreSQL)', () => {
  let database: TestDatabase;
  let clients: ClientsService;

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    clients = new ClientsService(new ClientRepository(database.dataSource), {
      defaultTenantEndpoint: 'http://localhost:8080',
    });
  });
  afterEach(() => database?.drop());

  const registration = { clientId: 'etl', name: 'ETL', grantTypes: ['client_credentials'], scopes: ['users:read'] };

  it('creates a client and shows its secret once, storing only a hash', async () => {
    const { client, clientSecret } = await clients.create(registration);
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(client).not.toHaveProperty('secretHash');
    expect(client).toMatchObject({
      clientId: 'etl',
      publicationStatus: 'Published',
      consentRequired: true,
      enabled: true,
    });
    expect(client.serviceAccountId).toMatch(/^[0-9a-f-]{36}$/);
    const [row] = await database.dataSource.getRepository(ClientEntity).find();
    expect(row?.secretHash?.includes(Buffer.from(clientSecret))).toBe(false);
    expect(JSON.stringify(await clients.list())).not.toContain(clientSecret);
  });

  it('authenticates the right secret only', async () => {
    const { clientSecret } = await clients.create(registration);
    expect((await clients.authenticate('etl', clientSecret))?.clientId).toBe('etl');
    expect(await clients.authenticate('etl', `${clientSecret}x`)).toBeNull();
    expect(await clients.authenticate('etl', '')).toBeNull();
    expect(await clients.authenticate('unknown', clientSecret)).toBeNull();
    expect(await clients.authenticate('x'.repeat(10_000), clientSecret)).toBeNull();
  });

  it('refuses a disabled client even with the right secret', async () => {
    const { clientSecret } = await clients.create(registration);
    await database.dataSource.getRepository(ClientEntity).update({ clientId: 'etl' }, { enabled: false });
    expect(await clients.authenticate('etl', clientSecret)).toBeNull();
  });

  it('rotates the secret: the old one stops working, the new one works', async () => {
    const first = await clients.create(registration);
    const rotated = await clients.rotateSecret('etl');
    expect(rotated.clientSecret).not.toBe(first.clientSecret);
    expect(await clients.authenticate('etl', first.clientSecret)).toBeNull();
    expect((await clients.authenticate('etl', rotated.clientSecret))?.clientId).toBe('etl');
  });

  it('refuses a second client with the same id, also when both are created at once', async () => {
    const results = await Promise.allSettled([clients.create(registration), clients.create(registration)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ClientsError);
    expect((refused.reason as ClientsError).code).toBe('client_exists');
    expect(await clients.list()).toHaveLength(1);
  });

  it('puts a client without a tenant in the default tenant, and refuses an unknown tenant', async () => {
    const { client } = await clients.create(registration);
    expect(client.tenant?.name).toBe('default');
    await expect(clients.create({ ...registration, clientId: 'other', tenantName: 'nope' })).rejects.toMatchObject({
      code: 'tenant_not_found',
    });
  });

  it("registers the platform operator's integration in no tenant, client_credentials only, never also in a named tenant", async () => {
    const { client } = await clients.create({ ...registration, operator: true });
    expect(client).toMatchObject({ clientId: 'etl', tenantId: null });
    expect(client.tenant ?? null).toBeNull();
    expect((await clients.list()).map((c) => [c.clientId, c.tenantId])).toEqual([['etl', null]]);
    await expect(
      clients.create({ ...registration, clientId: 'etl-2', operator: true, tenantName: 'default' }),
    ).rejects.toMatchObject({ code: 'invalid_operator' });
    await expect(
      clients.create({
        clientId: 'app',
        name: 'App',
        grantTypes: ['authorization_code'],
        redirectUris: ['https://app.example.com/cb'],
        operator: true,
      }),
    ).rejects.toMatchObject({ code: 'invalid_operator' });
  });

  it('refuses in the database too a client of no tenant that may do more than client credentials', async () => {
    const { client } = await clients.create({ ...registration, operator: true });
    await expect(
      database.dataSource
        .getRepository(ClientEntity)
        .update({ clientId: client.clientId }, { grantTypes: ['client_credentials', 'authorization_code'] }),
    ).rejects.toThrow(/clients_tenantless_client_credentials/);
  });

  it('gives a public client (one that registered itself) no secret, and none to rotate; the database agrees', async () => {
    const at = new Date();
    const repository = new ClientRepository(database.dataSource);
    // The row the sign-in library's registration stores for a client that registered itself.
    await repository.insert(
      Object.assign(new ClientEntity(), {
        clientId: 'dcr-test',
        name: 'Host',
        tenantId: null,
        secretHash: null,
        secretRotatedAt: at,
        tokenEndpointAuthMethod: 'none',
        registration: 'dynamic',
        metadataExpiresAt: null,
        redirectUris: ['http://127.0.0.1:9/cb'],
        postLogoutRedirectUris: [],
        grantTypes: ['authorization_code'],
        scopes: ['mcp:all'],
        publicationStatus: 'Published',
        consentRequired: true,
        requirePkce: true,
        serviceAccountId: randomUUID(),
        enabled: true,
        createdAt: at,
        updatedAt: at,
      } satisfies Omit<ClientEntity, 'tenant'>),
    );
    await expect(clients.rotateSecret('dcr-test')).rejects.toMatchObject({ code: 'public_client' });
    expect(await clients.authenticate('dcr-test', '')).toBeNull();
    const rows = database.dataSource.getRepository(ClientEntity);
    await expect(rows.update({ clientId: 'dcr-test' }, { secretHash: Buffer.alloc(32) })).rejects.toThrow(
      /clients_public_without_secret/,
    );
    await expect(rows.update({ clientId: 'dcr-test' }, { requirePkce: false })).rejects.toThrow(/clients_public_pkce/);
    await expect(rows.update({ clientId: 'dcr-test' }, { registration: 'operator' })).rejects.toThrow(
      /clients_tenantless_client_credentials/,
    );
  });

  it('says when the client to rotate does not exist', async () => {
    await expect(clients.rotateSecret('nobody')).rejects.toMatchObject({ code: 'client_not_found' });
  });

  describe('changes, disabling and deleting (the same methods as the admin API and platformctl)', () => {
    const app = {
      clientId: 'crm',
      name: 'CRM',
      grantTypes: ['authorization_code', 'refresh_token'],
      redirectUris: ['https://crm.example.com/cb'],
      scopes: ['openid', 'chat:exec'],
    };
    const ended: { serviceAccountId: string; jtis: string[] }[] = [];
    let telling: ClientsService;

    beforeEach(() => {
      ended.length = 0;
      telling = new ClientsService(new ClientRepository(database.dataSource), {
        defaultTenantEndpoint: 'http://localhost:8080',
        protectedClientIds: ['web'],
        revocations: {
          clientTokensEnded: async (tokens) =>
            void ended.push({
              serviceAccountId: tokens.serviceAccountId,
              jtis: tokens.accessTokens.map((token) => token.jti).sort(),
            }),
        },
      });
    });

    const codeOfWork = async (work: Promise<unknown>) => {
      try {
        await work;
      } catch (error) {
        return error instanceof ClientsError ? error.code : `not a ClientsError: ${String(error)}`;
      }
      return undefined;
    };

    /** A user's session of `clientId`: a family, a refresh token with a live access token and an old one, a consent, a code. */
    async function signedInSession(clientId: string): Promise<void> {
      const query = (sql: string, parameters: unknown[]) => database.dataSource.query(sql, parameters);
      const userId = randomUUID();
      const [tenant] = (await query(`SELECT "id" FROM "identity"."tenants" WHERE "name" = 'default'`, [])) as {
        id: string;
      }[];
      await query(
        `INSERT INTO "identity"."users" ("id", "tenant_id", "email", "email_verified", "username", "display_name",
           "role", "developer", "status", "created_at", "updated_at")
         VALUES ($1, $2, $3, true, $3, 'U', 'user', false, 'approved', now(), now())`,
        [userId, tenant?.id, `${userId}@example.com`],
      );
      await query(
        `INSERT INTO "identity"."token_families" ("id", "client_id", "user_id", "created_at", "expires_at")
         VALUES ($1, $2, $3, now(), now() + interval '1 day')`,
        [`family-${clientId}`, clientId, userId],
      );
      for (const [jti, accessExpiresAt] of [
        [`live-${clientId}`, "now() + interval '5 minutes'"],
        [`old-${clientId}`, "now() - interval '1 day'"],
      ]) {
        await query(
          `INSERT INTO "identity"."refresh_tokens" ("token_hash", "family_id", "client_id", "user_id", "scope",
             "session_id", "auth_time", "access_token_id", "access_expires_at", "issued_at", "expires_at")
           VALUES ($1, $2, $3, $4, 'openid', 's', 1, $5, ${accessExpiresAt}, now(), now() + interval '1 day')`,
          [Buffer.from(jti), `family-${clientId}`, clientId, userId, jti],
        );
      }
      await query(
        `INSERT INTO "identity"."consents" ("user_id", "client_id", "scopes", "granted_at") VALUES ($1, $2, '{}', now())`,
        [userId, clientId],
      );
      await query(
        `INSERT INTO "identity"."oidc_artifacts" ("model", "id", "payload", "expires_at")
         VALUES ('AuthorizationCode', $1, $2, now() + interval '1 minute')`,
        [`code-${clientId}`, JSON.stringify({ clientId, accountId: userId })],
      );
    }

    const countOf = async (table: string, clientId: string) => {
      const column = table === 'oidc_artifacts' ? `"payload" ->> 'clientId'` : '"client_id"';
      const [{ count }] = (await database.dataSource.query(
        `SELECT count(*)::int AS "count" FROM "identity"."${table}" WHERE ${column} = $1`,
        [clientId],
      )) as { count: number }[];
      return count;
    };

    it('changes name, redirect URIs, scopes and consent by the rules of registration, and refuses what create refuses', async () => {
      await telling.create(app);
      const changed = await telling.update('crm', {
        name: '  CRM 2 ',
        redirectUris: ['https://crm.example.com/cb2', 'http://localhost:3000/cb'],
        postLogoutRedirectUris: ['https://crm.example.com/bye'],
        scopes: ['openid', 'chat:exec', 'chat:history'],
        consentRequired: false,
      });
      expect(changed).toMatchObject({
        name: 'CRM 2',
        redirectUris: ['https://crm.example.com/cb2', 'http://localhost:3000/cb'],
        postLogoutRedirectUris: ['https://crm.example.com/bye'],
        scopes: ['openid', 'chat:exec', 'chat:history'],
        consentRequired: false,
        enabled: true,
      });
      expect(changed.updatedAt.getTime()).toBeGreaterThanOrEqual(changed.createdAt.getTime());
      expect(await codeOfWork(telling.update('crm', { redirectUris: ['http://crm.example.com/cb'] }))).toBe(
        'invalid_redirect_uri',
      );
      expect(await codeOfWork(telling.update('crm', { redirectUris: [] }))).toBe('invalid_redirect_uri');
      expect(await codeOfWork(telling.update('crm', { name: ' ' }))).toBe('invalid_name');
      expect(await codeOfWork(telling.update('crm', { scopes: ['admin:all'] }))).toBe('invalid_scope');
      expect(await codeOfWork(telling.update('crm', { scopes: ['users:manage'] }))).toBe('invalid_scope');
      expect(await codeOfWork(telling.update('crm', {}))).toBe('nothing_to_change');
      expect(await codeOfWork(telling.update('crm', { allowManagementScopes: true }))).toBe('nothing_to_change');
      expect(await codeOfWork(telling.update('nobody', { name: 'X' }))).toBe('client_not_found');
      expect((await telling.get('crm')).name).toBe('CRM 2');

      const managed = await telling.update('crm', { scopes: ['users:manage'], allowManagementScopes: true });
      expect(managed.scopes).toEqual(['users:manage']);
      // Kept management scopes were allowed when set: a later change of something else needs no flag.
      expect((await telling.update('crm', { name: 'CRM 3' })).scopes).toEqual(['users:manage']);
    });

    it("gives platform:manage to a client_credentials client only when it is the operator's, in the database too", async () => {
      await telling.create(registration);
      expect(await codeOfWork(telling.update('etl', { scopes: ['platform:manage'] }))).toBe('invalid_scope');
      expect(
        await codeOfWork(telling.create({ ...registration, clientId: 'etl-2', scopes: ['platform:manage'] })),
      ).toBe('invalid_scope');
      await telling.create({ ...registration, clientId: 'ops', operator: true });
      expect((await telling.update('ops', { scopes: ['platform:manage'] })).scopes).toEqual(['platform:manage']);
      await expect(
        database.dataSource.getRepository(ClientEntity).update({ clientId: 'etl' }, { scopes: ['platform:manage'] }),
      ).rejects.toThrow(/clients_platform_scope_tenantless/);
    });

    it("disables a client: its sessions end, its users' live access tokens are revoked, the services are told; enable lets it in again", async () => {
      const { client, clientSecret } = await telling.create(app);
      await signedInSession('crm');
      const disabled = await telling.setEnabled('crm', false);
      expect(disabled.enabled).toBe(false);
      expect(await telling.authenticate('crm', clientSecret)).toBeNull();
      expect(ended).toEqual([{ serviceAccountId: client.serviceAccountId, jtis: ['live-crm'] }]);
      const revoked = (await database.dataSource.query(
        `SELECT "jti" FROM "identity"."revoked_access_tokens" ORDER BY "jti"`,
      )) as { jti: string }[];
      expect(revoked.map((row) => row.jti)).toEqual(['live-crm']);
      const [family] = (await database.dataSource.query(
        `SELECT "revoked_at" FROM "identity"."token_families" WHERE "client_id" = 'crm'`,
      )) as { revoked_at: Date | null }[];
      expect(family?.revoked_at).toBeInstanceOf(Date);
      const [{ unrevoked }] = (await database.dataSource.query(
        `SELECT count(*)::int AS "unrevoked" FROM "identity"."refresh_tokens" WHERE "client_id" = 'crm' AND "revoked_at" IS NULL`,
      )) as { unrevoked: number }[];
      expect(unrevoked).toBe(0);
      expect(await countOf('oidc_artifacts', 'crm')).toBe(0);
      expect(await countOf('consents', 'crm')).toBe(1);

      // Disabling again ends nothing more; enabling tells nobody.
      await telling.setEnabled('crm', false);
      expect((await telling.setEnabled('crm', true)).enabled).toBe(true);
      expect(ended).toHaveLength(1);
      expect((await telling.authenticate('crm', clientSecret))?.clientId).toBe('crm');
    });

    it('deletes a client with its refresh tokens, consents and codes, revoking its live access tokens; another client keeps its own', async () => {
      const { client } = await telling.create(app);
      await telling.create({ ...app, clientId: 'other' });
      await signedInSession('crm');
      await signedInSession('other');
      await telling.delete('crm');
      expect(await telling.find('crm')).toBeUndefined();
      for (const table of ['token_families', 'refresh_tokens', 'consents', 'oidc_artifacts']) {
        expect([table, await countOf(table, 'crm')]).toEqual([table, 0]);
        expect([table, await countOf(table, 'other')]).not.toEqual([table, 0]);
      }
      expect(ended).toEqual([{ serviceAccountId: client.serviceAccountId, jtis: ['live-crm'] }]);
      expect(await codeOfWork(telling.delete('crm'))).toBe('client_not_found');
      expect(ended).toHaveLength(1);
    });

    it("refuses to delete or disable the platform's own client unless forced (platformctl --force)", async () => {
      await telling.create({ ...app, clientId: 'web', publicClient: true });
      expect(await codeOfWork(telling.delete('web'))).toBe('protected_client');
      expect(await codeOfWork(telling.setEnabled('web', false))).toBe('protected_client');
      // Other changes are allowed: the platform puts back what it needs at its next start.
      expect((await telling.update('web', { name: 'Web' })).name).toBe('Web');
      expect((await telling.setEnabled('web', false, { force: true })).enabled).toBe(false);
      await telling.delete('web', { force: true });
      expect(await telling.find('web')).toBeUndefined();
    });

    it('lets only enabled change on a client that registered itself', async () => {
      const at = new Date();
      await new ClientRepository(database.dataSource).insert(
        Object.assign(new ClientEntity(), {
          clientId: 'dcr-1',
          name: 'Host',
          tenantId: null,
          secretHash: null,
          secretRotatedAt: at,
          tokenEndpointAuthMethod: 'none',
          registration: 'dynamic',
          metadataExpiresAt: null,
          redirectUris: ['http://127.0.0.1:9/cb'],
          postLogoutRedirectUris: [],
          grantTypes: ['authorization_code'],
          scopes: ['mcp:all'],
          publicationStatus: 'Published',
          consentRequired: true,
          requirePkce: true,
          serviceAccountId: randomUUID(),
          enabled: true,
          createdAt: at,
          updatedAt: at,
        } satisfies Omit<ClientEntity, 'tenant'>),
      );
      expect(await codeOfWork(telling.update('dcr-1', { name: 'Mine' }))).toBe('self_registered_client');
      expect((await telling.setEnabled('dcr-1', false)).enabled).toBe(false);
      expect(ended).toHaveLength(1);
    });

    it('gives the first-party web client the management scopes and platform:manage, adding them to an existing one once, keeping its other scopes', async () => {
      const web = {
        clientId: 'web',
        name: 'Web app',
        scopes: ['openid', 'chat:exec'],
        baseUrl: 'http://localhost:8080',
        callbackPath: '/callback',
        signedOutPath: '/signed-out',
      };
      await ensureFirstPartyWebClient(telling, web);
      expect((await telling.get('web')).scopes).toEqual(['openid', 'chat:exec', ...managementScopes]);
      expect(await telling.get('web')).toMatchObject({ tokenEndpointAuthMethod: 'none', consentRequired: false });

      // A web client made before: its scopes gain what it lacks, its own stay; its redirects follow the address.
      await telling.update('web', { scopes: ['openid', 'chat:exec', 'chat:file'] }, { force: true });
      await ensureFirstPartyWebClient(telling, { ...web, baseUrl: 'https://platform.example.com' });
      const updated = await telling.get('web');
      expect(updated.scopes).toEqual(['openid', 'chat:exec', 'chat:file', ...managementScopes]);
      expect(updated.redirectUris).toEqual(['https://platform.example.com/callback']);
      const at = updated.updatedAt.getTime();
      await ensureFirstPartyWebClient(telling, { ...web, baseUrl: 'https://platform.example.com' });
      expect((await telling.get('web')).updatedAt.getTime()).toBe(at);
    });

    it('lists a numbered page by client id, filtered by a substring of id or name and by tenant', async () => {
      const tenants = database.dataSource.getRepository(TenantEntity);
      await tenants.insert({
        id: randomUUID(),
        name: 'acme',
        type: 'saas',
        endpoint: 'https://acme',
        enabled: true,
        createdAt: new Date(),
      });
      await telling.create({ ...registration, clientId: 'b-etl', name: 'Billing 100%' });
      await telling.create({ ...registration, clientId: 'a-etl', name: 'Audit', tenantName: 'acme' });
      await telling.create({ ...registration, clientId: 'c', name: 'Other', operator: true });
      const page = (filters: Parameters<ClientsService['page']>[0], limit = 25, pageNumber = 1) =>
        telling
          .page(filters, { limit, page: pageNumber, offset: (pageNumber - 1) * limit })
          .then(({ clients, total }) => ({ ids: clients.map((c) => c.clientId), total }));
      expect(await page({})).toEqual({ ids: ['a-etl', 'b-etl', 'c'], total: 3 });
      expect(await page({}, 2, 2)).toEqual({ ids: ['c'], total: 3 });
      expect(await page({ search: 'ETL' })).toEqual({ ids: ['a-etl', 'b-etl'], total: 2 });
      expect(await page({ search: 'billing' })).toEqual({ ids: ['b-etl'], total: 1 });
      expect(await page({ search: '0%' })).toEqual({ ids: ['b-etl'], total: 1 });
      expect(await page({ search: '_' })).toEqual({ ids: [], total: 0 });
      expect(await page({ tenantName: 'acme' })).toEqual({ ids: ['a-etl'], total: 1 });
      expect(await page({ tenantName: 'nope' })).toEqual({ ids: [], total: 0 });
    });
  });
});
