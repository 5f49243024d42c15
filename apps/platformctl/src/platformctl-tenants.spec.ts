import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomBytes, randomUUID } from 'node:crypto';

const cli = 'dist/apps/platformctl/src/main.js';
const SECRET = 'upstream-client-secret-value';

describe('platformctl tenants idp', () => {
  let database: TestDatabase;
  let env: Record<string, string>;

  async function run(args: string[], input?: string, extraEnv: Record<string, string> = {}) {
    const handle = startProcess(cli, ['tenants', 'idp', ...args], cleanEnv({ ...env, ...extraEnv }));
    handle.child.stdin?.end(input ?? '');
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  }

  const storedSecret = async () =>
    (
      await database.dataSource.query(
        `SELECT "client_secret_ciphertext" AS "sealed" FROM "identity"."tenant_identity_providers" p JOIN "identity"."tenants" t ON t.id = p.tenant_id WHERE t.name = 'acme'`,
      )
    )[0]?.sealed as Buffer | undefined;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url, KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64') };
    for (const [name, type] of [
      ['acme', 'enterprise'],
      ['globex', 'enterprise'],
      ['shop', 'saas'],
    ]) {
      await database.dataSource.query(
        `INSERT INTO "identity"."tenants" ("id", "name", "type", "endpoint", "enabled", "created_at") VALUES ($1, $2, $3, 'https://x.example', true, now())`,
        [randomUUID(), name, type],
      );
    }
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('set stores the provider with its secret encrypted (read from standard input) and prints it without the secret', async () => {
    const { code, output } = await run(
      [
        'set',
        'acme',
        '--issuer',
        'https://login.acme.example/',
        '--client-id',
        'broker',
        '--client-secret-stdin',
        '--scope',
        'openid',
        '--scope',
        'email',
        '--domain',
        'Acme.example',
        '--claim',
        'organization=department',
      ],
      `${SECRET}\n`,
    );
    expect(code).toBe(0);
    expect(output).toContain('issuer: https://login.acme.example/');
    expect(output).toContain('domains: acme.example');
    expect(output).toContain('organization=department');
    expect(output).toContain('redirect_uri to register upstream: {AUTH_URL}/federation/auth/v1/idp/callback');
    expect(output).not.toContain(SECRET);
    const sealed = await storedSecret();
    expect(sealed?.includes(Buffer.from(SECRET))).toBe(false);
  });

  it('show prints the provider and never the secret', async () => {
    const { code, output } = await run(['show', 'acme']);
    expect(code).toBe(0);
    expect(output).toContain('client_id: broker');
    expect(output).toContain('scopes: openid email');
    expect(output).toContain('client_secret: (stored encrypted; never shown)');
    expect(output).not.toContain(SECRET);
  });

  it('set without a new secret or domains keeps the stored ones', async () => {
    const before = await storedSecret();
    const answer = await run(['set', 'acme', '--issuer', 'https://login.acme.example/', '--client-id', 'broker2']);
    expect(answer).toMatchObject({ code: 0, output: expect.stringContaining('client_id: broker2') });
    expect(answer.output).toContain('domains: acme.example');
    expect((await storedSecret())?.equals(before as Buffer)).toBe(true);
  });

  it('refuses a saas tenant, a domain of another tenant, a plain-http issuer, and a secret without KEY_ENCRYPTION_KEY', async () => {
    const args = (tenant: string, ...more: string[]) => [
      'set',
      tenant,
      '--issuer',
      'https://id.example',
      '--client-id',
      'c',
      '--client-secret-stdin',
      ...more,
    ];
    expect(await run(args('shop'), 's')).toMatchObject({
      code: 1,
      output: expect.stringContaining('refused (not_enterprise)'),
    });
    expect(await run(args('globex', '--domain', 'acme.example'), 's')).toMatchObject({
      code: 1,
      output: expect.stringContaining(
        'refused (domain_taken): the e-mail domain acme.example belongs to another tenant',
      ),
    });
    const http = ['set', 'globex', '--issuer', 'http://id.example', '--client-id', 'c', '--client-secret-stdin'];
    expect(await run(http, 's')).toMatchObject({
      code: 1,
      output: expect.stringContaining('refused (invalid_issuer)'),
    });
    expect(await run(args('globex'), 's', { KEY_ENCRYPTION_KEY: '' })).toMatchObject({
      code: 1,
      output: expect.stringContaining('refused (no_encryption_key)'),
    });
  });

  it('remove disconnects the provider; show then says there is none', async () => {
    expect(await run(['remove', 'acme'])).toMatchObject({
      code: 0,
      output: expect.stringContaining('removed the identity provider of acme'),
    });
    expect(await run(['show', 'acme'])).toMatchObject({
      code: 1,
      output: expect.stringContaining('refused (idp_not_found)'),
    });
    const [{ count }] = await database.dataSource.query(
      `SELECT count(*)::int AS "count" FROM "identity"."tenant_idp_domains"`,
    );
    expect(count).toBe(0);
  });
});
