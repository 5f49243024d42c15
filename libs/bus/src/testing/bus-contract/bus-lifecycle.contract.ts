import { type Bus } from '../../create-bus';
import { runJob } from '../async-helpers';
import { closeAll, CONTRACT_SETTINGS, type MakeBus } from './fixture';

export function describeBusLifecycleContract(makeBus: MakeBus): void {
  describe('Bus', () => {
    let bus: Bus;

    beforeEach(async () => {
      bus = await makeBus(CONTRACT_SETTINGS);
    });

    afterEach(() => closeAll([], [bus]));

    it('answers ping while open and refuses work after close', async () => {
      await expect(bus.ping()).resolves.toBeUndefined();
      await bus.close();
      await expect(bus.ping()).rejects.toThrow();
      await expect(bus.runQueue.enqueue(runJob())).rejects.toThrow();
      await expect(bus.runStream.append('x', 'y')).rejects.toThrow();
      await expect(bus.signals.publish('config.changed', { version: 1, area: 'x' })).rejects.toThrow();
    });
  });
}
