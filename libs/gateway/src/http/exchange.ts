import { type GatewayLogRow } from '@fed/audit';
import { timeOrderedUuid } from '@fed/persistence';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type GatewayPrincipal } from '../access/gateway-principal';
import { type Deployment, type RoutedModel } from '../routing/routing-table';
import { type TokenUsage } from '../usage/token-usage';
import { type ApiFamily, type GatewayError } from './gateway-error';

export type ApiFlavor = 'chat_completions' | 'responses' | 'embeddings' | 'models' | 'messages' | 'count_tokens';

/**
 * `partial`: cut short, the provider's counts plus ours of the rest; `estimated`: the provider reported
 * nothing; `none`: no model tokens (refusals, model lists, token counting).
 */
export type UsageStatus = 'reported' | 'partial' | 'estimated' | 'none';

export class Exchange {
  readonly createdAt = new Date();
  readonly startedMs = performance.now();
  readonly abort = new AbortController();
  principal: GatewayPrincipal | null = null;
  flavor: ApiFlavor | null = null;
  modelName: string | null = null;
  model: RoutedModel | null = null;
  deployment: Deployment | null = null;
  stream = false;
  attempts = 0;
  usage: TokenUsage | null = null;
  usageStatus: UsageStatus = 'none';
  costUsd: number | null = null;
  failure: GatewayError | null = null;
  /** The content filter: after the key's limits admit the call, before any provider is called. */
  beforeDispatch: (() => void) | null = null;
  firstByteMs: number | null = null;
  clientAborted = false;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly family: ApiFamily,
  ) {
    // The client went away: stop the provider's work too.
    res.once('close', () => {
      if (!res.writableFinished) {
        this.clientAborted = true;
        this.abort.abort();
      }
    });
  }

  markFirstByte(): void {
    if (this.firstByteMs === null) this.firstByteMs = performance.now() - this.startedMs;
  }

  header(name: string): string | undefined {
    const value = this.req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  /** Spec document 3, "Gateway log". */
  logRow(): GatewayLogRow {
    const usage = this.usage;
    const status = this.clientAborted && !this.res.headersSent ? 499 : this.res.statusCode;
    const success = this.failure === null && !this.clientAborted && status < 400;
    const sessionId = this.header('x-client-session-id') ?? this.header('x-claude-code-session-id') ?? null;
    return {
      id: timeOrderedUuid(),
      createdAt: this.createdAt,
      virtualKeyId: this.principal?.virtualKeyId ?? null,
      clientSessionId: sessionId ? sessionId.slice(0, 200) : null,
      clientAgentId: (this.header('x-client-agent-id') ?? this.header('user-agent') ?? null)?.slice(0, 200) ?? null,
      apiFlavor: this.flavor,
      modelName: this.modelName,
      resolvedModel: this.deployment?.upstreamModel ?? null,
      provider: this.deployment?.provider.name ?? null,
      deployment: this.deployment?.name ?? null,
      tier: this.model?.tier ?? null,
      stream: this.flavor === null ? null : this.stream,
      success,
      httpStatus: status,
      errorType: this.failure?.type ?? (this.clientAborted ? 'client_aborted' : null),
      errorCode: this.failure?.code ?? null,
      usageStatus: this.usageStatus,
      latencyMs: Math.round(performance.now() - this.startedMs),
      inputTokens: usage?.inputTokens ?? null,
      outputTokens: usage?.outputTokens ?? null,
      totalTokens: usage ? usage.inputTokens + usage.outputTokens : null,
      cachedTokens: usage?.cachedTokens ?? null,
      cacheCreationInputTokens: usage?.cacheCreationInputTokens ?? null,
      reasoningTokens: usage?.reasoningTokens ?? null,
      costUsd: this.costUsd === null ? null : this.costUsd.toFixed(8),
      currency: this.costUsd === null ? null : 'USD',
      metadata: {
        requestId: this.res.getHeader('x-request-id') ?? null,
        principal: this.principal ? `${this.principal.kind}:${this.principal.label}` : null,
        attempts: this.attempts,
        ...(this.firstByteMs !== null ? { timeToFirstByteMs: Math.round(this.firstByteMs * 10) / 10 } : {}),
        ...(this.clientAborted ? { clientAborted: true } : {}),
      },
      tenantId: this.principal?.tenantId ?? null,
    };
  }
}
