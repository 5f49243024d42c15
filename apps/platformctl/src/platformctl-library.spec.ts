import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const cli = 'dist/apps/platformctl/src/main.js';

describe('platformctl library', () => {
  let database: TestDatabase;
  let dir: string;
  let blobDir: string;

  const run = async (...args: string[]) => {
    const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url, BLOB_DIR: blobDir }));
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  };

  const libraryBlobs = async () => readdir(path.join(blobDir, 'library')).catch(() => [] as string[]);

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'fed-library-cli-'));
    blobDir = path.join(dir, 'blobs');
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('adds a file to the blob store, lists it, and removes the row then the blob', async () => {
    const file = path.join(dir, 'style.md');
    await writeFile(file, '# House style\n');
    const added = await run('library', 'add', 'guides/style.md', '--file', file, '--title', 'House style');
    expect(added).toEqual({
      code: 0,
      output: expect.stringContaining('added file guides/style.md (14 bytes, text/markdown)'),
    });
    expect(await libraryBlobs()).toHaveLength(1);
    expect((await run('library', 'list')).output).toMatch(
      /^guides\/style\.md {2}file {2}"House style" {2}text\/markdown {2}14 bytes/m,
    );

    expect((await run('library', 'remove', 'guides/style.md')).output).toContain('removed guides/style.md');
    expect(await libraryBlobs()).toEqual([]);
    expect((await run('library', 'list')).output).toContain('no library items');
  }, 60_000);

  it('adds a prompt template with its text', async () => {
    const added = await run(
      'library',
      'add-template',
      'templates/summary',
      '--title',
      'Summary',
      '--text',
      'Summarize:',
    );
    expect(added).toEqual({ code: 0, output: expect.stringContaining('added template templates/summary') });
    expect((await run('library', 'list')).output).toMatch(/^templates\/summary {2}prompt_template {2}"Summary"/m);
  }, 60_000);

  it('refuses bad input with the reason and exit 1, storing nothing', async () => {
    const file = path.join(dir, 'data.csv');
    await writeFile(file, 'a,b\n');
    expect((await run('library', 'add', 'data/x.csv', '--file', file)).code).toBe(0);
    const blobsBefore = await libraryBlobs();
    const refusals: [string[], string][] = [
      [['library', 'add', '../escape.csv', '--file', file], 'refused (invalid_filepath)'],
      [['library', 'add', 'data/x.csv', '--file', file], 'refused (filepath_exists)'],
      [['library', 'add', 'data/y.csv', '--file', path.join(dir, 'missing')], 'refused (invalid_file)'],
      [['library', 'add-template', 't/x', '--title', 'T'], 'refused (invalid_content)'],
      [['library', 'remove', 'nothing/here'], 'refused (item_not_found)'],
    ];
    for (const [args, message] of refusals) {
      const { code, output } = await run(...args);
      expect([args[2], code, output]).toEqual([args[2], 1, expect.stringContaining(message)]);
    }
    expect(await libraryBlobs()).toEqual(blobsBefore);
  }, 120_000);
});
