import 'reflect-metadata';
import { catalogAdminServiceFor } from '@fed/agent';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import {
  type PlatformCallers,
  REFUSED_TO_ALL_BUT_THE_OPERATOR,
  auditRows,
  platformCallers,
  refusalsOf,
} from './testing/platform-callers';

const NOBODY = '00000000-0000-4000-8000-000000000000';

interface CatalogRecord {
  name: string;
  description: string;
  instructions: string;
  createdAt: string;
  updatedAt: string;
}

/**
 * The catalog over HTTP (issue 38): `/api/v1/admin/{personas,playbooks,skills}`, the platform operator's
 * (platform:manage), over the service `platformctl personas|playbooks|skills` calls. The catalog is platform-wide:
 * no tenant to isolate, so every caller but the operator is refused.
 */
describe('the catalog over HTTP: personas, playbooks and skills (platform:manage)', () => {
  let stack: AdminStack;
  let callers: PlatformCallers;
  const asOperator = (method: string, path: string, body?: unknown) =>
    call(stack.admin, method, path, callers.operator, body);
  const cli = () => catalogAdminServiceFor(stack.dataSource);

  beforeAll(async () => {
    stack = await bootAdminStack();
    callers = await platformCallers(stack, 'catalog');
  }, 120_000);
  afterAll(() => stack?.close());
  beforeEach(async () => {
    await stack.dataSource.query('DELETE FROM "agent"."personas"');
    await stack.dataSource.query('DELETE FROM "agent"."playbooks"');
    await stack.dataSource.query('DELETE FROM "agent"."skills"');
  });

  const persona = { personaKey: 'analyst', name: 'Analyst', description: 'Numbers first', instructions: 'Be brief.' };

  it("refuses every route to all but the platform operator: no token 401; a tenant admin, a plain user and a tenant's client with every other management scope 403", async () => {
    const { body } = await asOperator('POST', '/api/v1/admin/playbooks', { name: 'P', instructions: 'p' });
    const routes: [string, string, unknown?][] = [];
    for (const [kind, ref] of [
      ['personas', 'analyst'],
      ['playbooks', body['playbookId'] as string],
      ['skills', NOBODY],
    ]) {
      routes.push(
        ['GET', `/api/v1/admin/${kind}`],
        ['POST', `/api/v1/admin/${kind}`, { ...persona, name: 'Refused' }],
        ['GET', `/api/v1/admin/${kind}/${ref}`],
        ['PATCH', `/api/v1/admin/${kind}/${ref}`, { name: 'Refused' }],
        ['DELETE', `/api/v1/admin/${kind}/${ref}`],
      );
    }
    for (const [method, path, routeBody] of routes) {
      expect([method, path, await refusalsOf(stack, callers, method, path, routeBody)]).toEqual([
        method,
        path,
        REFUSED_TO_ALL_BUT_THE_OPERATOR,
      ]);
    }
    // Nothing was created or changed by the refused calls.
    expect((await cli().list('persona')).map((item) => item.name)).toEqual([]);
    expect((await cli().list('playbook')).map((item) => item.name)).toEqual(['P']);
  });

  it('creates a persona, lists it with its instructions, reads, changes and deletes it, through the service platformctl uses', async () => {
    const created = await asOperator('POST', '/api/v1/admin/personas', { ...persona, name: '  Analyst  ' });
    expect(created).toMatchObject({
      status: 201,
      body: { personaKey: 'analyst', name: 'Analyst', description: 'Numbers first', instructions: 'Be brief.' },
    });
    expect(new Date((created.body as unknown as CatalogRecord).createdAt).getTime()).toBeGreaterThan(
      Date.now() - 60_000,
    );
    // platformctl sees what the route made.
    expect((await cli().list('persona')).map((item) => [item.ref, item.name])).toEqual([['analyst', 'Analyst']]);

    expect(await asOperator('GET', '/api/v1/admin/personas')).toMatchObject({
      status: 200,
      body: { personas: [created.body], total: 1, limit: 25, page: 1, hasMore: false },
    });
    expect(await asOperator('GET', '/api/v1/admin/personas/analyst')).toMatchObject({
      status: 200,
      body: created.body,
    });

    const changed = await asOperator('PATCH', '/api/v1/admin/personas/analyst', { instructions: 'Be very brief.' });
    expect(changed).toMatchObject({
      status: 200,
      body: { personaKey: 'analyst', name: 'Analyst', instructions: 'Be very brief.' },
    });
    expect(
      (changed.body as unknown as CatalogRecord).updatedAt >= (created.body as unknown as CatalogRecord).updatedAt,
    ).toBe(true);

    // And the route sees what platformctl made.
    await cli().create('persona', { key: 'writer', name: 'Writer', instructions: 'Write well.' });
    expect(
      ((await asOperator('GET', '/api/v1/admin/personas')).body['personas'] as CatalogRecord[]).map((p) => p.name),
    ).toEqual(['Analyst', 'Writer']);

    expect(await asOperator('DELETE', '/api/v1/admin/personas/analyst')).toEqual({
      status: 200,
      body: { personaKey: 'analyst', deleted: true },
    });
    expect(await asOperator('GET', '/api/v1/admin/personas/analyst')).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found' } },
    });
  });

  it('deactivates and activates a playbook, disables and enables a skill (the platformctl verbs), and creates one switched off', async () => {
    const playbook = await asOperator('POST', '/api/v1/admin/playbooks', { name: 'Trip', instructions: 'Ask dates.' });
    expect(playbook).toMatchObject({ status: 201, body: { name: 'Trip', active: true, description: '' } });
    const playbookId = playbook.body['playbookId'] as string;
    expect(playbookId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await asOperator('PATCH', `/api/v1/admin/playbooks/${playbookId}`, { active: false })).toMatchObject({
      status: 200,
      body: { playbookId, active: false, name: 'Trip' },
    });
    expect((await cli().list('playbook')).map((item) => item.enabled)).toEqual([false]);
    // platformctl playbooks activate, then the route reads it.
    await cli().setEnabled('playbook', playbookId, true);
    expect((await asOperator('GET', `/api/v1/admin/playbooks/${playbookId}`)).body['active']).toBe(true);

    const skill = await asOperator('POST', '/api/v1/admin/skills', {
      name: 'Haiku',
      instructions: '5-7-5.',
      available: false,
    });
    expect(skill).toMatchObject({ status: 201, body: { name: 'Haiku', available: false } });
    const skillId = skill.body['skillId'] as string;
    expect(
      await asOperator('PATCH', `/api/v1/admin/skills/${skillId}`, { available: true, name: 'Haiku 2' }),
    ).toMatchObject({ status: 200, body: { skillId, available: true, name: 'Haiku 2' } });
    // The operator's list shows deactivated and unavailable records too.
    await asOperator('PATCH', `/api/v1/admin/skills/${skillId}`, { available: false });
    expect((await asOperator('GET', '/api/v1/admin/skills')).body).toMatchObject({
      skills: [{ skillId, available: false }],
      total: 1,
    });
    expect(await asOperator('DELETE', `/api/v1/admin/skills/${skillId}`)).toEqual({
      status: 200,
      body: { skillId, deleted: true },
    });
    expect(await asOperator('DELETE', `/api/v1/admin/playbooks/${playbookId}`)).toEqual({
      status: 200,
      body: { playbookId, deleted: true },
    });
  });

  it('lists numbered pages in name order: limit, page, total and hasMore = page * limit < total', async () => {
    for (const name of ['Echo', 'Alpha', 'Delta', 'Bravo', 'Charlie']) {
      await cli().create('skill', { name, instructions: name });
    }
    const page = async (query: string) => (await asOperator('GET', `/api/v1/admin/skills${query}`)).body;
    expect(await page('?limit=2')).toMatchObject({
      skills: [{ name: 'Alpha' }, { name: 'Bravo' }],
      total: 5,
      limit: 2,
      page: 1,
      hasMore: true,
    });
    expect(await page('?limit=2&page=3')).toMatchObject({
      skills: [{ name: 'Echo' }],
      total: 5,
      page: 3,
      hasMore: false,
    });
    expect(await page('?limit=2&page=4')).toMatchObject({ skills: [], total: 5, hasMore: false });
    for (const query of ['?limit=0', '?limit=101', '?limit=x', '?page=0', '?page=-1', '?page=1.5']) {
      const answer = await asOperator('GET', `/api/v1/admin/skills${query}`);
      expect([query, answer.status, answer.body.error?.code]).toEqual([query, 400, 'invalid_parameter']);
    }
  });

  it('refuses text that breaks the catalog rules with 400 invalid_parameter, and a change of nothing with 400 invalid_request, storing nothing', async () => {
    await asOperator('POST', '/api/v1/admin/personas', persona);
    const refusals: [string, string, unknown, number, string][] = [
      ['POST', 'personas', { ...persona, personaKey: 'Bad Key' }, 400, 'invalid_parameter'],
      ['POST', 'personas', { ...persona, personaKey: undefined }, 400, 'invalid_parameter'],
      ['POST', 'personas', { ...persona, personaKey: '../etc' }, 400, 'invalid_parameter'],
      ['POST', 'personas', { ...persona, personaKey: 'k'.repeat(65) }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'x'.repeat(201), instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'two\nlines', instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'bell\u0007', instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: '   ', instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 42, instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', instructions: 'i'.repeat(20_001) }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', instructions: 'nul\u0000' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', instructions: 'lone \ud800' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', description: 'd'.repeat(2_001), instructions: 'x' }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', instructions: 'x', available: 'no' }, 400, 'invalid_parameter'],
      ['POST', 'playbooks', { name: 'X', instructions: 'x', active: 1 }, 400, 'invalid_parameter'],
      // A field of another kind (or none) is refused on creation as on a change: never silently dropped.
      ['POST', 'playbooks', { name: 'X', instructions: 'x', available: false }, 400, 'invalid_parameter'],
      ['POST', 'skills', { name: 'X', instructions: 'x', active: false }, 400, 'invalid_parameter'],
      ['POST', 'personas', { ...persona, personaKey: 'other', enabled: false }, 400, 'invalid_parameter'],
      ['PATCH', 'personas/analyst', {}, 400, 'invalid_request'],
      ['PATCH', 'personas/analyst', { name: '' }, 400, 'invalid_parameter'],
      // A persona key never changes, and a persona is never switched off: refused, not ignored.
      ['PATCH', 'personas/analyst', { personaKey: 'other' }, 400, 'invalid_parameter'],
      ['PATCH', 'personas/analyst', { active: false }, 400, 'invalid_parameter'],
    ];
    for (const [method, path, body, status, code] of refusals) {
      const answer = await asOperator(method, `/api/v1/admin/${path}`, body);
      expect([method, path, body, answer.status, answer.body.error?.code]).toEqual([method, path, body, status, code]);
    }
    expect((await cli().list('persona')).map((item) => [item.ref, item.name, item.instructions])).toEqual([
      ['analyst', 'Analyst', 'Be brief.'],
    ]);
    expect(await cli().list('skill')).toEqual([]);
    expect(await cli().list('playbook')).toEqual([]);
  });

  it('answers 409 conflict to a persona key that is taken, keeping the first', async () => {
    expect((await asOperator('POST', '/api/v1/admin/personas', persona)).status).toBe(201);
    expect(await asOperator('POST', '/api/v1/admin/personas', { ...persona, name: 'Twin' })).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict', type: 'conflict_error' } },
    });
    expect((await cli().list('persona')).map((item) => item.name)).toEqual(['Analyst']);
  });

  it('answers 404 not_found to an unknown key or id, and to one of the wrong shape, on every read, change and delete', async () => {
    for (const [kind, ref] of [
      ['personas', 'nobody'],
      ['personas', 'Not%20A%20Key'],
      ['playbooks', NOBODY],
      ['playbooks', 'not-an-id'],
      ['skills', NOBODY],
      ['skills', `${NOBODY}'--`],
    ]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: 'X' }],
        ['DELETE', undefined],
      ] as const) {
        const answer = await asOperator(method, `/api/v1/admin/${kind}/${ref}`, body);
        expect([method, kind, ref, answer.status, answer.body.error?.code]).toEqual([
          method,
          kind,
          ref,
          404,
          'not_found',
        ]);
      }
    }
  });

  it('refuses hostile bodies before the catalog sees them: too large 413, too deep or a repeated member 400', async () => {
    const oversized = JSON.stringify({ name: 'X', instructions: 'i'.repeat(3 * 1024 * 1024) });
    expect((await asOperator('POST', '/api/v1/admin/skills', oversized)).status).toBe(413);
    const deep = `{"name":"X","instructions":"x","description":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect(await asOperator('POST', '/api/v1/admin/skills', deep)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_json' } },
    });
    const repeated = '{"name":"X","instructions":"x","available":true,"available":false}';
    expect(await asOperator('POST', '/api/v1/admin/skills', repeated)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_json' } },
    });
    expect(await asOperator('POST', '/api/v1/admin/skills', '[1,2]')).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_request' } },
    });
    expect(await cli().list('skill')).toEqual([]);
  });

  it('writes an audit row of the operator (no tenant) for each change, naming the record and never the instructions', async () => {
    const since = new Date();
    const created = await asOperator('POST', '/api/v1/admin/playbooks', {
      name: 'Audited',
      instructions: 'SECRET-ISH',
    });
    const playbookId = created.body['playbookId'] as string;
    await asOperator('PATCH', `/api/v1/admin/playbooks/${playbookId}`, { active: false, instructions: 'SECRET-ISH 2' });
    await asOperator('DELETE', `/api/v1/admin/playbooks/${playbookId}`);
    // A refused change writes none.
    await asOperator('PATCH', `/api/v1/admin/playbooks/${playbookId}`, { active: true });
    const rows = await auditRows(stack, 'catalog/playbooks/', since, 3);
    expect(rows).toEqual([
      {
        resource: 'catalog/playbooks/create',
        action: 'create',
        tenantId: null,
        meta: { name: 'Audited', active: true, playbookId },
      },
      {
        resource: 'catalog/playbooks/update',
        action: 'update',
        tenantId: null,
        meta: { playbookId, fields: ['active', 'instructions'], active: false },
      },
      { resource: 'catalog/playbooks/delete', action: 'delete', tenantId: null, meta: { playbookId } },
    ]);
    expect(JSON.stringify(rows)).not.toContain('SECRET-ISH');
  });
});
