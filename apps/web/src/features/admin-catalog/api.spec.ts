import { ApiRequestError } from '../../lib/api';
import {
  type CatalogKind,
  catalogFieldOf,
  createCatalogEntry,
  deleteCatalogEntry,
  listAllCatalog,
  updateCatalogEntry,
} from './api';

interface Call {
  path: string;
  method: string;
  body: unknown;
}

/** Answers each call with the next of `answers` and records what was asked. */
function stubFetch(...answers: unknown[]): Call[] {
  const calls: Call[] = [];
  globalThis.fetch = (async (path: string, init: RequestInit = {}) => {
    calls.push({
      path,
      method: init.method ?? 'GET',
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return new Response(JSON.stringify(answers.shift() ?? {}), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  }) as typeof fetch;
  return calls;
}

const times = { createdAt: '2026-12-07T00:00:00.000Z', updatedAt: '2026-12-07T00:00:00.000Z' };
const text = { name: 'N', description: 'D', instructions: 'I' };

// The API's refusals as libs/agent/src/catalog/catalog.rules.ts, catalog-admin.service.ts and the DTOs word them
// (the web app's compiler does not reach the server's code; console-catalog-e2e meets two of them for real).
const REFUSALS = {
  key: 'a persona key is 1-64 characters of a-z, 0-9, _ and -',
  keyTaken: 'a persona with the key concise-analyst exists already',
  name: 'a name is 1-200 characters on one line, without control characters',
  description: 'a description is at most 2000 characters, without NUL or unpaired surrogates',
  instructions: 'instructions are 1-20000 characters, without NUL or unpaired surrogates',
  nothing: 'give at least one of the name, description or instructions',
};

describe('the catalog screens’ calls (apps/web admin-catalog/api.ts)', () => {
  const realFetch = globalThis.fetch;
  afterEach(() => {
    globalThis.fetch = realFetch;
  });

  it.each([
    ['personas', { personaKey: 'k', ...text }, { id: 'k', enabled: undefined }],
    ['playbooks', { playbookId: 'p', ...text, active: false }, { id: 'p', enabled: false }],
    ['skills', { skillId: 's', ...text, available: true }, { id: 's', enabled: true }],
  ] as const)(
    'creates %s with the fields its DTO takes, and reads the answer in one shape',
    async (kind, answer, entry) => {
      const calls = stubFetch({ ...answer, ...times });
      const made = await createCatalogEntry('token', kind as CatalogKind, {
        personaKey: 'k',
        ...text,
        enabled: false,
      });
      expect(made).toMatchObject({ ...entry, ...text });
      expect(calls).toEqual([
        {
          path: `/api/v1/admin/${kind}`,
          method: 'POST',
          body:
            kind === 'personas'
              ? { personaKey: 'k', ...text }
              : { ...text, [kind === 'playbooks' ? 'active' : 'available']: false },
        },
      ]);
    },
  );

  it('changes a record by its key or id (never sending the key), its on-off field named as the kind names it', async () => {
    const calls = stubFetch(
      { personaKey: 'a b', ...text, ...times },
      { playbookId: 'p', ...text, active: true, ...times },
      {},
    );
    await updateCatalogEntry('token', 'personas', 'a b', { ...text, enabled: true });
    await updateCatalogEntry('token', 'playbooks', 'p', { enabled: true });
    await deleteCatalogEntry('token', 'skills', 's/1');
    expect(calls).toEqual([
      { path: '/api/v1/admin/personas/a%20b', method: 'PATCH', body: text },
      { path: '/api/v1/admin/playbooks/p', method: 'PATCH', body: { active: true } },
      { path: '/api/v1/admin/skills/s%2F1', method: 'DELETE', body: undefined },
    ]);
  });

  it('reads every page of 100 until the API says there is no more', async () => {
    const page = (n: number, hasMore: boolean) => ({
      skills: [{ skillId: `s${n}`, ...text, available: true, ...times }],
      total: 2,
      limit: 100,
      page: n,
      hasMore,
    });
    const calls = stubFetch(page(1, true), page(2, false));
    const entries = await listAllCatalog('token', 'skills');
    expect(entries.map((entry) => entry.id)).toEqual(['s1', 's2']);
    expect(calls.map((call) => call.path)).toEqual([
      '/api/v1/admin/skills?limit=100&page=1',
      '/api/v1/admin/skills?limit=100&page=2',
    ]);
  });

  it('finds the field each of the API’s refusals names, in the words the API uses', () => {
    const refused = (status: number, message: string) =>
      catalogFieldOf(new ApiRequestError(status, 'invalid_parameter', message));
    expect(refused(400, REFUSALS.key)).toBe('personaKey');
    expect(refused(409, REFUSALS.keyTaken)).toBe('personaKey');
    expect(refused(400, REFUSALS.name)).toBe('name');
    expect(refused(400, REFUSALS.description)).toBe('description');
    expect(refused(400, REFUSALS.instructions)).toBe('instructions');
    expect(refused(400, 'active must be true or false')).toBe('enabled');
    expect(refused(400, 'available must be true or false')).toBe('enabled');
    // Not about a field: shown under the form.
    expect(refused(400, REFUSALS.nothing)).toBeUndefined();
    expect(refused(403, REFUSALS.name)).toBeUndefined();
    expect(catalogFieldOf(new Error('a name is wrong'))).toBeUndefined();
  });
});
