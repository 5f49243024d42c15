export { type FollowOptions, type RunEvent, followRun } from './follow-run';
export { ProtocolTurnsModule } from './protocol-turns.module';
export { nestedDeeperThan, readLimitedBody } from './request-body';
