import { type TestDatabase, createTestDatabase } from '@fed/persistence/testing';
import { buildDist, cleanEnv, startProcess } from '@fed/testing';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const cli = 'dist/apps/platformctl/src/main.js';

describe('platformctl personas, playbooks and skills', () => {
  let database: TestDatabase;
  let dir: string;

  const run = async (...args: string[]) => {
    const handle = startProcess(cli, args, cleanEnv({ DATABASE_URL: database.url }));
    const code = await handle.exited(60_000);
    return { code, output: handle.output() };
  };

  beforeAll(async () => {
    buildDist();
    database = await createTestDatabase();
    dir = await mkdtemp(path.join(tmpdir(), 'fed-catalog-'));
  }, 60_000);
  afterAll(async () => {
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates a persona, lists it, updates it from a file and deletes it', async () => {
    const created = await run(
      'personas',
      'create',
      '--key',
      'pirate',
      '--name',
      'Pirate',
      '--description',
      'Talks like a pirate',
      '--instructions',
      'Say arr.',
    );
    expect(created).toEqual({ code: 0, output: expect.stringContaining('created persona pirate') });
    expect((await run('personas', 'list')).output).toMatch(
      /^pirate {2}"Pirate" {2}description="Talks like a pirate" {2}instructions=8 chars/m,
    );

    const file = path.join(dir, 'pirate.md');
    await writeFile(file, 'Speak like a pirate.\nAlways.\n');
    const updated = await run('personas', 'update', 'pirate', '--name', 'Captain', '--instructions-file', file);
    expect(updated.code).toBe(0);
    expect(updated.output).toContain('updated persona pirate');
    expect((await run('personas', 'list')).output).toMatch(/^pirate {2}"Captain" .* instructions=28 chars/m);

    expect((await run('personas', 'delete', 'pirate')).output).toContain('deleted persona pirate');
    expect((await run('personas', 'list')).output).toContain('no personas');
  }, 60_000);

  it('deactivates and activates a playbook, and deletes it by id', async () => {
    const created = await run('playbooks', 'create', '--name', 'Plan a trip', '--instructions', 'Ask dates first.');
    expect(created.code).toBe(0);
    const id = /^created playbook (\S+)$/m.exec(created.output)?.[1] as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await run('playbooks', 'deactivate', id)).output).toContain(`deactivated playbook ${id}`);
    expect((await run('playbooks', 'list')).output).toContain(`${id}  deactivated  "Plan a trip"`);
    expect((await run('playbooks', 'activate', id)).code).toBe(0);
    expect((await run('playbooks', 'list')).output).toContain(`${id}  active  "Plan a trip"`);
    expect((await run('playbooks', 'delete', id)).code).toBe(0);
    expect((await run('playbooks', 'list')).output).toContain('no playbooks');
  }, 60_000);

  it('disables and enables a skill', async () => {
    const created = await run('skills', 'create', '--name', 'Haiku', '--instructions', 'Answer in 5-7-5.');
    const id = /^created skill (\S+)$/m.exec(created.output)?.[1] as string;
    expect((await run('skills', 'disable', id)).code).toBe(0);
    expect((await run('skills', 'list')).output).toContain(`${id}  disabled  "Haiku"`);
    expect((await run('skills', 'enable', id)).code).toBe(0);
    expect((await run('skills', 'list')).output).toContain(`${id}  available  "Haiku"`);
  }, 60_000);

  it('refuses bad input with the reason and exit 1, changing nothing', async () => {
    const refusals: [string[], string][] = [
      [['personas', 'create', '--key', 'Bad Key', '--name', 'X', '--instructions', 'x'], 'refused (invalid_key)'],
      [['personas', 'create', '--name', 'X', '--instructions', 'x'], 'refused (invalid_key)'],
      [['skills', 'create', '--name', 'x'.repeat(201), '--instructions', 'x'], 'refused (invalid_name)'],
      [['skills', 'create', '--name', 'X'], 'refused (invalid_instructions): give --instructions'],
      [
        ['skills', 'create', '--name', 'X', '--instructions', 'i'.repeat(20_001)],
        'refused (invalid_instructions): instructions are 1-20000 characters',
      ],
      [
        ['skills', 'create', '--name', 'X', '--description', 'd'.repeat(2_001), '--instructions', 'x'],
        'refused (invalid_description)',
      ],
      [['skills', 'create', '--name', 'X', '--instructions-file', path.join(dir, 'missing.md')], 'cannot read'],
      [['playbooks', 'create', '--instructions', 'x'], "required option '--name <name>' not specified"],
      [['playbooks', 'deactivate', 'not-an-id'], 'refused (playbook_not_found)'],
      [['playbooks', 'update', '00000000-0000-4000-8000-000000000000', '--name', 'X'], 'refused (playbook_not_found)'],
      [['skills', 'delete', '00000000-0000-4000-8000-000000000000'], 'refused (skill_not_found)'],
      [['personas', 'update', 'nobody'], 'refused (nothing_to_update)'],
    ];
    for (const [args, message] of refusals) {
      const { code, output } = await run(...args);
      expect([args[0], args[1], code, output]).toEqual([args[0], args[1], 1, expect.stringContaining(message)]);
    }
    const binary = path.join(dir, 'binary.md');
    await writeFile(binary, Buffer.from([0x66, 0xff, 0xfe, 0x00]));
    const notText = await run('skills', 'create', '--name', 'X', '--instructions-file', binary);
    expect([notText.code, notText.output]).toEqual([1, expect.stringContaining('is not UTF-8 text')]);
    expect((await run('skills', 'list')).output).not.toContain('"X"');
  }, 120_000);

  it('refuses a persona key that is taken', async () => {
    const args = ['personas', 'create', '--key', 'twin', '--name', 'Twin', '--instructions', 'x'];
    expect((await run(...args)).code).toBe(0);
    const again = await run(...args);
    expect([again.code, again.output]).toEqual([1, expect.stringContaining('refused (persona_exists)')]);
  });
});
