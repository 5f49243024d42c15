import { type ProcessHandle, buildDist, cleanEnv, freePort, signIn, startProcess } from '@fed/testing';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const platformMain = 'dist/apps/platform/src/main.js';
const cli = 'dist/apps/platformctl/src/main.js';
const DATABASE_FILE = 'embedded-postgres.json';
const RELAY_FILE = 'signal-relay.json';

async function platformctl(dataDir: string, args: string[], input?: string) {
  const handle = startProcess(cli, args, cleanEnv({ DATA_DIR: dataDir }));
  if (input !== undefined) handle.child.stdin?.end(input);
  const code = await handle.exited(60_000);
  return { code, output: handle.output() };
}

describe('platformctl while the all-in-one platform runs on the same DATA_DIR', () => {
  const password = 'a long passphrase for carol';
  let dataDir: string;
  let port: number;
  let platform: ProcessHandle;
  let carolToken: string;
  let conversationId: string;

  beforeAll(async () => {
    buildDist();
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-beside-'));
    port = await freePort();
    platform = startProcess(platformMain, [], cleanEnv({ PORT: String(port), DATA_DIR: dataDir }));
    await platform.waitForOutput(/Press Ctrl-C to stop/, 60_000);
  }, 90_000);

  afterAll(async () => {
    if (platform?.child.exitCode === null) platform.child.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  });

  const ctl = (args: string[], input?: string) => platformctl(dataDir, args, input);
  const base = () => `http://127.0.0.1:${port}`;
  const status = (urlPath: string, token: string) =>
    fetch(`${base()}${urlPath}`, { headers: { authorization: `Bearer ${token}` } }).then((res) => res.status);

  it('finds where the platform serves its database and takes signals, in files only their owner may read', async () => {
    for (const file of [DATABASE_FILE, RELAY_FILE]) {
      const written = path.join(dataDir, file);
      expect((await stat(written)).mode & 0o777).toBe(0o600);
      expect(JSON.parse(await readFile(written, 'utf8'))).toMatchObject({ version: 1, pid: platform.child.pid });
    }
  });

  it('creates a user while the platform runs, who then signs in through the platform and is listed', async () => {
    const created = await ctl(
      ['users', 'create', '--email', 'carol@example.com', '--username', 'carol', '--name', 'Carol', '--password-stdin'],
      `${password}\n`,
    );
    expect(created).toMatchObject({
      code: 0,
      output: expect.stringMatching(/^user \S+ carol@example\.com \(user, approved\)$/m),
    });

    const demo = JSON.parse(await readFile(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as {
      app: { clientId: string; clientSecret: string; redirectUri: string };
    };
    const tokens = await signIn({
      serviceUrl: `http://localhost:${port}`,
      issuer: `http://localhost:${port}/realms/federation`,
      clientId: demo.app.clientId,
      clientSecret: demo.app.clientSecret,
      redirectUri: demo.app.redirectUri,
      login: 'carol',
      password,
      scope: 'openid chat:exec chat:history',
    });
    carolToken = tokens.access_token;
    expect(await status('/api/v1/conversations', carolToken)).toBe(200);

    const listed = await ctl(['users', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.output).toContain('carol@example.com  user  approved  tenant=default');
    expect(listed.output).toContain('demo@example.com');
  }, 60_000);

  it('archives a conversation while the platform runs, and the platform lists it in the archive', async () => {
    const turn = await fetch(`${base()}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${carolToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'federation-agent', stream: true, messages: [{ role: 'user', content: 'Hello' }] }),
    });
    expect(turn.status).toBe(200);
    conversationId = turn.headers.get('x-conversation-id') as string;
    expect(await turn.text()).toContain('data: [DONE]');

    const archived = await ctl(['conversations', 'archive', conversationId]);
    expect(archived).toMatchObject({ code: 0, output: expect.stringContaining(`archived ${conversationId}`) });
    const list = async (mode: string) => {
      const res = await fetch(`${base()}/api/v1/conversations?mode=${mode}`, {
        headers: { authorization: `Bearer ${carolToken}` },
      });
      return ((await res.json()) as { conversations: { conversationId: string }[] }).conversations.map(
        (conversation) => conversation.conversationId,
      );
    };
    expect(await list('active')).not.toContain(conversationId);
    expect(await list('archive')).toEqual([conversationId]);
  }, 60_000);

  it("ends the sessions of a user rejected while the platform runs: the platform refuses the user's token within a second", async () => {
    await sleep(1000); // the cut-off refuses tokens of its own second: keep the sign-in out of it
    const rejected = await ctl(['users', 'reject', 'carol']);
    expect(rejected).toMatchObject({
      code: 0,
      output: expect.stringContaining('carol: pending (existing sessions ended)'),
    });
    expect(rejected.output).not.toContain('no REDIS_URL');
    const since = Date.now();
    while ((await status('/api/v1/conversations', carolToken)) !== 401 && Date.now() - since < 2000) await sleep(20);
    expect(Date.now() - since).toBeLessThan(1000);
  }, 60_000);

  it('revokes a gateway key while the platform runs, refused at once (the platform keeps keys for 30 s otherwise)', async () => {
    const created = await ctl(['apikeys', 'create', '--name', 'ops-probe']);
    const apiKey = /^api_key: (\S+)$/m.exec(created.output)?.[1] as string;
    expect(apiKey).toBeDefined();
    const complete = () =>
      fetch(`${base()}/llm/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'Hi' }] }),
      }).then(async (res) => (await res.body?.cancel(), res.status));
    expect(await complete()).toBe(200);

    const revoked = await ctl(['apikeys', 'revoke', 'ops-probe']);
    expect(revoked.code).toBe(0);
    expect(revoked.output).not.toContain('no REDIS_URL');
    const since = Date.now();
    while ((await complete()) !== 401 && Date.now() - since < 2000) await sleep(20);
    expect(Date.now() - since).toBeLessThan(1000);
  }, 60_000);

  it("checks the platform's migrations without applying any: nothing is pending", async () => {
    const dryRun = await ctl(['migrate', '--dry-run']);
    expect(dryRun).toMatchObject({ code: 0, output: expect.stringContaining('no pending migrations') });
  });

  it('works on DATA_DIR by itself once the platform stopped cleanly, which removed both files', async () => {
    platform.child.kill('SIGINT');
    expect(await platform.exited(30_000)).toBe(0);
    for (const file of [DATABASE_FILE, RELAY_FILE]) {
      await expect(stat(path.join(dataDir, file))).rejects.toMatchObject({ code: 'ENOENT' });
    }
    const listed = await ctl(['users', 'list']);
    expect(listed).toMatchObject({ code: 0, output: expect.stringContaining('carol@example.com  user  pending') });
  }, 60_000);
});

