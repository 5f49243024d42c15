export * from './storage';
export * from './conversations';
export * from './turns/turns.module';
export * from './ledger';
export { TurnReaper } from './turns/turn-reaper';
export { type StartedTurn, type TurnInProgress, TurnStarter } from './turns/turn-starter';
