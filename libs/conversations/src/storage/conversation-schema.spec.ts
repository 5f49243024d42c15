import { schemaDrift } from '@fed/persistence/testing';
import { conversationEntities } from './index';

describe('conversation tables', () => {
  it('match their entities (migrations and entities have not drifted)', async () => {
    expect(await schemaDrift(conversationEntities)).toEqual([]);
  });
});
