import { EXTERNAL_UI_ALT_TEXT, type HtmlUiResource, MCP_APP_MIME_TYPE } from '@fed/contracts';
import { type Logger } from '@fed/observability';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { type AgentTool, type ToolContext, type ToolOutcome, type ToolUiResource } from '../runtime/tools/agent-tool';
import { failureText, isTransientFailure } from './mcp-connection';
import { type ResourceContent, checkUiResource, isObject, isUiUri } from './mcp-ui';
import { type RecordedTool } from './tool-server.entity';

/** The model gets at most this much of a tool's text: a chatty server must not fill its context. */
export const RESULT_MAX_CHARS = 100_000;
const ERROR_MAX_CHARS = 2_000;
const DESCRIPTION_MAX_CHARS = 2_000;
const UI_SHOWN_NOTE = 'The tool showed its result to the user in an interactive view.';

/** One approved server as a turn uses it: connected at its first call, closed with the turn. */
export interface ServerSession {
  readonly name: string;
  readonly timeoutMs: number;
  client(signal: AbortSignal): Promise<Client>;
}

interface ContentItem {
  type: string;
  text?: unknown;
  uri?: unknown;
  resource?: ResourceContent;
}

/** A recorded tool of an approved MCP server, offered to the model as `<server>__<tool>`. */
export class ExternalTool implements AgentTool {
  readonly description: string;
  readonly parameters: Record<string, unknown>;

  constructor(
    readonly name: string,
    private readonly session: ServerSession,
    private readonly tool: RecordedTool,
    private readonly logger: Logger,
    private readonly uiMaxBytes?: number,
  ) {
    const description = tool.description || `The ${tool.name} tool of the ${session.name} tool server.`;
    this.description =
      description.length > DESCRIPTION_MAX_CHARS ? `${description.slice(0, DESCRIPTION_MAX_CHARS - 1)}…` : description;
    this.parameters = toolParameters(tool.inputSchema);
  }

  describe(): { title: string; description: string } {
    return { title: `Using ${this.tool.name}`, description: `A tool of the ${this.session.name} tool server` };
  }

  async run(args: Record<string, unknown>, context: ToolContext): Promise<ToolOutcome> {
    const { signal } = context;
    let client: Client;
    let result: { content?: unknown; isError?: unknown; structuredContent?: unknown };
    try {
      client = await this.session.client(signal);
      // The result's content is read defensively below: the server is not trusted to follow the schema.
      result = (await client.callTool({ name: this.tool.name, arguments: args }, undefined, {
        timeout: this.session.timeoutMs,
        signal,
      })) as typeof result;
    } catch (error) {
      if (signal.aborted) throw error;
      const reason = failureText(error);
      this.logger.warn({ server: this.session.name, tool: this.tool.name, reason }, 'external tool call failed');
      return this.failed(`The ${this.session.name} tool server could not run ${this.tool.name}: ${reason}.`, reason);
    }

    const items = Array.isArray(result.content) ? (result.content as ContentItem[]) : [];
    const text = bounded(resultText(items, result.structuredContent), RESULT_MAX_CHARS);
    if (result.isError === true) {
      const reason = bounded(text || 'the tool reported an error', ERROR_MAX_CHARS);
      return this.failed(reason, 'The tool reported an error');
    }
    const ui = await this.uiResource(client, items, context);
    const uiResource = ui && !ui.unservable ? { ...ui, viewResult: viewResult(items, result.structuredContent) } : ui;
    return {
      status: 'completed',
      // The HTML never reaches the model: it gets the tool's text, or a note that a UI was shown.
      content: text || (uiResource && !uiResource.unservable ? UI_SHOWN_NOTE : 'The tool returned no text.'),
      label: { title: `Used ${this.tool.name}`, description: `A tool of the ${this.session.name} tool server` },
      ...(uiResource ? { uiResource } : {}),
    };
  }

