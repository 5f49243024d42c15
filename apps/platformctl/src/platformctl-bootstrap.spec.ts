import { verify } from '@node-rs/argon2';
import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
// eslint-disable-next-line @nx/enforce-module-boundaries -- the agent's key is proven against the real model gateway, as the stack runs it.
import { bootGateway } from '../../llm-gateway/src/testing/boot-gateway';

// `platformctl bootstrap`, as docker-compose.yml's one-shot `bootstrap` service runs it before the
// apps of a fresh stack start: against a real PostgreSQL, then the key against a real llm-gateway.

const cli = 'dist/apps/platformctl/src/main.js';

async function run(args: string[], env: Record<string, string>) {
  const handle = startProcess(cli, args, cleanEnv({ PUBLIC_URL: 'http://localhost:8080', ...env }));
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

interface Credentials {
  user: { login: string; password: string };
  app: { clientId: string; clientSecret: string; redirectUri: string };
  service: { clientId: string; clientSecret: string };
}

/** Every row bootstrap may write, to show that a second run writes none. */
async function snapshot(database: TestDatabase): Promise<string> {
  const tables = [
    'identity.users',
    'identity.clients',
    'gateway.api_keys',
    'agent.personas',
    'agent.playbooks',
    'agent.skills',
  ];
  const rows = await Promise.all(tables.map((table) => database.dataSource.query(`SELECT * FROM ${table} ORDER BY 1`)));
  return JSON.stringify(rows);
}

const liveAgentKeys = (database: TestDatabase) =>
  database.dataSource.query(
    `SELECT "key_hash" FROM "gateway"."api_keys" WHERE "name" = 'agent-runtime' AND "revoked_at" IS NULL`,
  ) as Promise<{ key_hash: Buffer }[]>;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

describe('platformctl bootstrap', () => {
  let database: TestDatabase;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'bootstrap-'));
    env = { DATABASE_URL: database.url };
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('creates the demo realm and the agent key on a fresh database, prints the credentials and keeps both in --dir', async () => {
    const { code, output } = await run(['bootstrap', '--dir', dir], env);
    expect([code, output]).toEqual([0, expect.stringContaining('demo realm created')]);
    const credentialsFile = path.join(dir, 'demo-credentials.json');
    const keyFile = path.join(dir, 'agent-gateway-key');
    for (const file of [credentialsFile, keyFile]) expect(((await stat(file)).mode & 0o777).toString(8)).toBe('600');

    const credentials = JSON.parse(await readFile(credentialsFile, 'utf8')) as Credentials;
    expect(output).toContain(credentialsFile);
    expect(output).toContain(`${credentials.user.login} / ${credentials.user.password}`);
    expect(output).toContain(`${credentials.service.clientId} / ${credentials.service.clientSecret}`);
    expect(output).toContain('http://localhost:8080/federation/auth/v1/token');
    expect(output).toContain(`agent gateway key: created, kept in ${keyFile}`);
    // The key itself is never printed: agent-runtime reads the file.
    const key = (await readFile(keyFile, 'utf8')).trim();
    expect(key).toMatch(/^fed_[A-Za-z0-9_-]{43}$/);
    expect(output).not.toContain(key);

    // The user and the two clients hold exactly the printed secrets, and the web app's client has none (public);
    // the catalog is seeded.
    const [user] = (await database.dataSource.query(
      `SELECT "password_hash", "role", "developer", "status" FROM "identity"."users" WHERE "username" = 'demo'`,
    )) as { password_hash: string; role: string; developer: boolean; status: string }[];
    expect(await verify(user.password_hash, credentials.user.password)).toBe(true);
    expect([user.role, user.developer, user.status]).toEqual(['admin', true, 'approved']);
    const clients = (await database.dataSource.query(
      `SELECT "client_id", "secret_hash" FROM "identity"."clients" ORDER BY "client_id"`,
    )) as { client_id: string; secret_hash: Buffer }[];
    expect(clients).toEqual([
      { client_id: 'demo-app', secret_hash: sha256(credentials.app.clientSecret) },
      { client_id: 'demo-service', secret_hash: sha256(credentials.service.clientSecret) },
      { client_id: 'web', secret_hash: null },
    ]);
    expect(output).toContain('web app: http://localhost:8080/ (public client web)');
    const [web] = (await database.dataSource.query(
      `SELECT "redirect_uris", "post_logout_redirect_uris", "consent_required" FROM "identity"."clients" WHERE "client_id" = 'web'`,
    )) as unknown[];
    expect(web).toEqual({
      redirect_uris: ['http://localhost:8080/callback'],
      post_logout_redirect_uris: ['http://localhost:8080/signed-out'],
      consent_required: false,
    });
    expect(await liveAgentKeys(database)).toEqual([{ key_hash: sha256(key) }]);
    const [{ count }] = (await database.dataSource.query(`SELECT count(*)::int AS count FROM "agent"."personas"`)) as {
      count: number;
    }[];
    expect(count).toBeGreaterThan(0);
  });

  it('changes nothing when run again, and says where the credentials are', async () => {
    const before = await snapshot(database);
    const files = await Promise.all(
      ['demo-credentials.json', 'agent-gateway-key'].map((f) => readFile(path.join(dir, f))),
    );
    const { code, output } = await run(['bootstrap', '--dir', dir], env);
    expect(code).toBe(0);
    expect(output).toContain(
      `demo realm: in place, nothing changed; credentials in ${path.join(dir, 'demo-credentials.json')}`,
    );
    expect(output).toContain('agent gateway key: live, nothing changed');
    expect(await snapshot(database)).toBe(before);
    const after = await Promise.all(
      ['demo-credentials.json', 'agent-gateway-key'].map((f) => readFile(path.join(dir, f))),
    );
    expect(after).toEqual(files);
  });

  it('gives the agent a key that the model gateway takes: the built-in demo model answers with it', async () => {
    const key = (await readFile(path.join(dir, 'agent-gateway-key'), 'utf8')).trim();
    const gateway = await bootGateway({ databaseUrl: database.url });
    try {
      const response = await fetch(`${gateway.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hello' }] }),
      });
      const body = (await response.json()) as { choices?: { message: { content: string } }[] };
      expect(response.status).toBe(200);
      expect(body.choices?.[0]?.message.content.length).toBeGreaterThan(0);
    } finally {
      await gateway.service.shutdown('test');
    }
  });

  it('replaces a key that is no longer live', async () => {
    const keyFile = path.join(dir, 'agent-gateway-key');
    const old = await readFile(keyFile, 'utf8');
    expect((await run(['apikeys', 'revoke', 'agent-runtime'], env)).code).toBe(0);
    const { code, output } = await run(['bootstrap', '--dir', dir], env);
    expect(code).toBe(0);
    expect(output).toContain('demo realm: in place, nothing changed');
    expect(output).toContain('agent gateway key: the kept one was no longer live');
    const replaced = (await readFile(keyFile, 'utf8')).trim();
    expect(replaced).not.toBe(old.trim());
    expect(await liveAgentKeys(database)).toEqual([{ key_hash: sha256(replaced) }]);
  });

  describe('on a realm it did not make', () => {
    let other: TestDatabase;
    let otherDir: string;
    beforeAll(async () => {
      other = await createTestDatabase();
      otherDir = await mkdtemp(path.join(tmpdir(), 'bootstrap-'));
    });
    afterAll(async () => {
      await other?.drop();
      if (otherDir) await rm(otherDir, { recursive: true, force: true });
    });

    it('refuses a credentials file it did not write, and imports nothing', async () => {
      const file = path.join(otherDir, 'demo-credentials.json');
      await writeFile(file, '{"user": {"login": "demo", "password": "x"}}');
      const { code, output } = await run(['bootstrap', '--dir', otherDir], { DATABASE_URL: other.url });
      expect(code).toBe(1);
      expect(output).toContain(`${file} is not a demo credentials file of platformctl bootstrap`);
      expect(await readFile(file, 'utf8')).toBe('{"user": {"login": "demo", "password": "x"}}');
      expect(await other.dataSource.query(`SELECT 1 FROM "identity"."users"`)).toEqual([]);
      await rm(file);
    });

    it('leaves a realm with users or clients of its own alone, and still makes the agent key', async () => {
      const made = await run(
        ['clients', 'create', '--client-id', 'own-app', '--name', 'Own', '--grant', 'client_credentials'],
        {
          DATABASE_URL: other.url,
        },
      );
      expect(made.code).toBe(0);
      const { code, output } = await run(['bootstrap', '--dir', otherDir], { DATABASE_URL: other.url });
      expect(code).toBe(0);
      expect(output).toContain('demo realm: not created, the realm already has users or clients of its own');
      expect(output).toContain('agent gateway key: created');
      await expect(stat(path.join(otherDir, 'demo-credentials.json'))).rejects.toThrow(/ENOENT/);
      expect(await other.dataSource.query(`SELECT "client_id" FROM "identity"."clients"`)).toEqual([
        { client_id: 'own-app' },
      ]);
    });
  });

  describe('with --agent-key-dir (docker-compose.yml: the key in a volume of its own, for agent-runtime)', () => {
    let apart: TestDatabase;
    let credentialsDir: string;
    let keyDir: string;
    beforeAll(async () => {
      apart = await createTestDatabase();
      credentialsDir = await mkdtemp(path.join(tmpdir(), 'bootstrap-'));
      keyDir = path.join(await mkdtemp(path.join(tmpdir(), 'bootstrap-')), 'agent-key');
    });
    afterAll(async () => {
      await apart?.drop();
      for (const directory of [credentialsDir, keyDir && path.dirname(keyDir)]) {
        if (directory) await rm(directory, { recursive: true, force: true });
      }
    });

    it('keeps the key there, and only the key, the demo credentials in --dir; run again, it changes nothing', async () => {
      const args = ['bootstrap', '--dir', credentialsDir, '--agent-key-dir', keyDir];
      const first = await run(args, { DATABASE_URL: apart.url });
      expect([first.code, first.output]).toEqual([0, expect.stringContaining('demo realm created')]);
      const keyFile = path.join(keyDir, 'agent-gateway-key');
      expect(first.output).toContain(`agent gateway key: created, kept in ${keyFile}`);
      expect(await readdir(keyDir)).toEqual(['agent-gateway-key']);
      expect(await readdir(credentialsDir)).toEqual(['demo-credentials.json']);
      expect(((await stat(keyDir)).mode & 0o777).toString(8)).toBe('700');
      expect(((await stat(keyFile)).mode & 0o777).toString(8)).toBe('600');
      const key = (await readFile(keyFile, 'utf8')).trim();
      expect(await liveAgentKeys(apart)).toEqual([{ key_hash: sha256(key) }]);

      const again = await run(args, { DATABASE_URL: apart.url });
      expect(again.code).toBe(0);
      expect(again.output).toContain('agent gateway key: live, nothing changed');
      expect((await readFile(keyFile, 'utf8')).trim()).toBe(key);
    });
  });

  it('needs --dir', async () => {
    const { code, output } = await run(['bootstrap'], env);
    expect(code).toBe(1);
    expect(output).toContain("required option '--dir <dir>' not specified");
  });
});
