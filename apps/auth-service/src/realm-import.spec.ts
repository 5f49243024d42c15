import 'reflect-metadata';
import { RealmError } from '@fed/identity';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bootAuthService, registryOf } from '@fed/sign-in/testing';

describe('REALM_IMPORT at start', () => {
  let database: TestDatabase;
  let dir: string;
  // One key for the database: the signing key made at the first start must open at the next.
  const encryptionKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'fed-realm-boot-'));
  });
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  async function boot(realm: unknown) {
    const file = path.join(dir, `realm-${Date.now()}.json`);
    await writeFile(file, JSON.stringify(realm));
    return bootAuthService({ databaseUrl: database.url, encryptionKey, env: { REALM_IMPORT: file } });
  }

  it('imports the realm file before the service takes requests', async () => {
    const secret = 'a-client-secret-that-is-long-enough-42';
    const service = await boot({
      realm: 'federation',
      clients: [{ clientId: 'etl', name: 'ETL', secret, grantTypes: ['client_credentials'] }],
    });
    try {
      const { clients } = registryOf(service);
      expect(await clients.authenticate('etl', secret)).not.toBeNull();
    } finally {
      await service.shutdown('test');
    }
  });

  it('refuses to start on a realm file it cannot import', async () => {
    await expect(
      boot({ realm: 'federation', clients: [{ clientId: 'bad id', name: 'x', grantTypes: [] }] }),
    ).rejects.toBeInstanceOf(RealmError);
  });
});
