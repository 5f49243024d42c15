import { type RunCancelledV1 } from '@fed/contracts';
import { randomUUID } from 'node:crypto';
import { type Bus } from '../../create-bus';
import { deferred, eventually, resolvesWithin, sleep } from '../async-helpers';
import { closeAll, CONTRACT_SETTINGS, type MakeBus } from './fixture';

export function describeSignalsContract(makeBus: MakeBus): void {
  describe('Signals', () => {
    let bus: Bus;

    beforeEach(async () => {
      bus = await makeBus(CONTRACT_SETTINGS);
    });

    afterEach(() => closeAll([], [bus]));

    const cancelled = (): RunCancelledV1 => ({ version: 1, conversationId: randomUUID(), runId: randomUUID() });

    it('delivers a payload published after subscribe resolved', async () => {
      const received = deferred<RunCancelledV1>();
      await bus.signals.subscribe('run.cancelled', (payload) => received.resolve(payload));
      const payload = cancelled();
      await bus.signals.publish('run.cancelled', payload);
      expect(await resolvesWithin('the signal', received.promise)).toEqual(payload);
    });

    it('delivers to every subscriber of the topic', async () => {
      const first = deferred<RunCancelledV1>();
      const second = deferred<RunCancelledV1>();
      await bus.signals.subscribe('run.cancelled', (p) => first.resolve(p));
      await bus.signals.subscribe('run.cancelled', (p) => second.resolve(p));
      const payload = cancelled();
      await bus.signals.publish('run.cancelled', payload);
      expect(await resolvesWithin('both deliveries', Promise.all([first.promise, second.promise]))).toEqual([
        payload,
        payload,
      ]);
    });

    it('stops delivery to a handler once it unsubscribed', async () => {
      const gone: RunCancelledV1[] = [];
      const witness = deferred<RunCancelledV1>();
      const subscription = await bus.signals.subscribe('run.cancelled', (p) => void gone.push(p));
      await bus.signals.subscribe('run.cancelled', (p) => witness.resolve(p));
      await subscription.unsubscribe();
      await bus.signals.publish('run.cancelled', cancelled());
      // The witness got it, so the unsubscribed handler would have had it by now.
      await resolvesWithin('the witness delivery', witness.promise);
      await sleep(20);
      expect(gone).toEqual([]);
    });

    it('keeps topics apart', async () => {
      const revoked: unknown[] = [];
      const changed = deferred<unknown>();
      await bus.signals.subscribe('auth.token-revoked', (p) => void revoked.push(p));
      await bus.signals.subscribe('config.changed', (p) => changed.resolve(p));
      await bus.signals.publish('config.changed', { version: 1, area: 'gateway.routes' });
      expect(await resolvesWithin('the config signal', changed.promise)).toEqual({
        version: 1,
        area: 'gateway.routes',
      });
      await sleep(20);
      expect(revoked).toEqual([]);
    });

    it('keeps delivering to other handlers, and later to itself, when a handler throws', async () => {
      let thrownTimes = 0;
      const others: RunCancelledV1[] = [];
      await bus.signals.subscribe('run.cancelled', () => {
        thrownTimes++;
        throw new Error('handler bug');
      });
      await bus.signals.subscribe('run.cancelled', (p) => void others.push(p));
      const first = cancelled();
      const second = cancelled();
      await bus.signals.publish('run.cancelled', first);
      await bus.signals.publish('run.cancelled', second);
      await eventually('both deliveries to the healthy handler', () => others.length === 2);
      expect(others).toEqual([first, second]);
      await eventually('both calls of the throwing handler', () => thrownTimes === 2);
    });

    it('gives each handler its own copy of the payload', async () => {
      const seen: RunCancelledV1[] = [];
      const handler = (p: RunCancelledV1) => {
        seen.push({ ...p });
        p.conversationId = 'mutated';
      };
      await bus.signals.subscribe('run.cancelled', handler);
      await bus.signals.subscribe('run.cancelled', handler);
      const payload = cancelled();
      await bus.signals.publish('run.cancelled', payload);
      await eventually('both deliveries', () => seen.length === 2);
      expect(seen).toEqual([payload, payload]);
    });

    it('keeps a retained payload for readers that come later, until its time ends', async () => {
      const now = Date.now() / 1000;
      const live = deferred<unknown>();
      await bus.signals.subscribe('auth.token-revoked', (p) => live.resolve(p));
      const lasting = { version: 1 as const, jti: randomUUID(), expiresAt: Math.floor(now) + 60 };
      const ended = { version: 1 as const, jti: randomUUID(), expiresAt: Math.floor(now) - 1 };
      await bus.signals.publishRetained('auth.token-revoked', lasting, now + 60);
      await bus.signals.publishRetained('auth.token-revoked', ended, now - 1);
      expect(await resolvesWithin('the live delivery', live.promise)).toEqual(lasting);
      expect(await bus.signals.retained('auth.token-revoked')).toEqual([lasting]);
      expect(await bus.signals.retained('auth.sessions-invalidated')).toEqual([]);
    });

    it('publishes with no subscriber without error', async () => {
      await expect(bus.signals.publish('config.changed', { version: 1, area: 'nobody' })).resolves.toBeUndefined();
    });
  });
}
