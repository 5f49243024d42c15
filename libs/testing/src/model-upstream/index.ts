export { ScriptedUpstream, type ScriptedUpstreamOptions } from './scripted-upstream';
export type {
  HangUpStep,
  JsonStep,
  RecordedRequest,
  SseEvent,
  SseHangUp,
  SseItem,
  SsePause,
  SseRaw,
  SseStep,
  StallStep,
  StatusStep,
  UpstreamStep,
} from './upstream-step';
