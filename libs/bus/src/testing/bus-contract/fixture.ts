import { type Bus, type CreateBusOptions } from '../../create-bus';
import { type RunConsumer } from '../../ports';

export type BusSettings = Pick<CreateBusOptions, 'runQueue' | 'runStream'>;
/** Applies `settings` on top of the implementation's. */
export type MakeBus = (settings?: BusSettings) => Promise<Bus>;

export const BACKOFF_MS = 25;
export const CONTRACT_SETTINGS: BusSettings = { runQueue: { backoffMs: BACKOFF_MS } };

/** Consumers first: their running jobs may still write to the buses. */
export async function closeAll(consumers: RunConsumer[], buses: Bus[]): Promise<void> {
  await Promise.all(consumers.splice(0).map((c) => c.close()));
  await Promise.all(buses.map((b) => b.close()));
}
