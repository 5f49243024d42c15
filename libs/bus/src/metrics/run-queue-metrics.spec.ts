import { Registry } from 'prom-client';
import { MemoryRunQueue } from '../memory/memory-run-queue';
import { type RunQueue, type RunQueueStats } from '../ports';
import { runJob } from '../testing/async-helpers';
import { RunQueueGauges } from './run-queue-metrics';

/** The samples of the three gauges on a scrape, by name (and state). */
async function scrape(registry: Registry): Promise<Record<string, number>> {
  const samples: Record<string, number> = {};
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const { labels, value } of metric.values) {
      samples[labels.state ? `${metric.name}{${String(labels.state)}}` : metric.name] = value;
    }
  }
  return samples;
}

/** The in-process queue, its stats() answer changed by `change` (a figure Redis could not read, a failure). */
function queueAnswering(change: (stats: RunQueueStats) => Promise<RunQueueStats>): RunQueue {
  const queue = new MemoryRunQueue();
  const stats = queue.stats.bind(queue);
  queue.stats = async () => change(await stats());
  return queue;
}

describe('run queue gauges', () => {
  it('shows the jobs by state, the age of the next in line and the consumers', async () => {
    const registry = new Registry();
    const queue = new MemoryRunQueue();
    await queue.enqueue(runJob());
    new RunQueueGauges(registry).measure(queue);
    const samples = await scrape(registry);
    expect(samples).toEqual({
      'run_queue_jobs{waiting}': 1,
      'run_queue_jobs{active}': 0,
      'run_queue_jobs{delayed}': 0,
      run_queue_oldest_job_age_seconds: expect.any(Number),
      run_queue_consumers: 0,
    });
    await queue.close();
  });

  it('leaves out only the gauge whose figure could not be read (e.g. the consumers), not the others', async () => {
    const registry = new Registry();
    const queue = queueAnswering(async ({ consumers: _unread, ...read }) => read);
    new RunQueueGauges(registry).measure(queue);
    expect(await scrape(registry)).toEqual({
      'run_queue_jobs{waiting}': 0,
      'run_queue_jobs{active}': 0,
      'run_queue_jobs{delayed}': 0,
      run_queue_oldest_job_age_seconds: 0,
    });
    await queue.close();
  });

  it('shows no samples, rather than stale ones, when the queue cannot be read at all', async () => {
    const registry = new Registry();
    const queue = queueAnswering(() => Promise.reject(new Error('Redis unreachable')));
    new RunQueueGauges(registry).measure(queue);
    expect(await scrape(registry)).toEqual({});
    await queue.close();
  });
});
