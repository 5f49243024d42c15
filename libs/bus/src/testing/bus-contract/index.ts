import { describeBusLifecycleContract } from './bus-lifecycle.contract';
import { describeCountersContract } from './counters.contract';
import { describeEmailQueueContract, type MakeEmailQueue } from './email-queue.contract';
import { type MakeBus } from './fixture';
import { describeRunQueueContract } from './run-queue.contract';
import { describeRunStreamContract } from './run-stream.contract';
import { describeSignalsContract } from './signals.contract';

export { type MakeEmailQueue } from './email-queue.contract';
export { type BusSettings, type MakeBus } from './fixture';

/** Every bus implementation's spec calls this, so the in-process bus cannot drift from the Redis one. */
export function describeBusContract(name: string, makeBus: MakeBus, makeEmailQueue: MakeEmailQueue): void {
  describe(`${name} bus contract`, () => {
    describeRunQueueContract(makeBus);
    describeRunStreamContract(makeBus);
    describeSignalsContract(makeBus);
    describeCountersContract(makeBus);
    describeBusLifecycleContract(makeBus);
    describeEmailQueueContract(makeEmailQueue);
  });
}
