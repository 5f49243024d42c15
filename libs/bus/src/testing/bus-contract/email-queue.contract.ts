import { type EmailJob } from '@fed/contracts';
import { type EmailQueue, PermanentDeliveryError } from '../../ports';
import { type EmailQueueSettings } from '../../settings';
import { eventually } from '../async-helpers';

export type MakeEmailQueue = (settings: EmailQueueSettings) => EmailQueue;

const SETTINGS: EmailQueueSettings = { attempts: 3, backoffMs: 50 };

export function describeEmailQueueContract(makeEmailQueue: MakeEmailQueue): void {
  describe('EmailQueue', () => {
    let queue: EmailQueue;
    const job = (userId: string): EmailJob => ({ version: 1, userId, event: 'user_approved' });

    beforeEach(() => {
      queue = makeEmailQueue(SETTINGS);
    });

    afterEach(() => queue.close());

    it('retries a failed send with exponential backoff until it succeeds', async () => {
      const tries: { attempt: number; at: number }[] = [];
      queue.consume(
        async (_job, attempt) => {
          tries.push({ attempt, at: Date.now() });
          if (attempt < 3) throw new Error('451 try again later');
        },
        () => undefined,
      );
      await queue.enqueue(job('u1'));
      await eventually('three tries', () => tries.length === 3, 10_000);
      expect(tries.map((t) => t.attempt)).toEqual([1, 2, 3]);
      expect(tries[1].at - tries[0].at).toBeGreaterThanOrEqual(45);
      expect(tries[2].at - tries[1].at).toBeGreaterThanOrEqual(95);
    });

    it('gives up after the last attempt, and at once on a permanent refusal', async () => {
      const given: { userId: string; error: string }[] = [];
      const tries: string[] = [];
      queue.consume(
        async (job) => {
          tries.push(job.userId);
          throw job.userId === 'permanent' ? new PermanentDeliveryError('550 no such mailbox') : new Error('451');
        },
        (job, error) => given.push({ userId: job.userId, error: error.message }),
      );
      await queue.enqueue(job('permanent'));
      await queue.enqueue(job('temporary'));
      await eventually('both given up', () => given.length === 2, 10_000);
      expect(tries.filter((id) => id === 'permanent')).toHaveLength(1);
      expect(tries.filter((id) => id === 'temporary')).toHaveLength(3);
      expect(given).toEqual(
        expect.arrayContaining([
          { userId: 'permanent', error: '550 no such mailbox' },
          { userId: 'temporary', error: '451' },
        ]),
      );
    });

    it('takes one consumer, and refuses jobs once closed', async () => {
      queue.consume(
        async () => undefined,
        () => undefined,
      );
      expect(() =>
        queue.consume(
          async () => undefined,
          () => undefined,
        ),
      ).toThrow();
      await queue.close();
      await expect(queue.enqueue(job('late'))).rejects.toThrow();
      expect(queue.unsent()).toBe(0);
    });
  });
}
