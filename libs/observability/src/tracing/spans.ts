import {
  type Attributes,
  type Context,
  type Link,
  type Span,
  type SpanKind,
  SpanStatusCode,
  context,
  trace,
} from '@opentelemetry/api';

/** A no-op tracer while tracing is off. */
export const tracer = trace.getTracer('@fed/platform');

export interface SpanOptions {
  attributes?: Attributes;
  parent?: Context;
  links?: Link[];
  kind?: SpanKind;
}

/** A failure marks the span by the error's type only: its message may quote what a user wrote. */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { parent, ...spanOptions } = options;
  return tracer.startActiveSpan(name, spanOptions, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      markFailed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

export function markFailed(span: Span, error: unknown): void {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  const type = typeof code === 'string' ? code : error instanceof Error ? error.name : typeof error;
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** What Express routes get from their instrumentation, for the routes served ahead of Express. */
export function nameRequestSpan(method: string, route: string): void {
  const span = trace.getActiveSpan();
  if (!span) return;
  span.updateName(`${method} ${route}`);
  span.setAttribute('http.route', route);
}
