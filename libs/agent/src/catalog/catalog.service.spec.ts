import 'reflect-metadata';
import { ApiError, DomainError } from '@fed/contracts';
import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { CatalogAdminService } from './catalog-admin.service';
import { catalogEntities } from './catalog.entities';
import { CatalogError } from './catalog.errors';
import { CatalogRepository } from './catalog.repository';
import { seedCatalog } from './catalog.seed';
import { CatalogService } from './catalog.service';

describe('agent catalog (spec: personaKey, playbookId, skillIds of the chat request)', () => {
  const database = useTestDatabase({ entities: catalogEntities });
  let service: CatalogService;
  let admin: CatalogAdminService;
  let activePlaybook: string;
  let deactivatedPlaybook: string;
  let summarize: string;
  let translate: string;
  let disabledSkill: string;

  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => undefined,
      (caught: unknown) => (caught instanceof DomainError ? caught.toApiError() : caught),
    );
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  };

  beforeAll(async () => {
    const repository = new CatalogRepository(database.dataSource);
    service = new CatalogService(repository);
    admin = new CatalogAdminService(repository);
    const text = { description: 'd', instructions: 'do it' };
    await admin.create('persona', { key: 'analyst', name: 'Analyst', instructions: 'Be brief.' });
    activePlaybook = (await admin.create('playbook', { name: 'Research', ...text })).ref;
    deactivatedPlaybook = (await admin.create('playbook', { name: 'Old', ...text })).ref;
    await admin.setEnabled('playbook', deactivatedPlaybook, false);
    summarize = (await admin.create('skill', { name: 'Summarize', description: '', instructions: 'Sum up.' })).ref;
    translate = (await admin.create('skill', { name: 'Translate', description: '', instructions: 'Translate.' })).ref;
    disabledSkill = (await admin.create('skill', { name: 'Gone', ...text })).ref;
    await admin.setEnabled('skill', disabledSkill, false);
  });

  describe('resolveForTurn', () => {
    it('resolves a persona, an active playbook and skills with their instructions', async () => {
      const resolved = await service.resolveForTurn({
        personaKey: 'analyst',
        playbookId: activePlaybook,
        skillIds: [translate, summarize],
      });
      expect(resolved).toEqual({
        persona: { key: 'analyst', name: 'Analyst', instructions: 'Be brief.' },
        playbook: { id: activePlaybook, name: 'Research', instructions: 'do it' },
        skills: [
          { id: translate, name: 'Translate', instructions: 'Translate.' },
          { id: summarize, name: 'Summarize', instructions: 'Sum up.' },
        ],
      });
    });

    it('resolves nothing when no catalog parameter is given', async () => {
      expect(await service.resolveForTurn({})).toEqual({ skills: [] });
    });

    it('refuses an unknown personaKey with 400 invalid_parameter', async () => {
      for (const personaKey of ['nobody', 'Not A Key', '', 'a\u0000b']) {
        const error = await refusal(service.resolveForTurn({ personaKey }));
        expect([error.status, error.code]).toEqual([400, 'invalid_parameter']);
        expect(error.message).toContain('personaKey');
      }
    });

    it('refuses a playbookId that does not exist with 400 invalid_parameter', async () => {
      const error = await refusal(service.resolveForTurn({ playbookId: randomUUID() }));
      expect([error.status, error.code]).toEqual([400, 'invalid_parameter']);
      expect(error.message).toContain('does not name a playbook');
    });

    it('refuses a deactivated playbookId with 400 invalid_parameter', async () => {
      const error = await refusal(service.resolveForTurn({ playbookId: deactivatedPlaybook }));
      expect([error.status, error.code]).toEqual([400, 'invalid_parameter']);
      expect(error.message).toContain('deactivated');
    });

    it('refuses a malformed playbookId with 400 invalid_parameter, never reaching the database', async () => {
      for (const playbookId of ['not-a-uuid', '', `${activePlaybook}x`, 'x'.repeat(10_000)]) {
        const error = await refusal(service.resolveForTurn({ playbookId }));
        expect([error.status, error.code]).toEqual([400, 'invalid_parameter']);
      }
    });

    it('ignores unknown, unavailable and malformed skillIds, and repeated ones', async () => {
      const resolved = await service.resolveForTurn({
        skillIds: [randomUUID(), disabledSkill, 'nope', summarize, summarize.toUpperCase()],
      });
      expect(resolved.skills.map((skill) => skill.id)).toEqual([summarize]);
    });
  });

  describe('instructionsFor (agent-runtime, by the ids stored with the turn)', () => {
    it('skips ids that are unknown, deactivated or unavailable by then instead of failing', async () => {
      expect(
        await service.instructionsFor({
          personaKey: 'nobody',
          playbookId: deactivatedPlaybook,
          skillIds: [disabledSkill, randomUUID()],
        }),
      ).toEqual({ skills: [] });
      const resolved = await service.instructionsFor({ personaKey: 'analyst', playbookId: activePlaybook });
      expect(resolved.persona?.instructions).toBe('Be brief.');
      expect(resolved.playbook?.instructions).toBe('do it');
    });
  });

  describe('lists', () => {
    it('pages past names of 200 characters of any script (the cursor carries the last name)', async () => {
      const names = ['名'.repeat(200), '😀'.repeat(100), 'é"\\'.repeat(66)];
      const keys: string[] = [];
      for (const [index, name] of names.entries()) {
        keys.push((await admin.create('persona', { key: `long-${index}`, name, instructions: 'x' })).ref);
      }
      const seen: string[] = [];
      for (const order of ['asc', 'desc'] as const) {
        let cursor: string | undefined;
        do {
          const page = await service.listPersonas({ limit: 1, order, ...(cursor ? { cursor } : {}) });
          seen.push(...page.items.map((item) => item.key));
          cursor = page.cursor;
        } while (cursor);
      }
      expect(seen.filter((key) => keys.includes(key)).sort()).toEqual([...keys, ...keys].sort());
      for (const key of keys) await admin.delete('persona', key);
    });
  });

  describe('operator changes (platformctl)', () => {
    it('refuses text the rules do not allow, with the reason', async () => {
      const cases: [Parameters<CatalogAdminService['create']>, string][] = [
        [['persona', { key: 'Bad Key', name: 'x', instructions: 'x' }], 'invalid_key'],
        [['persona', { key: 'k'.repeat(65), name: 'x', instructions: 'x' }], 'invalid_key'],
        [['playbook', { name: '', instructions: 'x' }], 'invalid_name'],
        [['playbook', { name: 'n'.repeat(201), instructions: 'x' }], 'invalid_name'],
        [['playbook', { name: 'two\nlines', instructions: 'x' }], 'invalid_name'],
        [['skill', { name: 'x', description: 'd'.repeat(2_001), instructions: 'x' }], 'invalid_description'],
        [['skill', { name: 'x', instructions: 'i'.repeat(20_001) }], 'invalid_instructions'],
        [['skill', { name: 'x', instructions: 'nul \u0000' }], 'invalid_instructions'],
        [['skill', { name: 'x', instructions: 'lone \ud800 surrogate' }], 'invalid_instructions'],
        [['skill', { key: 'k', name: 'x', instructions: 'x' }], 'invalid_key'],
      ];
      for (const [args, code] of cases) {
        await expect(admin.create(...args)).rejects.toMatchObject({ code });
      }
    });

    it('accepts text at the limits', async () => {
      const item = await admin.create('skill', {
        name: 'n'.repeat(200),
        description: 'd'.repeat(2_000),
        instructions: 'i'.repeat(20_000),
      });
      expect(item.name).toHaveLength(200);
      await admin.delete('skill', item.ref);
    });

    it('refuses a persona key that is taken', async () => {
      await expect(admin.create('persona', { key: 'analyst', name: 'Again', instructions: 'x' })).rejects.toMatchObject(
        {
          code: 'persona_exists',
        },
      );
    });

    it('says when the record to change does not exist', async () => {
      await expect(admin.update('playbook', 'not-a-uuid', { name: 'x' })).rejects.toBeInstanceOf(CatalogError);
      await expect(admin.delete('skill', randomUUID())).rejects.toMatchObject({ code: 'skill_not_found' });
      await expect(admin.update('persona', 'nobody', { name: 'x' })).rejects.toMatchObject({
        code: 'persona_not_found',
      });
    });
  });

  describe('seedCatalog', () => {
    it('seeds only when the three tables are empty', async () => {
      expect(await seedCatalog(database.dataSource)).toBe(false);
      await database.dataSource.query('DELETE FROM "agent"."personas"');
      await database.dataSource.query('DELETE FROM "agent"."playbooks"');
      await database.dataSource.query('DELETE FROM "agent"."skills"');
      const [first, second] = await Promise.all([seedCatalog(database.dataSource), seedCatalog(database.dataSource)]);
      expect([first, second].sort()).toEqual([false, true]);
      const personas = await admin.list('persona');
      expect(personas.map((persona) => persona.ref)).toEqual(['concise-analyst', 'friendly-tutor']);
      expect((await admin.list('playbook')).map((playbook) => playbook.name)).toEqual([
        'Draft an email',
        'Research a topic',
      ]);
      expect((await admin.list('skill')).map((skill) => skill.name)).toEqual(['Summarize', 'Translate']);
      const seeded = await service.resolveForTurn({ personaKey: 'concise-analyst' });
      expect(seeded.persona?.instructions).toContain('concise analyst');
    });
  });
});
