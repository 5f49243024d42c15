import { type DataSource } from 'typeorm';
import { AuditLogWriter } from './audit-log-writer';
import { AuditTrail } from './audit-trail';

const actor = { userId: 'admin-1', userEmail: null, ipAddress: '10.0.0.1', userAgent: 'ua', tenantId: 'tenant-1' };

/** A database whose answers the test decides; keeps the rows of the inserts it accepted. */
function fakeDatabase() {
  const written: Record<string, unknown>[] = [];
  let answer: () => Error | null = () => null;
  return {
    written,
    answerWith(next: () => Error | null) {
      answer = next;
    },
    query: (async (_sql: string, [json]: [string]) => {
      const error = answer();
      if (error) throw error;
      written.push(...(JSON.parse(json) as Record<string, unknown>[]));
      return [];
    }) as DataSource['query'],
  };
}

const dataError = () => Object.assign(new Error('invalid input syntax'), { code: '22P02' });

describe('AuditTrail', () => {
  it('never fails the admin call: rows wait while the database is down and are written when it answers', async () => {
    const database = fakeDatabase();
    const writer = new AuditLogWriter(database, { flushMs: 60_000 });
    const trail = new AuditTrail(writer);
    database.answerWith(() => new Error('connection refused'));
    expect(() => trail.record({ resource: 'users/show', action: 'approve' }, actor)).not.toThrow();
    await trail.flush();
    expect(writer.pending).toBe(1);
    database.answerWith(() => null);
    await writer.close();
    expect(database.written).toEqual([
      expect.objectContaining({ resource: 'users/show', action: 'approve', meta: null, user_id: 'admin-1' }),
    ]);
  });

  it('drops a batch PostgreSQL refuses as data instead of retrying it for ever', async () => {
    const database = fakeDatabase();
    const dropped: number[] = [];
    const writer = new AuditLogWriter(database, { flushMs: 60_000, onDropped: (rows) => dropped.push(rows) });
    const trail = new AuditTrail(writer);
    database.answerWith(dataError);
    trail.record({ resource: 'users/show', action: 'delete' }, actor);
    await trail.flush();
    expect(dropped).toEqual([1]);
    expect(writer.pending).toBe(0);
  });

  it('replaces NUL and lone surrogates, which PostgreSQL cannot store, in every text and in meta', async () => {
    const database = fakeDatabase();
    const writer = new AuditLogWriter(database, { flushMs: 60_000 });
    const trail = new AuditTrail(writer);
    trail.record(
      { resource: 'users\u0000/show', action: 'update', meta: { userId: 'a\uD800b', nested: { at: new Date(0) } } },
      { ...actor, userAgent: 'x\uDC00' },
    );
    await writer.close();
    expect(database.written[0]).toMatchObject({
      resource: 'users\uFFFD/show',
      meta: { userId: 'a\uFFFDb', nested: { at: '1970-01-01T00:00:00.000Z' } },
      user_agent: 'x\uFFFD',
    });
    // A well-formed pair stays.
    trail.record({ resource: 'emoji', action: '\uD83D\uDE00' }, actor);
    await writer.close();
    expect(database.written[1]).toMatchObject({ action: '\uD83D\uDE00' });
  });
});
