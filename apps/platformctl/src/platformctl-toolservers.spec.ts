import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { McpAppsServer, buildDist, cleanEnv, startProcess } from '@fed/testing';
import { randomBytes } from 'node:crypto';

const cli = 'dist/apps/platformctl/src/main.js';

describe('platformctl toolservers', () => {
  let database: TestDatabase;
  let server: McpAppsServer;
  const secretKey = randomBytes(32).toString('base64');

  const run = async (...args: string[]) => {
    const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url, TOOLSERVER_SECRET_KEY: secretKey }));
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
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
      cleanEnv({ DATABASE_URL: database.url, TOOLSERVER_SECRET_KEY: secretKey }),
    );
    handle.child.stdin?.end('Bearer s3cret-value\n');
    expect([await handle.exited(60_000), handle.output()]).toEqual([
      0,
      expect.stringContaining('added tool server piped: piped__echo'),
    ]);
    expect(server.authorizations.at(-1)).toBe('Bearer s3cret-value');
    expect((await run('toolservers', 'list')).output).toMatch(/^piped .* auth=set /m);
    expect((await run('toolservers', 'remove', 'piped')).code).toBe(0);
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
