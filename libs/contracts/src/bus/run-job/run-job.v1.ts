/** One agent turn, queued by chat-service or agent-protocols and run by agent-runtime. */
export interface RunJobV1 {
  version: 1;
  /** The assistant message id; also the job id (so a turn is queued at most once) and the stream id. */
  runId: string;
  conversationId: string;
  userId: string;
  tenantId?: string;
  /** ISO 8601. */
  requestedAt: string;
}

export type RunJob = RunJobV1;
