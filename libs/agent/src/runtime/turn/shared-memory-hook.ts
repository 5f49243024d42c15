import type { ClaimedTurn } from '@fed/conversations';

/** Where a finished turn will be offered to shared memory, after the check that keeps private turns out. */
export class SharedMemoryHook {
  async afterTurn(turn: ClaimedTurn, _answer: string): Promise<void> {
    if (turn.options.privateMode) return;
    // Not yet: no memory writer exists (the admin APIs fill the store).
  }
}
