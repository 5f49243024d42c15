import {
  type ExternalUiContent,
  ExternalUiGoneError,
  type ExternalUiReference,
  type ExternalUiSource,
  ExternalUiTooLargeError,
  ExternalUiUnavailableError,
} from '@fed/conversations';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectToolServer, failureText, isTransientFailure } from './mcp-connection';
import { type ResourceContent, UI_MAX_BYTES, checkUiResource } from './mcp-ui';
import { answerLimits, answerTooLarge } from './tool-server-fetch';
import { ToolServerNetwork } from './tool-server-network';
import { type ToolServerRepository } from './tool-server.repository';
import { isServerName } from './tool-server.rules';
import { type ToolServerSecrets } from './tool-server-secrets';
import { endpointOf } from './tool-server-turn-tools';

/** A UI resource that cannot be served from its tool server, and will not be by asking again (404 `not_found`). */
export class ExternalUiRefusedError extends ExternalUiGoneError {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalUiRefusedError';
  }
}

/** Re-reads an external UI resource from its approved server, checked as at tool time (errors as ExternalUiSource). */
export class ToolServerUiSource implements ExternalUiSource {
  constructor(
    private readonly repository: Pick<ToolServerRepository, 'findByName'>,
    private readonly secrets: ToolServerSecrets | undefined,
    private readonly maxBytes = UI_MAX_BYTES,
    private readonly network = ToolServerNetwork.of(false),
  ) {}

  async read(reference: ExternalUiReference, signal?: AbortSignal): Promise<ExternalUiContent> {
    const server = isServerName(reference.serverName) ? await this.repository.findByName(reference.serverName) : null;
    if (!server || !server.enabled) {
      throw new ExternalUiRefusedError(`the tool server ${reference.serverName} is not approved (any more)`);
    }
    // Outside the try: a key that cannot open the auth header is this deployment's fault (500), not the server's.
    const endpoint = await endpointOf(server, this.secrets, this.network);
    let client: Client | undefined;
    let contents: readonly ResourceContent[];
    try {
      client = await connectToolServer(endpoint, signal, answerLimits(this.maxBytes));
      const read = await client.readResource({ uri: reference.uri }, { timeout: server.timeoutMs, signal });
      contents = read.contents as ResourceContent[];
    } catch (error) {
      const reason = `${server.name}: ${failureText(error)}`;
      if (answerTooLarge(error)) throw new ExternalUiTooLargeError(reason);
      throw isTransientFailure(error) ? new ExternalUiUnavailableError(reason) : new ExternalUiRefusedError(reason);
    } finally {
      await client?.close().catch(() => undefined);
    }
    const check = checkUiResource(reference.uri, contents, this.maxBytes);
    if (!check.ok) {
      const reason = `${server.name}: the UI resource was refused: ${check.problem}`;
      throw check.tooLarge ? new ExternalUiTooLargeError(reason) : new ExternalUiRefusedError(reason);
    }
    return { html: check.html, mimeType: check.mimeType };
  }
}
