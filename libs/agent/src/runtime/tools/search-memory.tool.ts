import { type MemberProfiles } from '@fed/identity';
import { type MemorySearch, MemoryError } from '@fed/memory';
import { type AgentTool, type ToolContext, type ToolOutcome, quoted } from './agent-tool';

interface SearchMemoryArgs {
  query: string;
}

const RESULTS = 8;
/** An entry's content given to the model is cut here: a few long entries must not fill its context. */
const CONTENT_LENGTH = 4000;

/** Shared-memory search (as the admin API's, without quota) over the tenant's, shared, org and job-type items. */
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

  constructor(
    private readonly memory: MemorySearch,
    private readonly profiles: MemberProfiles,
  ) {}

  /** Not for a Marketplace agent: the shared memory is the SaaS tenant's (see SaveMemoryTool). */
  offered(turn: { agentId?: string }): boolean {
    return turn.agentId === undefined;
  }

  describe(args: SearchMemoryArgs): { title: string; description: string } {
    return { title: 'Searching shared memory', description: `Looking for ${quoted(args.query)}` };
  }

  async run(args: SearchMemoryArgs, context: ToolContext): Promise<ToolOutcome> {
    const profile = await this.profiles.of(context.userId);
    let hits;
    try {
      hits = await this.memory.search(
        { tenantId: context.tenantId, ...profile, text: args.query, limit: RESULTS },
        context.signal,
      );
    } catch (error) {
      if (!(error instanceof MemoryError)) throw error;
      return {
        status: 'failed',
        error: `The shared memory could not be searched: ${error.message}`,
        label: { title: 'Shared memory unavailable', description: `Looked for ${quoted(args.query)}` },
      };
    }
    const results = hits.map((hit) => ({
      ...(hit.title ? { title: hit.title } : {}),
      content: hit.text.length > CONTENT_LENGTH ? `${hit.text.slice(0, CONTENT_LENGTH)}…` : hit.text,
      scope: hit.scope,
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
