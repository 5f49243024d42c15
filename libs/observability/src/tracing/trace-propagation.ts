import {
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  isSpanContextValid,
  trace,
} from '@opentelemetry/api';
import { type IncomingHttpHeaders } from 'node:http';
import { spanContextFrom, traceContextOf } from './trace-context';

// Only these routes, whose callers are services, continue the caller's trace (docs/operations.md, "Whose
// trace a request joins"). Public front doors start a new trace linked to the caller's, so a client can
// neither decide what is sampled nor join a trace of ours.
const SERVICE_ROUTE_PREFIXES = ['/llm/v1/'];
const SERVICE_ROUTES = new Set(['/api/v1/a2a', '/api/v1/mcp']);

const TRACEPARENT = 'traceparent';
const TRACESTATE = 'tracestate';

/** Marked before the span starts. */
const continued = new WeakSet<object>();

export function continuesCallerTrace(path: string): boolean {
  return SERVICE_ROUTES.has(path) || SERVICE_ROUTE_PREFIXES.some((prefix) => path.startsWith(prefix));
}

export function classifyIncoming(path: string, headers: IncomingHttpHeaders): void {
  if (continuesCallerTrace(path)) continued.add(headers);
}

/** Its `tracestate` is not kept: it is the client's text. */
export function linkCaller(span: Span, headers: IncomingHttpHeaders): void {
  if (continued.has(headers)) return;
  const caller = spanContextFrom({ traceparent: single(headers[TRACEPARENT]) });
  if (caller) span.addLink({ context: { ...caller, traceState: undefined } });
}

/**
 * W3C Trace Context only, whatever OTEL_PROPAGATORS says: a client's `baggage` would be passed on to model
 * providers and tool servers. Reads only requests `classifyIncoming` marked.
 */
export class PlatformPropagator implements TextMapPropagator {
  inject(context: Context, carrier: unknown, setter: TextMapSetter): void {
    const spanContext = trace.getSpanContext(context);
    if (!spanContext || !isSpanContextValid(spanContext)) return;
    const { traceparent, tracestate } = traceContextOf(spanContext);
    setter.set(carrier, TRACEPARENT, traceparent);
    if (tracestate) setter.set(carrier, TRACESTATE, tracestate);
  }

  extract(context: Context, carrier: unknown, getter: TextMapGetter): Context {
    if (typeof carrier !== 'object' || carrier === null || !continued.has(carrier)) return context;
    const spanContext = spanContextFrom({
      traceparent: single(getter.get(carrier, TRACEPARENT)),
      tracestate: single(getter.get(carrier, TRACESTATE)),
    });
    return spanContext ? trace.setSpanContext(context, spanContext) : context;
  }

  fields(): string[] {
    return [TRACEPARENT, TRACESTATE];
  }
}

/** A header sent twice is not one value: no trace context. */
function single(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
