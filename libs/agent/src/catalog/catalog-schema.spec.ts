import { MemoryEntryEntity } from '@fed/memory';
import { schemaDrift } from '@fed/persistence/testing';
import { marketplaceAgentEntities } from '../agents/marketplace-agent.entity';
import { catalogEntities } from './catalog.entities';

describe('agent catalog, Marketplace agents and shared-memory tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift([...catalogEntities, ...marketplaceAgentEntities, MemoryEntryEntity])).toEqual([]);
  });
});
