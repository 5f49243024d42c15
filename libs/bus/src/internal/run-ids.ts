import { type RunJob } from '@fed/contracts';
import { type EnqueueOptions } from '../ports';

export const DEFAULT_ATTEMPTS = 3;

// BullMQ refuses custom job ids that look like integers or contain ':'; refused in-process too, so
// a run id that works in all-in-one mode also works with Redis.
export function assertRunId(runId: string): void {
  if (typeof runId !== 'string' || runId === '' || runId.includes(':') || `${parseInt(runId, 10)}` === runId) {
    throw new RangeError(`invalid runId ${JSON.stringify(runId)}: use a non-numeric id without ':' (e.g. a UUID)`);
  }
}

export function resolveAttempts(options: EnqueueOptions = {}): number {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError('attempts must be an integer >= 1');
  return attempts;
}

export function resolveConcurrency(concurrency = 1): number {
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError('concurrency must be an integer >= 1');
  return concurrency;
}

/** The handler can never mutate the producer's object. */
export function wireCopy(job: RunJob): RunJob {
  return JSON.parse(JSON.stringify(job)) as RunJob;
}
