import cluster from 'node:cluster';
import { AggregatorRegistry, type Registry } from 'prom-client';

// Behind one port (node:cluster) a scrape reaches one worker at random, which asks the primary for every
// worker's registry summed (prom-client's cluster protocol).

const REQUEST = 'fed:metrics:request';
const ANSWER = 'fed:metrics:answer';
/** prom-client gives up on a worker after 5 s; the asking worker waits a little longer. */
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

export function metricsAcrossWorkers(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // In a worker, the constructor is what starts answering the primary's collection.
  new AggregatorRegistry();
  let next = 0;
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
