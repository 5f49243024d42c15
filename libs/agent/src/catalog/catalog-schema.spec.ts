import { MemoryEntryEntity } from '@fed/memory';
import { schemaDrift } from '@fed/persistence/testing';
import { catalogEntities } from './catalog.entities';

describe('agent catalog and shared-memory tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([...catalogEntities, MemoryEntryEntity])).toEqual([]);
  });
});
