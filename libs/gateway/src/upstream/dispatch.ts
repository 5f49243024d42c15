import { setTimeout as sleep } from 'node:timers/promises';
import { demoAnswer } from '../demo/demo-model';
import { UpstreamBusyError } from './connection-slots';
import { type Deployment, type RetryPolicy } from '../routing/routing-table';
import {
  type ForwardedHeaders,
  type UpstreamAnswer,
  type UpstreamClient,
  type UpstreamEndpoint,
  headerOf,
} from './upstream-client';

const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export interface DispatchResult {
  deployment: Deployment;
  answer: UpstreamAnswer;
  /** This one included. */
  attempts: number;
}

export class UpstreamUnreachableError extends Error {
  constructor(
    readonly attempts: number,
    readonly lastDeployment: Deployment | undefined,
    cause: unknown,
  ) {
    super(`no provider could be reached: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'UpstreamUnreachableError';
  }
}

function retryAfterMs(answer: UpstreamAnswer): number | undefined {
  const milliseconds = headerOf(answer, 'retry-after-ms');
  const value = milliseconds ?? headerOf(answer, 'retry-after');
  if (value === undefined) return undefined;
  const number = Number(value);
  if (Number.isFinite(number)) return milliseconds !== undefined ? number : number * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * Each deployment in order gets `policy.attempts` tries, with backoff and jitter (`retry-after` honoured
 * up to the longest pause), on a retryable status or connection failure. Nothing is retried once an
 * answer is handed back: its first byte may be on its way to the client.
 */
export async function dispatch(
  client: UpstreamClient,
  deployments: readonly Deployment[],
  endpoint: UpstreamEndpoint,
  bodyFor: (deployment: Deployment) => string,
  forwarded: ForwardedHeaders,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<DispatchResult> {
  let attempts = 0;
  let lastError: unknown;
  let lastDeployment: Deployment | undefined;
  for (const [index, deployment] of deployments.entries()) {
    const body = bodyFor(deployment);
    const isLastDeployment = index === deployments.length - 1;
    for (let attempt = 1; attempt <= policy.attempts; attempt++) {
      attempts++;
      lastDeployment = deployment;
      const isLastTry = isLastDeployment && attempt === policy.attempts;
      let answer: UpstreamAnswer;
      try {
        answer =
          deployment.provider.type === 'demo'
            ? demoAnswer(endpoint, body)
            : await client.send(deployment, endpoint, body, forwarded, signal);
      } catch (error) {
        if (signal.aborted) throw error;
        lastError = error;
        // A busy provider would make another try wait as long again.
        if (isLastTry || error instanceof UpstreamBusyError) break;
        if (attempt < policy.attempts) await pause(policy, attempt, undefined, signal);
        continue;
      }
      if (!RETRYABLE.has(answer.status) || isLastTry) return { deployment, answer, attempts };
      const hint = retryAfterMs(answer);
      await answer.discard().catch(() => undefined);
      if (attempt < policy.attempts) await pause(policy, attempt, hint, signal);
    }
  }
  throw new UpstreamUnreachableError(attempts, lastDeployment, lastError);
}

function pause(policy: RetryPolicy, attempt: number, hintMs: number | undefined, signal: AbortSignal): Promise<void> {
  const backoff = policy.initialBackoffMs * 2 ** (attempt - 1);
  const jittered = backoff / 2 + Math.random() * (backoff / 2);
  const ms = Math.min(policy.maxBackoffMs, hintMs ?? jittered);
  return ms <= 0 ? Promise.resolve() : sleep(ms, undefined, { signal });
}
