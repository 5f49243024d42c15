/** W3C Trace Context (https://www.w3.org/TR/trace-context/); a receiver treats a malformed value as absent. */
export interface TraceContext {
  /** `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. */
  traceparent: string;
  tracestate?: string;
}
