import { schemaDrift } from '@fed/persistence/testing';
import { memoryEntities } from './memory-entry.entity';

describe('shared memory tables', () => {
  it('match their entities (the migration and the entities have not drifted)', async () => {
    expect(await schemaDrift(memoryEntities)).toEqual([]);
  });
});
