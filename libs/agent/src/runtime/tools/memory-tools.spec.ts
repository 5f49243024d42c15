import { type ClaimedTurn } from '@fed/conversations';
import { type MemberProfiles } from '@fed/identity';
import { type EmbeddingsClient, MemoryError, MemoryItems, MemoryRepository, MemorySearch } from '@fed/memory';
import { createLogger } from '@fed/observability';
import { useTestDatabase } from '@fed/persistence/testing';
import { ToolServerTurnTools } from '../../toolservers/tool-server-turn-tools';
import type { ToolContext } from './agent-tool';
import { SaveMemoryTool } from './save-memory.tool';
import { SearchMemoryTool } from './search-memory.tool';

const noEmbeddings = { model: undefined, embed: async () => [] } as unknown as EmbeddingsClient;
const failingEmbeddings = {
  model: 'kw',
  embed: async () => {
    throw new MemoryError('upstream_error', 'the model gateway could not be reached');
  },
} as unknown as EmbeddingsClient;

function context(fields: Partial<ToolContext> = {}): ToolContext {
  return {
    tenantId: 'tenant-1',
    userId: 'user-1',
    conversationId: 'conversation-1',
    messageId: 'm',
    privateMode: false,
    signal: new AbortController().signal,
    callId: 'call_1',
    deliverables: { save: async () => Promise.reject(new Error('unused')) },
    ...fields,
  };
}

describe('the shared memory tools (save_memory, search_memory) on the real database', () => {
  const database = useTestDatabase();
  const sales = { of: async () => ({ orgId: 'sales' }) } as unknown as MemberProfiles;
  const nobody = { of: async () => ({}) } as unknown as MemberProfiles;

  it('saves a fact in the user tenant, scoped to their organization, with the conversation as its source', async () => {
    const save = new SaveMemoryTool(new MemoryItems(database.dataSource, noEmbeddings), sales);
    const outcome = await save.run({ text: 'Sales closes the books on the 25th.' }, context());
    expect(outcome.status).toBe('completed');
    const [item] = await new MemoryRepository(database.dataSource).list({ tenantId: 'tenant-1', limit: 10 });
    expect(item).toMatchObject({
      text: 'Sales closes the books on the 25th.',
      scope: 'organization',
      orgId: 'sales',
      source: 'conversation-1',
    });
  });

  it('saves a tenant-wide (global) fact for a user without an organization', async () => {
    const save = new SaveMemoryTool(new MemoryItems(database.dataSource, noEmbeddings), nobody);
    await save.run({ text: 'The canteen opens at noon.' }, context({ tenantId: 'tenant-2' }));
    const [item] = await new MemoryRepository(database.dataSource).list({ tenantId: 'tenant-2', limit: 10 });
    expect(item).toMatchObject({ scope: 'global', orgId: null, tenantId: 'tenant-2' });
  });

  it('keeps nothing of a private turn: not offered there, and refused if called', async () => {
    const save = new SaveMemoryTool(new MemoryItems(database.dataSource, noEmbeddings), nobody);
    const search = new SearchMemoryTool(new MemorySearch(database.dataSource, noEmbeddings), nobody);
    const turnTools = new ToolServerTurnTools(
      [search, save],
      { enabled: async () => [] },
      undefined,
      createLogger({ service: 'test', level: 'silent' }),
    );
    const offered = async (privateMode: boolean) => {
      const turn = { options: { agentMode: true, privateMode } } as unknown as ClaimedTurn;
      const { toolbox, close } = await turnTools.open(turn, new AbortController().signal);
      await close();
      return toolbox.definitions().map((definition) => definition.function.name);
    };
    expect(await offered(false)).toEqual(['search_memory', 'save_memory']);
    expect(await offered(true)).toEqual(['search_memory']);
    const outcome = await save.run({ text: 'secret' }, context({ privateMode: true, tenantId: 'tenant-3' }));
    expect(outcome.status).toBe('failed');
    expect(await new MemoryRepository(database.dataSource).list({ tenantId: 'tenant-3', limit: 10 })).toEqual([]);
  });

  it("searches with the user's tenant and organization: the organization's items, never another tenant's", async () => {
    const search = new SearchMemoryTool(new MemorySearch(database.dataSource, noEmbeddings), sales);
    const found = async (tenantId: string) => {
      const outcome = await search.run({ query: 'books OR canteen' }, context({ tenantId }));
      expect(outcome.status).toBe('completed');
      const { results } = JSON.parse((outcome as { content: string }).content) as { results: { content: string }[] };
      return results.map((result) => result.content);
    };
    expect(await found('tenant-1')).toEqual(['Sales closes the books on the 25th.']);
    expect(await found('tenant-2')).toEqual(['The canteen opens at noon.']);
  });

  it('tells the model when the shared memory cannot be searched (no empty result)', async () => {
    const search = new SearchMemoryTool(new MemorySearch(database.dataSource, failingEmbeddings), nobody);
    const outcome = await search.run({ query: 'books' }, context());
    expect(outcome.status).toBe('failed');
  });
});
