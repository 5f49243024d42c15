/**
 * The W3C Trace Context (https://www.w3.org/TR/trace-context/) of the span a cross-process message was
 * sent from: a turn job, a run-stream entry. The receiver continues the trace from it. Absent when
 * tracing is off; a receiver treats a malformed value as absent.
 */
export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  traceparent: string;
  /** Vendor entries, kept as received. */
  tracestate?: string;
}
