import { type Signals } from '@fed/bus';
import { type ServiceConfig } from '@fed/config';
import { createLogger } from '@fed/observability';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { ClientRepository, ClientsService, identityEntities } from '@fed/identity/internal';
import { ArtifactStore } from '../artifacts/artifact-store';
import { ExpiredArtifactsSweeper } from '../oidc.module';
import { RefreshTokenRepository } from '../refresh-tokens/refresh-token.repository';
import { TokenRevocations } from '../revocation/token-revocations';
import { checkClientMetadata, selfRegisteredClient } from './client-metadata';

const DAY = 86_400_000;

/** Real PostgreSQL: the sweeper's statement against rows as the flows leave them. */
describe('the sweeper deletes unused clients that registered themselves', () => {
  let database: TestDatabase;
  let clients: ClientRepository;
  let sweeper: ExpiredArtifactsSweeper;

  beforeEach(async () => {
    database = await createTestDatabase({ entities: identityEntities });
    const { dataSource } = database;
    clients = new ClientRepository(dataSource);
    const refreshTokens = new RefreshTokenRepository(dataSource);
    const artifacts = new ArtifactStore(dataSource);
    const signals = { publishRetained: async () => undefined } as unknown as Signals;
    sweeper = new ExpiredArtifactsSweeper(
      artifacts,
      refreshTokens,
      new TokenRevocations(dataSource, refreshTokens, artifacts, signals),
      clients,
      { registration: { unusedDays: 30 } } as ServiceConfig,
      createLogger({ service: 'test', level: 'silent' }),
    );
  });
  afterEach(async () => {
    await database?.drop();
  });

  const metadata = checkClientMetadata({ redirect_uris: ['https://host.example/cb'] }, 'host.example');
  /** A self-registered client created `ageDays` ago. */
  const registered = async (
    clientId: string,
    ageDays: number,
    kind: 'dynamic' | 'metadata_document' = 'dynamic',
    expiresInDays = -1,
  ) => {
    const at = new Date(Date.now() - ageDays * DAY);
    const expiresAt = kind === 'metadata_document' ? new Date(Date.now() + expiresInDays * DAY) : null;
    expect(await clients.insert(selfRegisteredClient(clientId, kind, metadata, at, expiresAt))).toBe(true);
    return clientId;
  };
  /** A token family of the client, as a code exchange makes, ending `expiresInDays` from now. */
  const family = (clientId: string, expiresInDays: number, revoked = false) =>
    database.dataSource.query(
      `INSERT INTO "identity"."token_families" ("id", "client_id", "user_id", "created_at", "expires_at", "revoked_at")
       VALUES ($1, $2, $3, now() - interval '40 days', now() + make_interval(days => $4), $5)`,
      [randomUUID(), clientId, randomUUID(), expiresInDays, revoked ? new Date() : null],
    );
  const remaining = async () =>
    (
      (await database.dataSource.query(`SELECT "client_id" FROM "identity"."clients" ORDER BY "client_id"`)) as {
        client_id: string;
      }[]
    ).map((row) => row.client_id);

  it('deletes dynamic clients older than the limit without a token family or a sign-in under way, only those', async () => {
    await registered('dcr-unused', 31);
    await registered('dcr-young', 29);
    await family(await registered('dcr-signed-in', 90), 10);
    await family(await registered('dcr-revoked-family', 90), 5, true);
    // A family that ended more than a day ago is swept first, and its client with it in the same sweep.
    await family(await registered('dcr-family-gone', 90), -2);
    // A sign-in under way: the code is not exchanged yet (no family), the client must still be there for it.
    await registered('dcr-code-pending', 31);
    await new ArtifactStore(database.dataSource).upsert(
      'AuthorizationCode',
      randomUUID(),
      { clientId: 'dcr-code-pending', accountId: randomUUID() },
      60,
    );
    await new ClientsService(clients, { defaultTenantEndpoint: 'http://localhost:8080' }).create({
      clientId: 'operator-unused',
      name: 'ETL',
      grantTypes: ['client_credentials'],
      scopes: ['users:read'],
    });
    await database.dataSource.query(
      `UPDATE "identity"."clients" SET "created_at" = now() - interval '400 days' WHERE "client_id" = 'operator-unused'`,
    );

    await sweeper.sweep();
    expect(await remaining()).toEqual([
      'dcr-code-pending',
      'dcr-revoked-family',
      'dcr-signed-in',
      'dcr-young',
      'operator-unused',
    ]);
  });

  it("deletes an unused metadata document's row only once it has expired (it is fetched again on next use)", async () => {
    await registered('https://a.example/expired.json', 31, 'metadata_document', -1);
    await registered('https://a.example/fresh.json', 31, 'metadata_document', 1);
    await family(await registered('https://a.example/used.json', 31, 'metadata_document', -1), 3);
    await sweeper.sweep();
    expect(await remaining()).toEqual(['https://a.example/fresh.json', 'https://a.example/used.json']);
  });
});
