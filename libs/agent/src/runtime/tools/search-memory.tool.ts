import type { MemoryStore } from '@fed/memory';
import { type AgentTool, type ToolOutcome, quoted } from './agent-tool';

interface SearchMemoryArgs {
  query: string;
}

const RESULTS = 8;
/** An entry's content given to the model is cut here: a few long entries must not fill its context. */
const CONTENT_LENGTH = 4000;

/** Full-text search of the shared memory: the tenant's entries and the ones shared with everyone. */
export class SearchMemoryTool implements AgentTool<SearchMemoryArgs> {
  readonly name = 'search_memory';
  readonly description =
    'Search the shared memory: facts and notes your organisation keeps for agents. Use keywords; ' +
    'quoted phrases, OR and -word are understood.';
  readonly parameters = {
    type: 'object',
    properties: { query: { type: 'string', minLength: 1, maxLength: 1000, description: 'What to look for.' } },
    required: ['query'],
    additionalProperties: false,
  };

  constructor(private readonly memory: MemoryStore) {}

  describe(args: SearchMemoryArgs): { title: string; description: string } {
    return { title: 'Searching shared memory', description: `Looking for ${quoted(args.query)}` };
  }

  async run(args: SearchMemoryArgs, context: { tenantId: string | null }): Promise<ToolOutcome> {
    const hits = await this.memory.search(context.tenantId, args.query, RESULTS);
    const results = hits.map((hit) => ({
      title: hit.title,
      content: hit.content.length > CONTENT_LENGTH ? `${hit.content.slice(0, CONTENT_LENGTH)}…` : hit.content,
      ...(hit.source ? { source: hit.source } : {}),
      updatedAt: hit.updatedAt.toISOString(),
    }));
    const count = results.length === 1 ? '1 result' : `${results.length} results`;
    return {
      status: 'completed',
      content: JSON.stringify({ results }),
      label: { title: 'Searched shared memory', description: `Looked for ${quoted(args.query)}: ${count}` },
    };
  }
}
