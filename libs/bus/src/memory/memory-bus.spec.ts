import { createBus } from '../create-bus';
import { createEmailQueue } from '../create-email-queue';
import { describeBusContract } from '../testing/bus-contract';

describeBusContract(
  'in-process',
  async (settings) => createBus({ keyPrefix: 'test:', ...settings }),
  (settings) => createEmailQueue({ keyPrefix: 'test:', ...settings }),
);

describe('createBus without a Redis URL', () => {
  it('builds the in-process bus, whose ping resolves at once', async () => {
    const bus = createBus({ keyPrefix: 'fed:' });
    try {
      expect(bus.kind).toBe('in-process');
      await expect(bus.ping()).resolves.toBeUndefined();
    } finally {
      await bus.close();
    }
  });
});
