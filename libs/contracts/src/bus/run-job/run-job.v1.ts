/** Queued by chat-service or agent-protocols, run by agent-runtime. */
export interface RunJobV1 {
  version: 1;
  /** The assistant message id; also the job id (so a turn is queued at most once) and the stream id. */
  runId: string;
  conversationId: string;
  userId: string;
  tenantId?: string;
  /** ISO 8601. */
  requestedAt: string;
  /** W3C `traceparent`, when tracing is on. */
  traceparent?: string;
  tracestate?: string;
}

export type RunJob = RunJobV1;
