import { type MetricDefinition } from '@fed/observability';
import { Gauge, type Registry } from 'prom-client';
import { within } from '../internal/within';
import { type RunQueue, type RunQueueStats } from '../ports';

/** One scrape reads the queue once for its three gauges. */
const STATS_REUSE_MS = 1000;
const STATS_TIMEOUT_MS = 2000;

/** A figure that could not be read shows no sample rather than a stale number. */
export class RunQueueGauges {
  private queue: RunQueue | undefined;
  private reading: { at: number; stats: Promise<RunQueueStats | undefined> } | undefined;

  constructor(registry: Registry) {
    const read = () => this.read();
    new Gauge({
      name: 'run_queue_jobs',
      help: 'Agent turns in the run queue, by state (waiting for a runtime, active on one, delayed for a retry).',
      labelNames: ['state'],
      registers: [registry],
      async collect() {
        this.reset();
        const jobs = (await read())?.jobs;
        if (!jobs) return;
        this.set({ state: 'waiting' }, jobs.waiting);
        this.set({ state: 'active' }, jobs.active);
        this.set({ state: 'delayed' }, jobs.delayed);
      },
    });
    new Gauge({
      name: 'run_queue_oldest_job_age_seconds',
      help: 'Age of the waiting agent turn next in line, since it was first queued; 0 when none waits.',
      registers: [registry],
      async collect() {
        this.reset();
        const age = (await read())?.oldestWaitingSeconds;
        // A label-less gauge keeps a 0 through reset: removed, so "unknown" never reads as "none".
        if (age === undefined) this.remove();
        else this.set(age);
      },
    });
    new Gauge({
      name: 'run_queue_consumers',
      help: 'Agent runtimes connected to the run queue (draining ones included); 0: no runtime takes turns.',
      registers: [registry],
      async collect() {
        this.reset();
        const consumers = (await read())?.consumers;
        // A 0 would fire RunQueueNoConsumer.
        if (consumers === undefined) this.remove();
        else this.set(consumers);
      },
    });
  }

  /** Every feature of an app shares its bus, so the first queue given is the one. */
  measure(queue: RunQueue): void {
    this.queue ??= queue;
  }

  private read(): Promise<RunQueueStats | undefined> {
    const queue = this.queue;
    if (!queue) return Promise.resolve(undefined);
    const now = performance.now();
    if (!this.reading || now - this.reading.at > STATS_REUSE_MS) {
      const stats = queue.stats();
      this.reading = {
        at: now,
        stats: within(stats, STATS_TIMEOUT_MS).then(
          (answered) => (answered ? stats : undefined),
          () => undefined,
        ),
      };
    }
    return this.reading.stats;
  }
}

export const runQueueMetrics: MetricDefinition<RunQueueGauges> = {
  name: 'run_queue_jobs',
  create: (registry) => new RunQueueGauges(registry),
};