  /** The call's MCP Apps UI: an embedded `ui://` resource of the result, else the tool's declared one, read now. */
  private async uiResource(
    client: Client,
    items: ContentItem[],
    context: ToolContext,
  ): Promise<ToolUiResource | undefined> {
    const embedded = items.find((item) => item.type === 'resource' && isUiUri(item.resource?.uri))?.resource;
    const uri = embedded?.uri ?? this.tool.uiResourceUri;
    if (!uri) return undefined;
    let contents: readonly ResourceContent[];
    if (embedded) {
      contents = [embedded];
    } else {
      try {
        const read = await client.readResource({ uri }, { timeout: this.session.timeoutMs, signal: context.signal });
        contents = read.contents as ResourceContent[];
      } catch (error) {
        if (context.signal.aborted) throw error;
        const reason = failureText(error);
        this.logger.warn({ server: this.session.name, uri, reason }, 'external UI resource could not be read');
        // Announced without the HTML: retrieval reads it from the server later. A lasting failure: the phrase only.
        return isTransientFailure(error)
          ? { resource: this.resource(uri, context.callId) }
          : { resource: this.resource(uri, context.callId), unservable: true };
      }
    }
    const check = checkUiResource(uri, contents, this.uiMaxBytes);
    if (!check.ok) {
      this.logger.warn({ server: this.session.name, uri, problem: check.problem }, 'external UI resource refused');
      // The server did return a UI: the user is told so (the fixed phrase), without it.
      return { resource: this.resource(uri, context.callId), unservable: true };
    }
    return { resource: this.resource(uri, context.callId, check.mimeType, check.size, check.meta), html: check.html };
  }

  private resource(
    uri: string,
    callId: string,
    mimeType = MCP_APP_MIME_TYPE,
    size?: number,
    meta?: Record<string, unknown>,
  ): HtmlUiResource {
    const declared: Record<string, unknown> = {};
    if (this.tool.ui?.visibility !== undefined) declared.visibility = this.tool.ui.visibility;
    return {
      type: 'html',
      origin: 'external',
      altText: EXTERNAL_UI_ALT_TEXT,
      tool_call_id: callId,
      uri,
      tool_name: this.tool.name,
      server_name: this.session.name,
      mime_type: mimeType,
      ...(meta ? { meta } : {}),
      // API-started UI is closed, whatever the provider declares.
      capabilities: { ...declared, interaction_mode: 'closed' },
      ...(size !== undefined ? { size } : {}),
    };
  }

  private failed(error: string, description: string): ToolOutcome {
    return {
      status: 'failed',
      error,
      label: { title: `${this.tool.name} failed`, description: bounded(description, 200) },
    };
  }
}

/** The result as the MCP App's view gets it: every item but the UI's own HTML, and the structured content. */
function viewResult(items: ContentItem[], structured: unknown): { content: unknown[]; structuredContent?: unknown } {
  const content = items.filter(
    (item) => !(item.type === 'resource' && (isUiUri(item.resource?.uri) || isAppHtml(item.resource))),
  );
  return { content, ...(structured !== undefined && structured !== null ? { structuredContent: structured } : {}) };
}

/** The text parts of a result, with a word for what is not text; structured content when there is no text. */
function resultText(items: ContentItem[], structured: unknown): string {
  const parts: string[] = [];
  for (const item of items) {
    if (item.type === 'text' && typeof item.text === 'string') parts.push(item.text);
    // MCP Apps HTML is never a model's: neither under a ui:// URI nor under any other.
    else if (item.type === 'resource' && (isUiUri(item.resource?.uri) || isAppHtml(item.resource))) continue;
    else if (item.type === 'resource' && typeof item.resource?.text === 'string') parts.push(item.resource.text);
    else if (item.type === 'resource_link' && typeof item.uri === 'string') parts.push(`[resource ${item.uri}]`);
    else parts.push(`[${String(item.type).slice(0, 20)} content]`);
  }
  if (parts.length === 0 && isObject(structured)) return JSON.stringify(structured);
  return parts.join('\n');
}

function isAppHtml(resource: ResourceContent | undefined): boolean {
  return typeof resource?.mimeType === 'string' && /^text\/html\s*;\s*profile=mcp-app/i.test(resource.mimeType);
}

function bounded(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The recorded input schema as the model's parameters: an object schema, without a `$schema` dialect ajv may not know. */
function toolParameters(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = isObject(schema) ? schema : {};
  return { ...rest, type: 'object', properties: isObject(rest.properties) ? rest.properties : {} };
}
