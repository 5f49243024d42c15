import 'reflect-metadata';
import { marketplaceAgentsAdminServiceFor } from '@fed/agent';
import { type AdminStack, bootAdminStack, call } from './testing/boot-admin-stack';
import {
  type PlatformCallers,
  REFUSED_TO_ALL_BUT_THE_OPERATOR,
  auditRows,
  platformCallers,
  refusalsOf,
} from './testing/platform-callers';

const ROUTE = '/api/v1/admin/marketplace-agents';
const AGENT = { agentId: 'support', name: 'Support bot', instructions: 'Answer briefly.' };

/**
 * The Marketplace admin panel's agents over HTTP (docs/marketplace.md): `/api/v1/admin/marketplace-agents`, the
 * platform operator's (platform:manage) in the Marketplace edition, over the service `platformctl agents` calls;
 * in the SaaS edition the 404 of an unknown path, before any token is read.
 */
describe('Marketplace agents over HTTP (EDITION=marketplace, platform:manage)', () => {
  let stack: AdminStack;
  let callers: PlatformCallers;
  const cli = () => marketplaceAgentsAdminServiceFor(stack.dataSource);
  const asOperator = (method: string, pathAndQuery: string, body?: unknown) =>
    call(stack.admin, method, pathAndQuery, callers.operator, body);

  beforeAll(async () => {
    stack = await bootAdminStack({ env: { EDITION: 'marketplace' } });
    callers = await platformCallers(stack, 'agents');
  }, 120_000);
  afterAll(() => stack?.close());
  beforeEach(() => stack.dataSource.query('DELETE FROM "agent"."marketplace_agents"'));

  it('refuses every route to all but the platform operator, although the edition checks no scope on chat: no token 401, a tenant admin, a plain user and a tenant client 403', async () => {
    await cli().create({ id: 'support', name: 'Support bot', instructions: 'Answer briefly.' });
    const routes: [string, string, unknown?][] = [
      ['GET', ROUTE],
      ['POST', ROUTE, { ...AGENT, agentId: 'other' }],
      ['GET', `${ROUTE}/support`],
      ['PATCH', `${ROUTE}/support`, { enabled: false }],
      ['DELETE', `${ROUTE}/support`],
    ];
    for (const [method, route, body] of routes) {
      expect([method, route, await refusalsOf(stack, callers, method, route, body)]).toEqual([
        method,
        route,
        REFUSED_TO_ALL_BUT_THE_OPERATOR,
      ]);
    }
    expect((await cli().list()).map((agent) => [agent.id, agent.enabled])).toEqual([['support', true]]);
  });

  it('creates an agent with its model settings, shown as platformctl agents show has it, and audited without its instructions', async () => {
    const since = new Date();
    const created = await asOperator('POST', ROUTE, {
      ...AGENT,
      model: 'support-model',
      temperature: 0.2,
      maxOutputTokens: 800,
    });
    expect(created).toMatchObject({
      status: 201,
      body: {
        agentId: 'support',
        name: 'Support bot',
        instructions: 'Answer briefly.',
        model: 'support-model',
        temperature: 0.2,
        maxOutputTokens: 800,
        enabled: true,
        tenantId: null,
      },
    });
    const shown = await cli().show('support');
    expect([shown.name, shown.modelConfig, shown.enabled]).toEqual([
      'Support bot',
      { model: 'support-model', temperature: 0.2, maxOutputTokens: 800 },
      true,
    ]);
    expect(await asOperator('GET', `${ROUTE}/support`)).toMatchObject({ status: 200, body: created.body });
    const [row] = await auditRows(stack, 'marketplace/agents', since, 1);
    expect(row).toMatchObject({ resource: 'marketplace/agents/create', action: 'create' });
    expect(JSON.stringify(row?.meta)).toContain('support');
    expect(JSON.stringify(row?.meta)).not.toContain('Answer briefly.');
  });

  it('gives a UUID when no agentId is given', async () => {
    const created = await asOperator('POST', ROUTE, { name: 'Anonymous', instructions: 'Hi.' });
    expect(created.status).toBe(201);
    expect(created.body['agentId']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses an id taken by a live agent or by a deleted one with 409 agent_exists', async () => {
    expect((await asOperator('POST', ROUTE, AGENT)).status).toBe(201);
    expect(await asOperator('POST', ROUTE, AGENT)).toMatchObject({
      status: 409,
      body: { error: { code: 'conflict' } },
    });
    expect((await asOperator('DELETE', `${ROUTE}/support`)).body).toEqual({ agentId: 'support', deleted: true });
    expect((await asOperator('POST', ROUTE, AGENT)).status).toBe(409);
  });

  it('lists live agents in name order in numbered pages, by search in id or name, enabled and tenant', async () => {
    const tenant = '6f1c2a4e-8b7d-4c3e-9a10-2b3c4d5e6f70';
    await cli().create({ id: 'b-agent', name: 'Billing', instructions: 'x' });
    await cli().create({ id: 'a-agent', name: 'Sales 100%', instructions: 'x', enabled: false });
    await cli().create({ id: 'c-agent', name: 'Claims', instructions: 'x', tenantId: tenant });
    await cli().create({ id: 'gone', name: 'Aardvark', instructions: 'x' });
    await cli().delete('gone');
    const ids = async (query: string) => {
      const answer = await asOperator('GET', `${ROUTE}${query}`);
      expect(answer.status).toBe(200);
      return (answer.body['agents'] as { agentId: string }[]).map((agent) => agent.agentId);
    };
    expect(await ids('')).toEqual(['b-agent', 'c-agent', 'a-agent']);
    expect(await asOperator('GET', `${ROUTE}?limit=2&page=2`)).toMatchObject({
      body: { total: 3, limit: 2, page: 2, hasMore: false },
    });
    expect(await ids('?limit=2')).toEqual(['b-agent', 'c-agent']);
    expect(await ids('?search=B-AG')).toEqual(['b-agent']);
    expect(await ids('?search=claim')).toEqual(['c-agent']);
    expect(await ids(`?search=${encodeURIComponent('%')}`)).toEqual(['a-agent']);
    // `_` is a literal underscore, not LIKE's any-character: no id or name holds one.
    expect(await ids('?search=_')).toEqual([]);
    expect(await ids('?enabled=false')).toEqual(['a-agent']);
    expect(await ids('?enabled=true')).toEqual(['b-agent', 'c-agent']);
    expect(await ids(`?tenantId=${tenant}`)).toEqual(['c-agent']);
  });

  it('changes name, instructions and model settings, null resetting one, enables and disables as platformctl does', async () => {
    await cli().create({ id: 'support', name: 'Support bot', instructions: 'Old.', model: { temperature: 1 } });
    const since = new Date();
    const patched = await asOperator('PATCH', `${ROUTE}/support`, {
      name: 'Helpdesk',
      instructions: 'New.',
      model: 'support-model',
      maxOutputTokens: 100,
      temperature: null,
    });
    expect(patched).toMatchObject({
      status: 200,
      body: { name: 'Helpdesk', instructions: 'New.', model: 'support-model', temperature: null, maxOutputTokens: 100 },
    });
    expect((await cli().show('support')).modelConfig).toEqual({ model: 'support-model', maxOutputTokens: 100 });
    expect((await asOperator('PATCH', `${ROUTE}/support`, { enabled: false })).body['enabled']).toBe(false);
    expect((await cli().show('support')).enabled).toBe(false);
    expect((await asOperator('PATCH', `${ROUTE}/support`, { enabled: true })).body['enabled']).toBe(true);
    const rows = await auditRows(stack, 'marketplace/agents/update', since, 3);
    expect(rows.map((row) => (row.meta as { enabled?: boolean }).enabled)).toEqual([undefined, false, true]);
  });

  it('answers 400 for bad fields, bad ids and an empty change, 404 for an unknown or deleted agent', async () => {
    await cli().create({ id: 'support', name: 'Support bot', instructions: 'x' });
    await cli().create({ id: 'gone', name: 'Gone', instructions: 'x' });
    await cli().delete('gone');
    const bad: [string, string, unknown?][] = [
      ['POST', ROUTE, { ...AGENT, agentId: 'has/slash' }],
      ['POST', ROUTE, { ...AGENT, agentId: 'x'.repeat(65) }],
      ['POST', ROUTE, { ...AGENT, name: '' }],
      ['POST', ROUTE, { ...AGENT, name: 'two\nlines' }],
      ['POST', ROUTE, { agentId: 'a', name: 'A' }],
      ['POST', ROUTE, { ...AGENT, instructions: 'x'.repeat(20_001) }],
      ['POST', ROUTE, { ...AGENT, temperature: 2.5 }],
      ['POST', ROUTE, { ...AGENT, temperature: '1' }],
      ['POST', ROUTE, { ...AGENT, maxOutputTokens: 1.5 }],
      ['POST', ROUTE, { ...AGENT, maxOutputTokens: 0 }],
      ['POST', ROUTE, { ...AGENT, model: ' ' }],
      ['POST', ROUTE, { ...AGENT, tenantId: 'not-a-uuid' }],
      ['POST', ROUTE, { ...AGENT, enabled: 'yes' }],
      ['POST', ROUTE, { ...AGENT, owner: 'someone' }],
      ['POST', ROUTE, '{"agentId":'],
      ['PATCH', `${ROUTE}/support`, {}],
      ['PATCH', `${ROUTE}/support`, { agentId: 'renamed' }],
      ['PATCH', `${ROUTE}/support`, { name: null }],
      ['PATCH', `${ROUTE}/support`, { instructions: '\u0000' }],
      ['GET', `${ROUTE}/${encodeURIComponent('bad id')}`],
      ['PATCH', `${ROUTE}/${encodeURIComponent('<script>')}`, { enabled: false }],
      ['DELETE', `${ROUTE}/${'x'.repeat(65)}`],
      ['GET', `${ROUTE}?limit=0`],
      ['GET', `${ROUTE}?page=0`],
      ['GET', `${ROUTE}?enabled=yes`],
      ['GET', `${ROUTE}?tenantId=x`],
      ['GET', `${ROUTE}?search=`],
      ['GET', `${ROUTE}?search=${'x'.repeat(101)}`],
    ];
    for (const [method, route, body] of bad) {
      const answer = await asOperator(method, route, body);
      expect([method, route, body, answer.status, answer.body.error?.type]).toEqual([
        method,
        route,
        body,
        400,
        'invalid_request_error',
      ]);
    }
    for (const [method, route, body] of [
      ['GET', `${ROUTE}/unknown`],
      ['PATCH', `${ROUTE}/unknown`, { enabled: false }],
      ['DELETE', `${ROUTE}/unknown`],
      ['GET', `${ROUTE}/gone`],
      ['PATCH', `${ROUTE}/gone`, { enabled: true }],
      ['DELETE', `${ROUTE}/gone`],
    ] as [string, string, unknown?][]) {
      expect([method, route, (await asOperator(method, route, body)).status]).toEqual([method, route, 404]);
    }
    const [support] = await cli().list();
    expect([support?.name, support?.instructions, support?.enabled]).toEqual(['Support bot', 'x', true]);
  });

  it('refuses hostile bodies before the agents see them: too large 413, too deep or a repeated member 400', async () => {
    const oversized = JSON.stringify({ ...AGENT, instructions: 'i'.repeat(3 * 1024 * 1024) });
    expect((await asOperator('POST', ROUTE, oversized)).status).toBe(413);
    const deep = `{"agentId":"deep","name":"X","instructions":${'['.repeat(100)}${']'.repeat(100)}}`;
    expect(await asOperator('POST', ROUTE, deep)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_json' } },
    });
    const repeated = '{"agentId":"twice","name":"X","instructions":"x","enabled":true,"enabled":false}';
    expect(await asOperator('POST', ROUTE, repeated)).toMatchObject({
      status: 400,
      body: { error: { code: 'invalid_json' } },
    });
    await cli().create({ id: 'kept', name: 'Kept', instructions: 'x' });
    const deepChange = `{"name":${'{"a":'.repeat(100)}1${'}'.repeat(100)}}`;
    expect((await asOperator('PATCH', `${ROUTE}/kept`, deepChange)).status).toBe(400);
    expect((await cli().show('kept')).name).toBe('Kept');
    expect((await asOperator('GET', ROUTE)).body).toMatchObject({ total: 1 });
  });

  it('keeps hostile text as given and answers it as JSON, never as markup', async () => {
    const name = '<img src=x onerror=alert(1)> \u202e Bot';
    const created = await asOperator('POST', ROUTE, { agentId: 'hostile', name, instructions: "'; DROP TABLE x; --" });
    expect(created.status).toBe(201);
    expect((await cli().show('hostile')).name).toBe(name);
    expect(
      ((await asOperator('GET', `${ROUTE}?search=${encodeURIComponent("'; DROP")}`)).body['agents'] as unknown[])
        .length,
    ).toBe(0);
    expect((await asOperator('GET', `${ROUTE}?search=${encodeURIComponent('<img')}`)).body['total']).toBe(1);
  });

  it('deletes an agent as platformctl agents delete: gone from lists and show, its row kept', async () => {
    await cli().create({ id: 'support', name: 'Support bot', instructions: 'x' });
    expect(await asOperator('DELETE', `${ROUTE}/support`)).toEqual({
      status: 200,
      body: { agentId: 'support', deleted: true },
    });
    await expect(cli().show('support')).rejects.toMatchObject({ code: 'agent_not_found' });
    expect((await asOperator('GET', ROUTE)).body['total']).toBe(0);
    const [row] = (await stack.dataSource.query(
      'SELECT deleted_at IS NOT NULL AS deleted FROM agent.marketplace_agents WHERE id = $1',
      ['support'],
    )) as { deleted: boolean }[];
    expect(row?.deleted).toBe(true);
  });
});

