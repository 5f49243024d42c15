import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { McpAppsServer, buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomBytes } from 'node:crypto';

const cli = 'dist/apps/platformctl/src/main.js';

describe('platformctl toolservers', () => {
  let database: TestDatabase;
  let server: McpAppsServer;
  const secretKey = randomBytes(32).toString('base64');

  // The test servers are on loopback: allowed as an operator of a private network would.
  const env = (extra: Record<string, string> = {}) =>
    cleanEnv({
      DATABASE_URL: database.url,
      TOOLSERVER_SECRET_KEY: secretKey,
      TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'true',
      ...extra,
    });
  const run = async (...args: string[]) => {
    const handle = startProcess(cli, args, env());
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  };
  const stderrOf = (handle: ReturnType<typeof startProcess>) => {
    let text = '';
    handle.child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString()));
    return () => text;
  };

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    server = await McpAppsServer.start({ authHeader: 'Bearer s3cret-value' });
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it('adds a server with its allowed tools, lists it without the auth header, refreshes and removes it', async () => {
    const added = await run(
      'toolservers',
      'add',
      'weather',
      '--url',
      server.url,
      '--auth-header',
      'Bearer s3cret-value',
      '--allow',
      'show_weather,echo',
      '--timeout-seconds',
      '5',
    );
    expect(added).toEqual({
      code: 0,
      output: expect.stringContaining('added tool server weather: weather__show_weather, weather__echo'),
    });
    expect(server.authorizations.at(-1)).toBe('Bearer s3cret-value');

    const listed = await run('toolservers', 'list');
    expect(listed.output).toMatch(
      /^weather {2}enabled {2}http:\/\/127\.0\.0\.1:\d+\/mcp {2}auth=set {2}timeout=5s {2}allowed=show_weather,echo {2}tools=weather__show_weather,weather__echo/m,
    );
    expect(listed.output).not.toContain('s3cret');

    expect((await run('toolservers', 'refresh', 'weather')).output).toContain(
      'refreshed tool server weather: weather__show_weather, weather__echo',
    );
    expect((await run('toolservers', 'remove', 'weather')).output).toContain('removed tool server weather');
    expect((await run('toolservers', 'list')).output).toContain('no tool servers');
  }, 120_000);

  it('reads the auth header from standard input with --auth-header-stdin, keeping it off the command line', async () => {
    const handle = startProcess(
      cli,
      ['toolservers', 'add', 'piped', '--url', server.url, '--auth-header-stdin', '--allow', 'echo'],
      env(),
    );
    const stderr = stderrOf(handle);
    handle.child.stdin?.end('Bearer s3cret-value\n');
    expect([await handle.exited(60_000), handle.output()]).toEqual([
      0,
      expect.stringContaining('added tool server piped: piped__echo'),
    ]);
    expect(stderr()).not.toContain('warning');
    expect(server.authorizations.at(-1)).toBe('Bearer s3cret-value');
    expect((await run('toolservers', 'list')).output).toMatch(/^piped .* auth=set /m);
    expect((await run('toolservers', 'remove', 'piped')).code).toBe(0);
  }, 120_000);

  it('warns on standard error when the auth header is given on the command line (ps, shell history)', async () => {
    const handle = startProcess(
      cli,
      ['toolservers', 'add', 'argued', '--url', server.url, '--auth-header', 'Bearer s3cret-value', '--allow', 'echo'],
      env(),
    );
    const stderr = stderrOf(handle);
    expect([await handle.exited(60_000), handle.output()]).toEqual([
      0,
      expect.stringContaining('added tool server argued: argued__echo'),
    ]);
    expect(stderr()).toBe(
      'warning: --auth-header puts the secret on the command line (ps, shell history): use --auth-header-stdin\n',
    );
    expect((await run('toolservers', 'remove', 'argued')).code).toBe(0);
  }, 120_000);

  it('updates the allowed tools and timeout with the service the HTTP route calls, and refuses a change the server does not take', async () => {
    const add = ['add', 'changing', '--url', server.url, '--auth-header', 'Bearer s3cret-value', '--allow', 'echo'];
    expect((await run('toolservers', ...add)).code).toBe(0);
    expect(
      await run('toolservers', 'update', 'changing', '--allow', 'echo,show_weather', '--timeout-seconds', '7'),
    ).toEqual({
      code: 0,
      output: expect.stringContaining('updated tool server changing: changing__echo, changing__show_weather'),
    });
    expect((await run('toolservers', 'list')).output).toMatch(
      /^changing {2}enabled .* auth=set {2}timeout=7s {2}allowed=echo,show_weather /m,
    );
    const refusals: [string[], string][] = [
      [['update', 'changing', '--allow', 'forecast'], 'refused (unknown_tool)'],
      // Without its header the server answers 401: nothing changes.
      [['update', 'changing', '--no-auth-header'], 'refused (server_unreachable)'],
      [['update', 'changing'], 'refused (nothing_to_update)'],
      [['update', 'nothing', '--allow', 'echo'], 'refused (server_not_found)'],
    ];
    for (const [args, message] of refusals) {
      const { code, output } = await run('toolservers', ...args);
      expect([args, code, output]).toEqual([args, 1, expect.stringContaining(message)]);
    }
    expect((await run('toolservers', 'list')).output).toMatch(
      /^changing .* auth=set {2}timeout=7s {2}allowed=echo,show_weather /m,
    );
    expect((await run('toolservers', 'remove', 'changing')).code).toBe(0);
  }, 120_000);

  it('refuses a loopback or private URL unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true', async () => {
    for (const url of [server.url, server.url.replace('127.0.0.1', 'localhost'), 'http://169.254.169.254/mcp']) {
      const handle = startProcess(
        cli,
        ['toolservers', 'add', 'inside', '--url', url, '--allow', 'echo'],
        env({ TOOLSERVER_ALLOW_PRIVATE_ADDRESSES: 'false' }),
      );
      expect([url, await handle.exited(60_000), handle.output()]).toEqual([
        url,
        1,
        expect.stringMatching(
          /refused \(address_not_allowed\): .*a (loopback|link-local) address: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true/,
        ),
      ]);
    }
    expect((await run('toolservers', 'list')).output).toContain('no tool servers');
  }, 120_000);

  it('refuses unknown tools, a wildcard, an unreachable server and unknown names with the reason and exit 1', async () => {
    const refusals: [string[], string][] = [
      [
        ['add', 'weather', '--url', server.url, '--auth-header', 'Bearer s3cret-value', '--allow', 'echo,forecast'],
        'refused (unknown_tool): weather offers no tool named forecast (it offers: ',
      ],
      [
        ['add', 'weather', '--url', server.url, '--allow', '*'],
        'refused (invalid_allowed_tools): name each allowed tool',
      ],
      [['add', 'Bad Name', '--url', server.url, '--allow', 'echo'], 'refused (invalid_name)'],
      [['add', 'down', '--url', 'http://127.0.0.1:9/mcp', '--allow', 'echo'], 'refused (server_unreachable)'],
      [['add', 'weather', '--url', server.url], "required option '--allow <tools>' not specified"],
      [['remove', 'nothing'], 'refused (server_not_found)'],
      [['refresh', 'nothing'], 'refused (server_not_found)'],
    ];
    for (const [args, message] of refusals) {
      const { code, output } = await run('toolservers', ...args);
      expect([args, code, output]).toEqual([args, 1, expect.stringContaining(message)]);
    }
    expect((await run('toolservers', 'list')).output).toContain('no tool servers');
  }, 120_000);
});
