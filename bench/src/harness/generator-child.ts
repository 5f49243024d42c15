import { measureClosedLoops } from './closed-loop';
import { measureLatency } from './latency';
import { measureOpenLoop } from './open-loop';
import { measureOpenLoops } from './open-loop-rounds';

// The load generator's own process (generator-process.ts forks it): it imports nothing but node:http
// and the histogram, so its heap stays a few megabytes and its garbage collections short. In the
// benchmark's process (every library of the platform loaded, tens of megabytes live) a scavenge
// took 6-19 ms, and an open loop counts from when a request was due: those pauses were charged to
// the server as latency.

/** What the generator process can run: each a measurement of the harness, its arguments as JSON. */
export const generatorJobs = {
  latency: measureLatency,
  openLoop: measureOpenLoop,
  openLoops: measureOpenLoops,
  closedLoops: measureClosedLoops,
};

export type GeneratorJobs = typeof generatorJobs;

interface JobMessage {
  job: keyof GeneratorJobs;
  args: unknown[];
}

if (process.send) {
  process.once('message', (message: JobMessage) => {
    const run = generatorJobs[message.job] as (...args: unknown[]) => Promise<unknown>;
    run(...message.args).then(
      (result) => process.send?.({ result }, () => process.disconnect()),
      (error: Error) => process.send?.({ error: error.stack ?? String(error) }, () => process.disconnect()),
    );
  });
}
