export { type FollowOptions, type RunEvent, followRun } from './follow-run';
export { headerValue, sendJson } from './http-answers';
export { type InlineFile, type StoredInlineFile, withInlineFiles } from './inline-files';
export { ProtocolTurnsModule } from './protocol-turns.module';
