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

// W3C Trace Context, version 00 (https://www.w3.org/TR/trace-context/#traceparent-header), written and
// read here: in jobs, in run streams and, through PlatformPropagator, in HTTP headers.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** The spec's limit of 32 list members of at most 256 characters each, with their commas. */
const TRACESTATE_LIMIT = 32 * 257;

/** The trace and span ids of the active span, for log lines; undefined when none is active. */
export function activeTraceIds(): { traceId: string; spanId: string } | undefined {
  const span = trace.getActiveSpan();
  if (!span) return undefined;
  const spanContext = span.spanContext();
  return isSpanContextValid(spanContext) ? { traceId: spanContext.traceId, spanId: spanContext.spanId } : undefined;
}

/**
 * The context of `from` (by default the active span's) as W3C Trace Context, to put in a job or a
 * stream entry; undefined when nothing is traced (tracing off, or no span active).
 */
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

/**
 * The context that continues a received trace context (its span as the remote parent); the root
 * context when it is absent or malformed (it crossed a process boundary: it is not trusted).
 */
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