describe('Marketplace agents in the SaaS edition', () => {
  let stack: AdminStack;
  let operator: string;

  beforeAll(async () => {
    stack = await bootAdminStack();
    operator = (await platformCallers(stack, 'saas-agents')).operator;
  }, 120_000);
  afterAll(() => stack?.close());

  it('answers every route with the 404 of an unknown path before any token is read, the operator included', async () => {
    const unknown = await call(stack.admin, 'GET', '/api/v1/admin/no-such-route', undefined);
    for (const [method, route, body] of [
      ['GET', ROUTE],
      ['POST', ROUTE, AGENT],
      ['GET', `${ROUTE}/support`],
      ['PATCH', `${ROUTE}/support`, { enabled: false }],
      ['DELETE', `${ROUTE}/support`],
    ] as [string, string, unknown?][]) {
      for (const token of [undefined, 'not-a-token', operator]) {
        const answer = await call(stack.admin, method, route, token, body);
        expect([method, route, answer.status, answer.body.error?.code, answer.body.error?.type]).toEqual([
          method,
          route,
          404,
          unknown.body.error?.code,
          unknown.body.error?.type,
        ]);
        expect(answer.body.error?.message).toBe(`Cannot ${method} ${route}`);
      }
    }
    expect(await marketplaceAgentsAdminServiceFor(stack.dataSource).list()).toEqual([]);
  });
});
