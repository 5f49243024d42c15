import type { ClaimedTurn } from '@fed/conversations';

/**
 * Where a finished turn is offered to shared memory. Nothing writes memory yet; when something does,
 * it goes here, after the check that keeps every private turn out of it.
 */
export class SharedMemoryHook {
  async afterTurn(turn: ClaimedTurn, _answer: string): Promise<void> {
    if (turn.options.privateMode) return;
    // Not yet: no memory writer exists (the admin APIs fill the store).
  }
}
