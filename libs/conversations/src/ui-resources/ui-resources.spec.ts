import { ApiError, DomainError } from '@fed/contracts';
import { useTestDatabase } from '@fed/persistence/testing';
import { randomUUID } from 'node:crypto';
import { ConversationsRepository } from '../conversations/conversations.repository';
import { TurnLedger } from '../ledger/turn-ledger';
import {
  ExternalUiGoneError,
  type ExternalUiSource,
  ExternalUiTooLargeError,
  ExternalUiUnavailableError,
} from './external-ui-source.port';
import { UI_HTML_MAX_BYTES } from './ui-resource-record';
import { UiResourcesRepository } from './ui-resources.repository';
import { UiResourcesService } from './ui-resources.service';

const OWNER = { userId: 'user-1', tenantId: 'tenant-1' };

describe('UI resources: storage with the turn and retrieval', () => {
  const database = useTestDatabase();
  let ledger: TurnLedger;

  beforeAll(() => {
    ledger = new TurnLedger(database.dataSource);
  });

  function service(source?: ExternalUiSource): UiResourcesService {
    return new UiResourcesService(
      new ConversationsRepository(database.dataSource),
      new UiResourcesRepository(database.dataSource),
      () => source,
    );
  }

  /** A conversation of OWNER with a processing assistant message (a turn in progress); returns their ids. */
  async function turn(): Promise<{ conversationId: string; runId: string }> {
    const conversationId = randomUUID();
    const runId = randomUUID();
    await database.dataSource.query(
      `INSERT INTO "conversations"."conversations" ("id", "user_id", "tenant_id", "title", "created_at", "updated_at")
       VALUES ($1, $2, $3, 't', now(), now())`,
      [conversationId, OWNER.userId, OWNER.tenantId],
    );
    await database.dataSource.query(
      `INSERT INTO "conversations"."messages" ("id", "conversation_id", "user_id", "tenant_id", "sender", "text",
         "processing", "created_at", "updated_at") VALUES ($1, $2, $3, $4, 'AI', '', true, now(), now())`,
      [runId, conversationId, OWNER.userId, OWNER.tenantId],
    );
    return { conversationId, runId };
  }

  const external = (toolCallId: string) => ({
    toolCallId,
    type: 'html' as const,
    origin: 'external' as const,
    toolName: 'weather__forecast',
    serverName: 'weather',
    mimeType: 'text/html;profile=mcp-app',
    uri: 'ui://weather/forecast',
    capabilities: { interaction_mode: 'closed' },
  });

  async function failure(promise: Promise<unknown>): Promise<ApiError> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => (caught instanceof DomainError ? caught.toApiError() : caught),
    );
    if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
    return error;
  }

  it('stores a resource owned like its turn, with the HTML byte size, and retrieves it', async () => {
    const { conversationId, runId } = await turn();
    const html = '<p>Grüße</p>';
    const stored = await ledger.saveUiResource(runId, {
      toolCallId: 'call_1',
      type: 'html',
      origin: 'first-party',
      toolName: 'ask_user',
      serverName: 'federation',
      mimeType: 'text/html;profile=mcp-app',
      uri: 'ui://federation/choice-card/call_1',
      html,
    });
    expect(stored).toBe(true);
    const [row] = (await database.dataSource.query(
      `SELECT "user_id", "tenant_id", "message_id", "size" FROM "conversations"."ui_resources" WHERE "conversation_id" = $1`,
      [conversationId],
    )) as { user_id: string; tenant_id: string; message_id: string; size: number }[];
    expect(row).toEqual({ user_id: OWNER.userId, tenant_id: OWNER.tenantId, message_id: runId, size: 14 });
    expect(await service().html(OWNER, conversationId, 'call_1')).toEqual({
      toolCallId: 'call_1',
      type: 'html',
      origin: 'first-party',
      mimeType: 'text/html;profile=mcp-app',
      html,
    });
  });

  it('stores nothing for a turn that is no longer processing', async () => {
    const { runId } = await turn();
    await database.dataSource.query(`UPDATE "conversations"."messages" SET "processing" = false WHERE "id" = $1`, [
      runId,
    ]);
    expect(await ledger.saveUiResource(runId, external('call_late'))).toBe(false);
  });

  it('reads the HTML of an external resource that was not read at tool time, and keeps it', async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, external('call_ext'));
    const reads: unknown[] = [];
    const source: ExternalUiSource = {
      read: async (reference) => {
        reads.push(reference);
        return { html: '<p>sunny</p>', mimeType: 'text/html;profile=mcp-app' };
      },
    };
    const first = await service(source).html(OWNER, conversationId, 'call_ext');
    expect(first).toMatchObject({ origin: 'external', html: '<p>sunny</p>', mimeType: 'text/html;profile=mcp-app' });
    expect(reads).toEqual([{ serverName: 'weather', uri: 'ui://weather/forecast' }]);
    await service(source).html(OWNER, conversationId, 'call_ext');
    expect(reads).toHaveLength(1);
  });

  it('answers 502 upstream_api_error when the tool server fails transiently, and 500 for any other failure', async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, external('call_down'));
    const down: ExternalUiSource = {
      read: () => Promise.reject(new ExternalUiUnavailableError('connection refused')),
    };
    const error = await failure(service(down).html(OWNER, conversationId, 'call_down'));
    expect([error.status, error.code]).toEqual([502, 'upstream_api_error']);
    const broken: ExternalUiSource = { read: () => Promise.reject(new TypeError('bug')) };
    await expect(service(broken).html(OWNER, conversationId, 'call_down')).rejects.toThrow(TypeError);
  });

  it('answers 404 not_found (no retry), not 500, when the tool server was removed or its resource is now invalid', async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, external('call_gone'));
    const gone: ExternalUiSource = {
      read: () => Promise.reject(new ExternalUiGoneError('the tool server weather is not approved (any more)')),
    };
    const error = await failure(service(gone).html(OWNER, conversationId, 'call_gone'));
    expect([error.status, error.code]).toEqual([404, 'not_found']);
  });

  it('answers 404 file_too_large when the tool server refuses to hand over HTML over its own limit', async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, external('call_vast'));
    const vast: ExternalUiSource = {
      read: () => Promise.reject(new ExternalUiTooLargeError('weather: its HTML is larger than 2097152 bytes')),
    };
    const error = await failure(service(vast).html(OWNER, conversationId, 'call_vast'));
    expect([error.status, error.code]).toEqual([404, 'file_too_large']);
  });

  it('answers 404 file_too_large when the HTML read again is over 512 KB', async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, external('call_huge'));
    const huge: ExternalUiSource = {
      read: async () => ({ html: 'x'.repeat(UI_HTML_MAX_BYTES + 1), mimeType: 'text/html;profile=mcp-app' }),
    };
    const error = await failure(service(huge).html(OWNER, conversationId, 'call_huge'));
    expect([error.status, error.code]).toEqual([404, 'file_too_large']);
  });

  it("answers 404 conversation_not_found for another user's conversation", async () => {
    const { conversationId, runId } = await turn();
    await ledger.saveUiResource(runId, { ...external('call_x'), html: '<p/>' });
    const error = await failure(service().html({ userId: 'user-2', tenantId: 'tenant-1' }, conversationId, 'call_x'));
    expect(error.code).toBe('conversation_not_found');
  });
});
