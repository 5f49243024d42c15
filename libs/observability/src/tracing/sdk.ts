import { ExpressInstrumentation, ExpressLayerType } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { type SpanProcessor } from '@opentelemetry/sdk-trace';
import { type ClientRequest, type IncomingMessage } from 'node:http';
import { REDACTED } from '../logging/redacted-query';
import { incomingQuery, outgoingUrl, urlOfRequest } from './span-urls';
import { PlatformPropagator, classifyIncoming, linkCaller } from './trace-propagation';

// Required by startTracing only when tracing is on.

/** Called every few seconds by every orchestrator: they start no trace. */
const PROBES = new Set(['/healthz', '/readyz', '/metrics']);

export interface SdkOptions {
  serviceName: string;
  /** Default: the exporter the standard OTEL_ variables describe. */
  spanProcessors?: SpanProcessor[];
}

export interface RunningSdk {
  shutdown(): Promise<void>;
}

export function startSdk(options: SdkOptions): RunningSdk {
  const patches = instrumentations();
  const sdk = new NodeSDK({
    serviceName: options.serviceName,
    instrumentations: patches,
    // W3C Trace Context only, read from the service routes only (trace-propagation.ts).
    textMapPropagator: new PlatformPropagator(),
    // Traces only: metrics stay Prometheus, logs stay JSON lines that carry the trace id.
    metricReaders: [],
    logRecordProcessors: [],
    ...(options.spanProcessors ? { spanProcessors: options.spanProcessors } : {}),
  });
  sdk.start();
  return {
    shutdown: async () => {
      await sdk.shutdown();
      for (const instrumentation of patches) instrumentation.disable();
    },
  };
}

function instrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (request) => PROBES.has(pathOf(request.url)),
      // Runs before the request's trace context is read: it decides whether the caller's is continued.
      startIncomingSpanHook: (request) => {
        classifyIncoming(pathOf(request.url), request.headers);
        return { 'url.query': incomingQuery(request.url) };
      },
      startOutgoingSpanHook: (request) => ({
        'url.full': outgoingUrl(urlOfRequest(request))?.['url.full'] ?? REDACTED,
      }),
      // JWKS refreshes and periodic passes start no trace of their own.
      requireParentforOutgoingSpans: true,
      requestHook: (span, request) => {
        if (isIncoming(request)) linkCaller(span, request.headers);
      },
    }),
    // A span per route handler and router, not per middleware (a dozen per request, all alike).
    new ExpressInstrumentation({ ignoreLayersType: [ExpressLayerType.MIDDLEWARE] }),
    // The command's name alone: the arguments are chunks of answers, job payloads, keys.
    new IORedisInstrumentation({ requireParentSpan: true, dbStatementSerializer: (command) => command }),
    // Statements are parameterized: their text holds no values.
    new PgInstrumentation({ requireParentSpan: true }),
    new UndiciInstrumentation({
      requireParentforSpans: true,
      startSpanHook: (request) => outgoingUrl(`${request.origin}${request.path}`) ?? { 'url.full': REDACTED },
    }),
  ];
}

function isIncoming(request: ClientRequest | IncomingMessage): request is IncomingMessage {
  return typeof (request as IncomingMessage).url === 'string' && (request as IncomingMessage).headers !== undefined;
}

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