describe('platformctl on a DATA_DIR whose holder it cannot use', () => {
  let dataDir: string;
  let holder: ChildProcess | undefined;

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(tmpdir(), 'fed-held-'));
  });

  afterEach(async () => {
    holder?.kill();
    holder = undefined;
    await rm(dataDir, { recursive: true, force: true });
  });

  const holdWith = async (pid: number, sharedAt?: string) => {
    await writeFile(path.join(dataDir, 'pg.lock'), String(pid));
    if (sharedAt) {
      const url = `postgres://postgres@localhost/postgres?host=${encodeURIComponent(sharedAt)}&port=5432`;
      await writeFile(path.join(dataDir, DATABASE_FILE), JSON.stringify({ version: 1, pid, url }));
    }
  };

  it('says what to do when the platform holds DATA_DIR but its database cannot be reached', async () => {
    holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const socketDir = path.join(dataDir, 'run');
    await holdWith(holder.pid as number, socketDir);
    const { code, output } = await platformctl(dataDir, ['users', 'list']);
    expect(code).toBe(1);
    expect(output).toContain(
      `the platform (pid ${holder.pid}) holds DATA_DIR ${dataDir} but its database cannot be reached at ${path.join(socketDir, '.s.PGSQL.5432')}`,
    );
    expect(output).toContain('stop the platform and run the command again, or set DATABASE_URL');
  });

  it('says what to do when a process holds DATA_DIR and shares its database with nobody', async () => {
    holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    await holdWith(holder.pid as number);
    const { code, output } = await platformctl(dataDir, ['users', 'list']);
    expect(code).toBe(1);
    expect(output).toContain(
      `process ${holder.pid} holds DATA_DIR ${dataDir} and shares its database with no other process`,
    );
    expect(output).toContain('or set DATABASE_URL');
  });

  it('is not misled by the files of a platform that is gone: it opens DATA_DIR itself', async () => {
    const { pid: deadPid } = spawnSync(process.execPath, ['-e', '']);
    await holdWith(deadPid, '/nowhere');
    await writeFile(
      path.join(dataDir, RELAY_FILE),
      JSON.stringify({ version: 1, pid: deadPid, url: 'http://127.0.0.1:1', secret: 'gone' }),
    );
    const created = await platformctl(dataDir, ['users', 'create', '--email', 'dan@example.com', '--name', 'Dan']);
    expect(created).toMatchObject({ code: 0, output: expect.stringContaining('dan@example.com (user, approved)') });
    // Nobody runs to be told: the command says what that means instead of failing on the stale relay.
    const rejected = await platformctl(dataDir, ['users', 'reject', 'dan@example.com']);
    expect(rejected).toMatchObject({
      code: 0,
      output: expect.stringContaining('existing sessions ended; no REDIS_URL'),
    });
    expect(rejected.output).not.toContain('could not be told');
  }, 60_000);
});
