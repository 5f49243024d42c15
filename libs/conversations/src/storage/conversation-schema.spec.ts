import { catalogEntities } from '@fed/agent';
import { MemoryEntryEntity } from '@fed/memory';
import { schemaDrift } from '@fed/persistence/testing';
import { conversationEntities } from './index';

describe('conversation, agent catalog and shared-memory tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([...conversationEntities, ...catalogEntities, MemoryEntryEntity])).toEqual([]);
  });
});
