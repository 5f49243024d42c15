import { type TraceContext } from '@fed/contracts';
import {
  type Context,
  ROOT_CONTEXT,
  type SpanContext,
  context,
  createTraceState,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';

// W3C Trace Context, version 00 (https://www.w3.org/TR/trace-context/#traceparent-header): in jobs, run
// streams and, through PlatformPropagator, HTTP headers.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** The spec's limit of 32 members of at most 256 characters, with their commas. */
const TRACESTATE_LIMIT = 32 * 257;

export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
}

/** Undefined when nothing is traced. */
export function captureTraceContext(from: Context = context.active()): TraceContext | undefined {
  const spanContext = trace.getSpanContext(from);
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return traceContextOf(spanContext);
}

export function traceContextOf(spanContext: SpanContext): TraceContext {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const traceparent = `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`;
  const tracestate = spanContext.traceState?.serialize();
  return tracestate ? { traceparent, tracestate } : { traceparent };
}

/** The root context when absent or malformed: it crossed a process boundary, so it is not trusted. */
export function contextFrom(received: Partial<TraceContext> | undefined): Context {
  const spanContext = spanContextFrom(received);
  return spanContext ? trace.setSpanContext(ROOT_CONTEXT, spanContext) : ROOT_CONTEXT;
}

export function spanContextFrom(received: Partial<TraceContext> | undefined): SpanContext | undefined {
  const traceparent = received?.traceparent;
  if (typeof traceparent !== 'string') return undefined;
  const match = TRACEPARENT.exec(traceparent);
  if (!match) return undefined;
  const [, traceId, spanId, flags] = match as unknown as [string, string, string, string];
  const tracestate = received?.tracestate;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: parseInt(flags, 16),
    isRemote: true,
    ...(typeof tracestate === 'string' && tracestate.length > 0 && tracestate.length <= TRACESTATE_LIMIT
      ? { traceState: createTraceState(tracestate) }
      : {}),
  };
  return isSpanContextValid(spanContext) ? spanContext : undefined;
}
