import { ConnectionSlots, UpstreamBusyError } from './connection-slots';

describe('connection slots of a capped provider', () => {
  const open = () => new AbortController().signal;

  it('hands out slots up to the cap at once, then serves waiting calls in arrival order as slots come back', async () => {
    const slots = new ConnectionSlots('p', 2);
    const first = await slots.acquire(1000, open());
    await slots.acquire(1000, open());
    const order: string[] = [];
    const third = slots.acquire(1000, open()).then((release) => (order.push('third'), release));
    const fourth = slots.acquire(1000, open()).then((release) => (order.push('fourth'), release));
    expect(slots.queued).toBe(2);
    first();
    first(); // a second release of the same slot gives nothing back
    await third;
    expect(order).toEqual(['third']);
    expect(slots.busy).toBe(2);
    (await third)();
    await fourth;
    expect(order).toEqual(['third', 'fourth']);
  });

  it('fails a call that waited the whole timeout with UpstreamBusyError, and forgets it', async () => {
    const slots = new ConnectionSlots('p', 1);
    const held = await slots.acquire(1000, open());
    await expect(slots.acquire(20, open())).rejects.toBeInstanceOf(UpstreamBusyError);
    expect(slots.queued).toBe(0);
    held();
    expect(slots.busy).toBe(0);
  });

  it('stops waiting when the caller goes away, without taking a slot', async () => {
    const slots = new ConnectionSlots('p', 1);
    const held = await slots.acquire(1000, open());
    const gone = new AbortController();
    const waiting = slots.acquire(1000, gone.signal);
    gone.abort(new Error('client gone'));
    await expect(waiting).rejects.toThrow('client gone');
    held();
    expect(slots.busy).toBe(0);
    expect(slots.queued).toBe(0);
  });
});
