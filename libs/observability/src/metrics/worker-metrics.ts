import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// When a service runs as several worker processes behind one port (node:cluster), a scrape reaches
// one worker at random. That worker asks the primary, which collects every worker's registry
// (prom-client's cluster protocol) and answers with their sum: counters and histograms add up,
// gauges follow each metric's own aggregator.

const REQUEST = 'fed:metrics:request';
const ANSWER = 'fed:metrics:answer';
/** prom-client gives up on a worker that does not answer after 5 s; the asking worker waits a little longer. */
const ANSWER_TIMEOUT_MS = 6000;

interface MetricsRequest {
  type: typeof REQUEST;
  id: number;
}

interface MetricsAnswer {
  type: typeof ANSWER;
  id: number;
  body?: string;
  error?: string;
}

const isRequest = (message: unknown): message is MetricsRequest =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === REQUEST;
const isAnswer = (message: unknown): message is MetricsAnswer =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === ANSWER;

/** In the primary: answers the workers' metrics requests with every worker's metrics summed. */
export function serveWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: unknown) => {
    if (!isRequest(message)) return;
    const reply = (answer: Omit<MetricsAnswer, 'type' | 'id'>) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, ...answer } satisfies MetricsAnswer);
    };
    aggregator.clusterMetrics().then(
      (body) => reply({ body }),
      (error: unknown) => reply({ error: error instanceof Error ? error.message : String(error) }),
    );
  });
}

/**
 * In a worker: offers `registry` to the primary's collection, and returns what renders the sum of
 * every worker's metrics (asked of the primary).
 */
export function metricsAcrossWorkers(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // Made for its side effect: in a worker, the constructor is what starts answering the primary's collection.
  new AggregatorRegistry();
  let next = 0;
  /** Each request waiting for its answer, by id: what settles it. */
  const waiting = new Map<number, (error: Error | undefined, body?: string) => void>();
  process.on('message', (message: unknown) => {
    if (!isAnswer(message)) return;
    const settle = waiting.get(message.id);
    if (message.body !== undefined) settle?.(undefined, message.body);
    else settle?.(new Error(`metrics of the workers unavailable: ${message.error ?? 'no answer'}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const settle = (error: Error | undefined, body?: string) => {
        if (!waiting.delete(id)) return;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(body ?? '');
      };
      const timer = setTimeout(
        () => settle(new Error('metrics of the workers: the primary did not answer')),
        ANSWER_TIMEOUT_MS,
      );
      waiting.set(id, settle);
      if (!process.send) return settle(new Error('metrics of the workers: no channel to the primary'));
      process.send({ type: REQUEST, id } satisfies MetricsRequest, undefined, undefined, (error) => {
        if (error) settle(error);
      });
    });
}
