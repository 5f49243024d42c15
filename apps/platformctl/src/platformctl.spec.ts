import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const cli = 'dist/apps/platformctl/src/main.js';

async function run(args: string[], env: Record<string, string>, input?: string) {
  const handle = startProcess(cli, args, cleanEnv(env));
  if (input !== undefined) handle.child.stdin?.end(input);
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

describe('platformctl', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
  });

  it('migrate reports the schema up to date on a migrated database', async () => {
    const { code, output } = await run(['migrate'], { DATABASE_URL: database.url });
    expect(code).toBe(0);
    expect(output).toContain('database schema up to date');
  });

  it('migrate --dry-run lists no pending migration on a migrated database', async () => {
    const { code, output } = await run(['migrate', '--dry-run'], { DATABASE_URL: database.url });
    expect(code).toBe(0);
    expect(output).toContain('no pending migrations');
  });

  it('config check passes for an app whose environment is complete, masking secrets', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'chat-service'], {
      DATABASE_URL: 'postgres://app:hunter2@db:5432/fed',
      REDIS_URL: 'redis://redis:6379',
    });
    expect(code).toBe(0);
    expect(output).toContain('chat-service: ok');
    expect(output).toContain('postgres://app:****@db:5432/fed');
    expect(output).not.toContain('hunter2');
  });

  it('config check fails with exit 1 and names each missing variable', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'llm-gateway'], {});
    expect(code).toBe(1);
    expect(output).toContain('DATABASE_URL: is required but not set');
    expect(output).toContain('REDIS_URL: is required but not set');
  });

  it('config check fails with exit 1 for agent-runtime without gateway credentials, naming what its turns need', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'agent-runtime'], {
      DATABASE_URL: 'postgres://app:hunter2@db:5432/fed',
      REDIS_URL: 'redis://redis:6379',
      AGENT_GATEWAY_API_KEY: '',
    });
    expect(code).toBe(1);
    expect(output).not.toContain('agent-runtime: ok');
    expect(output).toContain('agent-runtime: starts, but cannot do its work');
    expect(output).toContain(
      'AGENT_GATEWAY_API_KEY: is not set, nor are AGENT_CLIENT_ID and AGENT_CLIENT_SECRET: the agent has no credentials for the model gateway, so every agent turn ends with model_unavailable',
    );
    expect(output).toMatch(/AGENT_GATEWAY_URL +http:\/\/llm-gateway:8080\/llm\/v1 \(default\)/);
    expect(output).toMatch(/AGENT_GATEWAY_API_KEY +\(not set\)\n/);
  });

  it('config check passes for agent-runtime with a gateway key, masking it', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'agent-runtime'], {
      DATABASE_URL: 'postgres://app:hunter2@db:5432/fed',
      REDIS_URL: 'redis://redis:6379',
      AGENT_GATEWAY_API_KEY: 'fed_agentkey',
      AGENT_GATEWAY_URL: 'http://127.0.0.1:8083/llm/v1',
    });
    expect(code).toBe(0);
    expect(output).toContain('agent-runtime: ok');
    expect(output).toMatch(/AGENT_GATEWAY_API_KEY +\*\*\*\* \(environment\)/);
    expect(output).not.toContain('fed_agentkey');
  });

  it('config check without --app checks the all-in-one install, platform and platformctl, and passes on its defaults', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'fed-config-check-'));
    try {
      const { code, output } = await run(['config', 'check'], { DATA_DIR: dataDir });
      expect(code).toBe(0);
      expect(output).toContain('Checking the all-in-one install (platform, platformctl)');
      expect(output).toMatch(/^platform: ok$/m);
      expect(output).toMatch(/^platformctl: ok$/m);
      // No distributed service is checked: their missing DATABASE_URL and REDIS_URL are no problem of this install.
      expect(output).not.toMatch(
        /^(auth-service|chat-service|agent-runtime|admin-service|agent-protocols|llm-gateway):/m,
      );
      expect(output).not.toContain('invalid configuration');
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('config check names the app of each problem, and exits 1', async () => {
    const { code, output } = await run(['config', 'check'], { PORT: 'eighty', ACCESS_TOKEN_TTL_SECONDS: '5' });
    expect(code).toBe(1);
    expect(output).toContain('platform: invalid configuration, it would not start:');
    expect(output).toContain(
      '  platform: PORT: "eighty" is invalid ("eighty" is not an integer); allowed: an integer from 1 to 65535',
    );
    expect(output).toMatch(/^ {2}platform: ACCESS_TOKEN_TTL_SECONDS: /m);
    // platformctl reads the token lifetime too, not the port.
    expect(output).toMatch(/^ {2}platformctl: ACCESS_TOKEN_TTL_SECONDS: /m);
    expect(output).not.toMatch(/platformctl: PORT/);
  });

  it('refuses an unknown app name', async () => {
    const { code, output } = await run(['config', 'check', '--app', 'nope'], {});
    expect(code).not.toBe(0);
    expect(output).toContain('expected one of');
  });

  describe('keys', () => {
    const encryptionKey = randomBytes(32).toString('base64');
    let keysDatabase: TestDatabase;
    const env = () => ({ DATABASE_URL: keysDatabase.url, KEY_ENCRYPTION_KEY: encryptionKey });

    beforeAll(async () => {
      keysDatabase = await createTestDatabase();
    });
    afterAll(async () => {
      await keysDatabase?.drop();
    });

    it('lists no keys before the provider first started', async () => {
      const { code, output } = await run(['keys', 'list'], env());
      expect(code).toBe(0);
      expect(output).toContain('no signing keys yet');
    });

    it('rotate --now adds a key that signs at once', async () => {
      const { code, output } = await run(['keys', 'rotate', '--now'], env());
      expect(code).toBe(0);
      expect(output).toMatch(/^added \S+ \(active\)/m);
    });

    it('rotate publishes the next key ahead of signing and keeps the current one until its tokens expire', async () => {
      const rotated = await run(['keys', 'rotate', '--activate-in', '600'], env());
      expect(rotated.code).toBe(0);
      expect(rotated.output).toMatch(/^added \S+ \(next\)/m);
      const { output } = await run(['keys', 'list'], env());
      const states = output
        .trim()
        .split('\n')
        .map((line) => line.split(/\s+/)[1]);
      expect(states).toEqual(['active', 'next']);
    });

    it('refuses to rotate with an encryption key that cannot open the current key', async () => {
      const { code, output } = await run(['keys', 'rotate', '--now'], {
        ...env(),
        KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      });
      expect(code).toBe(1);
      expect(output).toContain('cannot be decrypted');
      const listed = await run(['keys', 'list'], env());
      expect(listed.output.trim().split('\n')).toHaveLength(2);
    });

    it('requires KEY_ENCRYPTION_KEY with an external database', async () => {
      const { code, output } = await run(['keys', 'rotate'], { DATABASE_URL: keysDatabase.url });
      expect(code).toBe(1);
      expect(output).toContain('KEY_ENCRYPTION_KEY must be set');
    });

    it('refuses a lead that is not a whole number of seconds', async () => {
      const { code, output } = await run(['keys', 'rotate', '--activate-in', '-5'], env());
      expect(code).not.toBe(0);
      expect(output).toContain('expected a whole number of seconds');
    });
  });

  describe('clients', () => {
    let clientsDatabase: TestDatabase;
    const env = () => ({ DATABASE_URL: clientsDatabase.url });

    beforeAll(async () => {
      clientsDatabase = await createTestDatabase();
    });
    afterAll(async () => {
      await clientsDatabase?.drop();
    });

    it('creates a client and prints its secret once', async () => {
      const { code, output } = await run(
        [
          'clients',
          'create',
          '--client-id',
          'crm',
          '--name',
          'CRM',
          '--grant',
          'authorization_code',
          '--grant',
          'refresh_token',
          '--redirect-uri',
          'https://crm.example.com/cb',
          '--scope',
          'openid',
          '--scope',
          'chat:exec',
          '--unpublished',
        ],
        env(),
      );
      expect(code).toBe(0);
      expect(output).toMatch(/^client_secret: [A-Za-z0-9_-]{43}$/m);
      const listed = await run(['clients', 'list'], env());
      expect(listed.output).toContain(
        'crm  Unpublished  confidential  tenant=default  consent=on  pkce=required  enabled  grants=authorization_code,refresh_token  scopes=openid chat:exec',
      );
      const secret = /^client_secret: (\S+)$/m.exec(output)?.[1] as string;
      expect(listed.output).not.toContain(secret);
    });

    it('registers a public client (--public) without a secret, and refuses one with client_credentials', async () => {
      const web = ['clients', 'create', '--client-id', 'web', '--name', 'Web app', '--public', '--no-consent'];
      const grants = ['--grant', 'authorization_code', '--grant', 'refresh_token'];
      const created = await run([...web, ...grants, '--redirect-uri', 'https://app.example.com/'], env());
      expect(created.code).toBe(0);
      expect(created.output).toContain('public client: no secret');
      expect(created.output).not.toContain('client_secret');
      expect((await run(['clients', 'list'], env())).output).toMatch(/^web {2}Published {2}public {2}tenant=default /m);

      const refused = await run(
        ['clients', 'create', '--client-id', 'web2', '--name', 'W', '--public', '--grant', 'client_credentials'],
        env(),
      );
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('refused (invalid_grant_types)');
      expect((await run(['clients', 'rotate-secret', 'web'], env())).output).toContain('refused (public_client)');
    });

    it('records the PKCE opt-out of a legacy confidential client', async () => {
      const legacy = ['--client-id', 'legacy', '--name', 'Legacy', '--grant', 'authorization_code'];
      const uri = ['--redirect-uri', 'https://legacy.example.com/cb', '--pkce-optional'];
      expect((await run(['clients', 'create', ...legacy, ...uri], env())).code).toBe(0);
      const listed = await run(['clients', 'list'], env());
      expect(listed.output).toMatch(/^legacy {2}Published .* pkce=optional /m);
    });

    it('refuses an invalid registration with the reason and exit 1', async () => {
      const { code, output } = await run(
        [
          'clients',
          'create',
          '--client-id',
          'bad',
          '--name',
          'Bad',
          '--grant',
          'authorization_code',
          '--redirect-uri',
          'http://evil.example.com/cb',
        ],
        env(),
      );
      expect(code).toBe(1);
      expect(output).toContain('refused (invalid_redirect_uri)');
      expect((await run(['clients', 'list'], env())).output).not.toContain('bad ');
    });

    it("registers the platform operator's integration in no tenant (--operator), client_credentials only, listed as tenant=-", async () => {
      const ops = ['clients', 'create', '--client-id', 'ops', '--name', 'Operator', '--operator'];
      const created = await run([...ops, '--grant', 'client_credentials', '--scope', 'logs:read'], env());
      expect(created.code).toBe(0);
      expect(created.output).toMatch(/^client_secret: [A-Za-z0-9_-]{43}$/m);
      const listed = await run(['clients', 'list'], env());
      expect(listed.output).toMatch(
        /^ops {2}Published {2}confidential {2}tenant=- {2}.* grants=client_credentials {2}scopes=logs:read /m,
      );

      const app = await run(
        [
          ...ops,
          '--client-id',
          'ops-app',
          '--grant',
          'authorization_code',
          '--redirect-uri',
          'https://a.example.com/cb',
        ],
        env(),
      );
      expect(app.code).toBe(1);
      expect(app.output).toContain('refused (invalid_operator)');
      expect(app.output).toContain('an application (authorization_code) always belongs to a tenant');
      const named = await run(
        [...ops, '--client-id', 'ops-2', '--grant', 'client_credentials', '--tenant', 'default'],
        env(),
      );
      expect(named.code).toBe(1);
      expect(named.output).toContain('refused (invalid_operator)');
      expect((await run(['clients', 'list'], env())).output).not.toMatch(/^ops-(app|2) /m);
    });

    it('refuses a duplicate client id', async () => {
      const args = ['clients', 'create', '--client-id', 'etl', '--name', 'ETL', '--grant', 'client_credentials'];
      expect((await run(args, env())).code).toBe(0);
      const again = await run(args, env());
      expect(again.code).toBe(1);
      expect(again.output).toContain('refused (client_exists)');
    });

    it('registers and replaces the URIs the sign-out page may return to, by the rules of redirect URIs', async () => {
      const create = [
        'clients',
        'create',
        '--client-id',
        'portal',
        '--name',
        'Portal',
        '--grant',
        'authorization_code',
      ];
      const uris = [
        '--redirect-uri',
        'https://portal.example.com/cb',
        '--post-logout-redirect-uri',
        'https://portal.example.com/bye',
      ];
      expect((await run([...create, ...uris], env())).code).toBe(0);
      const updated = await run(
        ['clients', 'update', 'portal', '--post-logout-redirect-uri', 'https://portal.example.com/signed-out'],
        env(),
      );
      expect(updated.code).toBe(0);
      expect(updated.output).toContain('portal  post-logout redirect URIs: https://portal.example.com/signed-out');
      const refused = await run(
        ['clients', 'update', 'portal', '--post-logout-redirect-uri', 'http://evil.example.com/'],
        env(),
      );
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('refused (invalid_redirect_uri)');
      const cleared = await run(['clients', 'update', 'portal', '--no-post-logout-redirect-uris'], env());
      expect(cleared.output).toContain('portal  post-logout redirect URIs: -');
    });

    it('changes name, redirect URIs, scopes and consent by the rules of registration (update)', async () => {
      const updated = await run(
        [
          'clients',
          'update',
          'portal',
          '--name',
          'Portal 2',
          '--redirect-uri',
          'https://portal.example.com/cb2',
          '--scope',
          'openid',
          '--scope',
          'chat:exec',
          '--consent',
          'off',
        ],
        env(),
      );
      expect(updated.code).toBe(0);
      expect(updated.output).toMatch(
        /^portal {2}Published .* consent=off .* scopes=openid chat:exec {2}name="Portal 2"$/m,
      );
      expect(updated.output).toContain('portal  redirect URIs: https://portal.example.com/cb2');
      const managed = await run(['clients', 'update', 'portal', '--scope', 'platform:manage'], env());
      expect(managed.code).toBe(1);
      expect(managed.output).toContain('refused (invalid_scope)');
      const allowed = await run(
        ['clients', 'update', 'portal', '--scope', 'platform:manage', '--allow-management-scopes'],
        env(),
      );
      expect(allowed.output).toContain('scopes=platform:manage');
      const nothing = await run(['clients', 'update', 'portal'], env());
      expect([nothing.code, nothing.output.includes('refused (nothing_to_change)')]).toEqual([1, true]);
    });

    it("disables, enables and deletes a client (the admin API's methods), and the platform's own client only with --force", async () => {
      const disabled = await run(['clients', 'disable', 'legacy'], env());
      expect(disabled.code).toBe(0);
      expect(disabled.output).toContain(
        'legacy: disabled (its sessions and tokens ended; no REDIS_URL: running services',
      );
      expect((await run(['clients', 'list'], env())).output).toMatch(/^legacy .* disabled /m);
      expect((await run(['clients', 'enable', 'legacy'], env())).output).toContain('legacy: enabled');
      expect((await run(['clients', 'list'], env())).output).toMatch(/^legacy .* enabled /m);
      const deleted = await run(['clients', 'delete', 'legacy'], env());
      expect(deleted.output).toContain('legacy: deleted');
      expect((await run(['clients', 'list'], env())).output).not.toMatch(/^legacy /m);
      expect((await run(['clients', 'delete', 'legacy'], env())).output).toContain('refused (client_not_found)');

      for (const command of ['disable', 'delete']) {
        const refused = await run(['clients', command, 'web'], env());
        expect([command, refused.code, refused.output.includes('refused (protected_client)')]).toEqual([
          command,
          1,
          true,
        ]);
      }
      expect((await run(['clients', 'disable', 'web', '--force'], env())).code).toBe(0);
      expect((await run(['clients', 'delete', 'web', '--force'], env())).output).toContain('web: deleted');
    });

    it("refuses platform:manage on a tenant's client_credentials client, takes it on the operator's", async () => {
      const tenantClient = await run(
        [
          'clients',
          'create',
          '--client-id',
          'pm',
          '--name',
          'PM',
          '--grant',
          'client_credentials',
          '--scope',
          'platform:manage',
        ],
        env(),
      );
      expect(tenantClient.code).toBe(1);
      expect(tenantClient.output).toContain('refused (invalid_scope)');
      const operator = await run(
        [
          'clients',
          'create',
          '--client-id',
          'pm',
          '--name',
          'PM',
          '--grant',
          'client_credentials',
          '--scope',
          'platform:manage',
          '--operator',
        ],
        env(),
      );
      expect(operator.code).toBe(0);
    });

    it('rotates a secret and says when the client does not exist', async () => {
      const rotated = await run(['clients', 'rotate-secret', 'etl'], env());
      expect(rotated.code).toBe(0);
      expect(rotated.output).toMatch(/^client_secret: [A-Za-z0-9_-]{43}$/m);
      const missing = await run(['clients', 'rotate-secret', 'nobody'], env());
      expect(missing.code).toBe(1);
      expect(missing.output).toContain('refused (client_not_found)');
    });
  });

  describe('users', () => {
    let usersDatabase: TestDatabase;
    const env = () => ({ DATABASE_URL: usersDatabase.url });

    beforeAll(async () => {
      usersDatabase = await createTestDatabase();
    });
    afterAll(async () => {
      await usersDatabase?.drop();
    });

    it('creates an approved user with a generated password shown once', async () => {
      const { code, output } = await run(
        ['users', 'create', '--email', 'Dev@Example.com', '--name', 'Dev', '--developer'],
        env(),
      );
      expect(code).toBe(0);
      expect(output).toMatch(/^user \S+ dev@example\.com \(user, approved\)$/m);
      expect(output).toMatch(/^password: [A-Za-z0-9_-]{24}$/m);
      expect((await run(['users', 'list'], env())).output).toContain(
        'dev@example.com  user+developer  approved  tenant=default',
      );
    });

    it('takes a password from standard input, never from the command line', async () => {
      const { code, output } = await run(
        ['users', 'create', '--email', 'ops@example.com', '--name', 'Ops', '--password-stdin', '--pending'],
        env(),
        'a long passphrase\n',
      );
      expect(code).toBe(0);
      expect(output).not.toContain('password:');
      expect(output).toContain('(user, pending)');
    });

    it('approves a pending user once, and refuses to approve again', async () => {
      expect((await run(['users', 'approve', 'ops@example.com'], env())).output).toContain('ops@example.com: approved');
      const again = await run(['users', 'approve', 'ops@example.com'], env());
      expect(again.code).toBe(1);
      expect(again.output).toContain('refused (invalid_status)');
    });

    it('changes roles, and says when lowering one ends the sessions', async () => {
      expect((await run(['users', 'set-role', 'ops@example.com', 'admin'], env())).output).toContain(
        'role of ops@example.com: admin',
      );
      const lowered = await run(['users', 'set-role', 'ops@example.com', 'user'], env());
      // Without REDIS_URL no running service can be told: the command says what that means.
      expect(lowered.output).toContain('(existing sessions ended; no REDIS_URL: running services accept');
      const unknown = await run(['users', 'set-role', 'nobody@example.com', 'admin'], env());
      expect(unknown.code).toBe(1);
      expect(unknown.output).toContain('refused (user_not_found)');
    });
  });

  describe('platform operators', () => {
    let operatorsDatabase: TestDatabase;
    const env = () => ({ DATABASE_URL: operatorsDatabase.url });

    beforeAll(async () => {
      operatorsDatabase = await createTestDatabase();
    });
    afterAll(async () => {
      await operatorsDatabase?.drop();
    });

    it('makes an admin a platform operator and back (set-operator on|off); off ends the sessions; never a user who is not an admin', async () => {
      await run(['users', 'create', '--email', 'root@example.com', '--name', 'Root', '--role', 'admin'], env());
      await run(['users', 'create', '--email', 'plain@example.com', '--name', 'Plain'], env());
      const on = await run(['users', 'set-operator', 'root@example.com', 'on'], env());
      expect([on.code, on.output.trim()]).toEqual([0, 'platform operator root@example.com: on']);
      expect((await run(['users', 'list'], env())).output).toContain('root@example.com  admin+operator  approved');
      const refused = await run(['users', 'set-operator', 'plain@example.com', 'on'], env());
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('refused (operator_needs_admin)');
      expect((await run(['users', 'list'], env())).output).toContain('plain@example.com  user  approved');
      const off = await run(['users', 'set-operator', 'root@example.com', 'off'], env());
      expect(off.output).toContain(
        'platform operator root@example.com: off (existing sessions ended; no REDIS_URL: running services accept',
      );
      expect((await run(['users', 'list'], env())).output).toContain('root@example.com  admin  approved');
      const bad = await run(['users', 'set-operator', 'root@example.com', 'maybe'], env());
      expect(bad.code).toBe(1);
      expect(bad.output).toContain('expected on or off');
      expect((await run(['users', 'set-operator', 'nobody@example.com', 'on'], env())).output).toContain(
        'refused (user_not_found)',
      );
    });
  });

  describe('realm', () => {
    let realmDatabase: TestDatabase;
    let dir: string;
    const env = () => ({ DATABASE_URL: realmDatabase.url });

    beforeAll(async () => {
      realmDatabase = await createTestDatabase();
      dir = await mkdtemp(path.join(tmpdir(), 'fed-realm-'));
    });
    afterAll(async () => {
      await realmDatabase?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    const realmFile = {
      realm: 'federation',
      tenants: [{ name: 'acme', type: 'enterprise', endpoint: 'https://acme.example.com' }],
      clients: [{ clientId: 'etl', name: 'ETL', grantTypes: ['client_credentials'], scopes: ['users:read'] }],
      users: [{ email: 'alice@acme.example.com', displayName: 'Alice', tenant: 'acme', password: 'alice password 1' }],
    };

    it('imports a realm file, showing a generated client secret once, and re-imports without change', async () => {
      const file = path.join(dir, 'realm.json');
      await writeFile(file, JSON.stringify(realmFile));
      const first = await run(['realm', 'import', file], env());
      expect(first.code).toBe(0);
      expect(first.output).toContain('users: 1 created, 0 updated');
      expect(first.output).toMatch(/^client_secret of etl: [A-Za-z0-9_-]{43} \(shown once/m);
      const again = await run(['realm', 'import', file], env());
      expect(again.output).toContain('tenants: 0 created, 1 updated');
      expect(again.output).not.toContain('client_secret');
    });

    it('exports the realm to a file only its owner can read, with hashes and no plain secrets', async () => {
      const file = path.join(dir, 'export.json');
      expect((await run(['realm', 'export', file], env())).code).toBe(0);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const text = await readFile(file, 'utf8');
      expect(text).not.toContain('alice password 1');
      const exported = JSON.parse(text) as { clients: { secretSha256: string }[]; users: { passwordHash: string }[] };
      expect(exported.clients[0]?.secretSha256).toMatch(/^[0-9a-f]{64}$/);
      expect(exported.users[0]?.passwordHash).toMatch(/^\$argon2id\$/);
    });

    it('refuses an invalid file with every problem and its path, exit 1', async () => {
      const file = path.join(dir, 'bad.json');
      await writeFile(file, JSON.stringify({ ...realmFile, users: [{ email: 'x', displayName: 'X', extra: 1 }] }));
      const { code, output } = await run(['realm', 'import', file], env());
      expect(code).toBe(1);
      expect(output).toContain('/users/0: must NOT have additional properties');
      await writeFile(file, '{ not json');
      const broken = await run(['realm', 'import', file], env());
      expect(broken.code).toBe(1);
      expect(broken.output).toContain('is not valid JSON');
    });
  });
});
