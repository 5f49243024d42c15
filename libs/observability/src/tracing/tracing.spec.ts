import { type ReadableSpan, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { ROOT_CONTEXT, SpanKind, context, propagation, trace } from '@opentelemetry/api';
import { type IncomingHttpHeaders, createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createLogger } from '../logging/logger';
import { incomingQuery, outgoingUrl, urlOfRequest } from './span-urls';
import { inSpan, tracer } from './spans';
import { RunStreamTrace } from './stream-trace';
import { captureTraceContext, contextFrom, spanContextFrom } from './trace-context';
import { classifyIncoming, continuesCallerTrace, linkCaller } from './trace-propagation';
import { startTracing, stopTracing, tracingStarted } from './tracing';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

function loggedLines() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({
    service: 'chat-service',
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  });
  return { logger, lines };
}

// In order: tracing off (the default), then on (an SDK, once started, stays the process's).
describe('tracing', () => {
  // Keeps its spans through the SDK's shutdown (the in-memory exporter's own shutdown forgets them).
  const exporter = new (class extends InMemorySpanExporter {
    override shutdown(): Promise<void> {
      return Promise.resolve();
    }
  })();
  const processor = new SimpleSpanProcessor({ exporter });
  /** The spans ended so far (the processor exports each asynchronously). */
  const spans = async (): Promise<ReadableSpan[]> => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };

  afterAll(async () => {
    await stopTracing();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  describe('without a collector endpoint', () => {
    it('does not start the SDK: nothing is recorded, no trace context is captured, log lines carry no trace id', async () => {
      expect(startTracing('chat-service', {})).toBe(false);
      expect(startTracing('chat-service', { OTEL_SERVICE_NAME: 'chat', OTEL_TRACES_SAMPLER: 'always_on' })).toBe(false);
      expect(tracingStarted()).toBe(false);
      const { logger, lines } = loggedLines();
      await inSpan('agent.turn', {}, async (span) => {
        expect(span.isRecording()).toBe(false);
        expect(captureTraceContext()).toBeUndefined();
        logger.info('inside');
      });
      expect(lines[0]).not.toHaveProperty('traceId');
    });

    it('a reader that starts late does not look the turn’s trace up (no Redis call for nothing)', async () => {
      const lookUp = jest.fn(async () => ({ traceparent: TRACEPARENT }));
      await new RunStreamTrace('chat.stream.relay', {}).lookUp(lookUp);
      expect(lookUp).not.toHaveBeenCalled();
    });

    it('does not start it on an invalid tracing variable either (loadConfig names it when the app starts)', () => {
      expect(startTracing('chat-service', { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' })).toBe(false);
      expect(
        startTracing('chat-service', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER_ARG: '2' }),
      ).toBe(false);
      expect(tracingStarted()).toBe(false);
    });
  });

  describe('with a collector endpoint', () => {
    beforeAll(() => {
      expect(
        startTracing(
          'chat-service',
          { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' },
          { spanProcessors: [processor] },
        ),
      ).toBe(true);
    });
    beforeEach(() => exporter.reset());

    it('starts the SDK once, named after the app', async () => {
      expect(tracingStarted()).toBe(true);
      expect(startTracing('llm-gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
      await inSpan('work', {}, async () => undefined);
      expect((await spans())[0]?.resource.attributes['service.name']).toBe('chat-service');
    });

    it('a log line written in a span carries its trace and span ids beside the request id', async () => {
      const { logger, lines } = loggedLines();
      let ids: { traceId: string; spanId: string } | undefined;
      await inSpan('work', {}, async (span) => {
        ids = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
        logger.info('inside');
      });
      logger.info('outside');
      expect(lines[0]).toMatchObject(ids as object);
      expect(lines[1]).not.toHaveProperty('traceId');
    });

    it('captures the active span as W3C trace context, and continues it on the other side', async () => {
      let captured: ReturnType<typeof captureTraceContext>;
      await inSpan('chat request', {}, async () => {
        captured = captureTraceContext();
      });
      const [request] = await spans();
      expect(captured).toEqual({
        traceparent: `00-${request?.spanContext().traceId}-${request?.spanContext().spanId}-01`,
      });
      await inSpan('agent.turn', { parent: contextFrom(captured) }, async () => undefined);
      const turn = (await spans())[1];
      expect(turn?.spanContext().traceId).toBe(request?.spanContext().traceId);
      expect(turn?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    });

    it('keeps tracestate, and treats a malformed traceparent as no trace (a new one starts)', async () => {
      expect(
        spanContextFrom({ traceparent: TRACEPARENT, tracestate: 'vendor=a,other=b' })?.traceState?.get('vendor'),
      ).toBe('a');
      for (const traceparent of [
        '',
        'garbage',
        '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
        '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
        '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
        `${TRACEPARENT}-extra`,
      ]) {
        expect(spanContextFrom({ traceparent })).toBeUndefined();
      }
      expect(spanContextFrom({ traceparent: 42 as unknown as string })).toBeUndefined();
      await inSpan('agent.turn', { parent: contextFrom({ traceparent: 'garbage' }) }, async () => undefined);
      expect((await spans())[0]?.parentSpanContext).toBeUndefined();
    });

    it('marks a failed span by the error type only, never its message', async () => {
      const failure = Object.assign(new Error('the user wrote: my secret'), { code: 'model_unavailable' });
      await expect(inSpan('chat model', {}, () => Promise.reject(failure))).rejects.toBe(failure);
      const [span] = await spans();
      expect(span?.status.code).toBe(2);
      expect(span?.attributes['error.type']).toBe('model_unavailable');
      expect(JSON.stringify(span?.attributes)).not.toContain('secret');
      expect(span?.events).toEqual([]);
    });

    it("a reader of another trace joins the turn's trace at the first entry that carries it, linked to its own span", async () => {
      const turnTrace = { traceparent: TRACEPARENT };
      await inSpan('GET /api/v1/chat/completions/:id', {}, async (request) => {
        const relay = new RunStreamTrace('chat.stream.relay', { 'fed.run_id': 'r1' });
        relay.see(undefined);
        await relay.within(async () => undefined);
        relay.see(turnTrace);
        await relay.within(async () => {
          // Work of the reader (its Redis reads) is in the turn's trace now.
          tracer.startSpan('xrange').end();
        });
        relay.see({ traceparent: '00-11111111111111111111111111111111-00f067aa0ba902b7-01' });
        relay.end();
        const [read, joined] = await spans();
        expect(joined).toMatchObject({ name: 'chat.stream.relay', attributes: { 'fed.run_id': 'r1' } });
        expect(joined?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
        expect(joined?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
        expect(joined?.links.map((link) => link.context.spanId)).toEqual([request.spanContext().spanId]);
        expect(read?.parentSpanContext?.spanId).toBe(joined?.spanContext().spanId);
      });
    });

    it('a reader that starts after the first entry looks the turn’s trace up once; a failed look-up leaves it in its own', async () => {
      await inSpan('GET /api/v1/chat/completions/:id', {}, async (request) => {
        const relay = new RunStreamTrace('chat.stream.relay', {});
        const lookUp = jest.fn(async () => ({ traceparent: TRACEPARENT }));
        await relay.lookUp(lookUp);
        await relay.lookUp(lookUp);
        expect(lookUp).toHaveBeenCalledTimes(1);
        relay.end();
        const failing = new RunStreamTrace('chat.stream.relay', {});
        await failing.lookUp(() => Promise.reject(new Error('redis is down')));
        failing.end();
        const [joined] = await spans();
        expect(joined?.spanContext().traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
        expect(joined?.links.map((link) => link.context.spanId)).toEqual([request.spanContext().spanId]);
        expect(await spans()).toHaveLength(1);
      });
    });

    it('a reader already in the turn’s trace (the request that started it) adds no span', async () => {
      await inSpan('POST /api/v1/chat/completions', {}, async () => {
        const relay = new RunStreamTrace('chat.stream.relay', {});
        relay.see(captureTraceContext());
        relay.end();
      });
      expect((await spans()).map((span) => span.name)).toEqual(['POST /api/v1/chat/completions']);
    });

    it('keeps of an incoming query what the access log keeps: names of plain parameters, no values, no bare items', () => {
      expect(incomingQuery('/federation/auth/v1/authorize?code=abc&state=xyz&limit=5')).toBe(
        'code=[redacted]&state=[redacted]&limit=5',
      );
      expect(incomingQuery('/x?sk-live-abc&%3Cscript%3E=1&api_key=sk-1')).toBe(
        '[redacted]&[redacted]&api_key=[redacted]',
      );
      expect(incomingQuery('/api/v1/files')).toBeUndefined();
      expect(incomingQuery('/x?')).toBeUndefined();
      expect(incomingQuery(`/x?${'k=v&'.repeat(5000)}`)?.length).toBeLessThanOrEqual(2048);
    });

    it('shows a called URL without user info, key-like path segments or query values', () => {
      expect(
        outgoingUrl(
          'https://user:pa55@tools.example.com:8443/mcp/sk-live-0123456789abcdef/tools?api_key=s3cret&sk-bare&limit=5',
        ),
      ).toEqual({
        'url.full': 'https://tools.example.com:8443/mcp/[redacted]/tools?api_key=[redacted]&[redacted]&limit=5',
        'url.path': '/mcp/[redacted]/tools',
        'url.query': 'api_key=[redacted]&[redacted]&limit=5',
      });
      // Endpoints of providers and of the platform stay readable.
      for (const url of [
        'https://api.openai.com/v1/chat/completions',
        'https://api.anthropic.com/v1/messages/count_tokens',
        'https://x.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions',
        'http://auth:3000/realms/federation/protocol/openid-connect/certs',
      ]) {
        expect(outgoingUrl(url)).toEqual({ 'url.full': url, 'url.path': new URL(url).pathname });
      }
      // Tokens, ids and encoded bytes in a path are not: long, with digits, or not plain characters.
      expect(outgoingUrl('https://mcp.example.com/s/c2VjcmV0LXRva2VuLXZhbHVl/mcp')?.['url.path']).toBe(
        '/s/[redacted]/mcp',
      );
      expect(outgoingUrl('https://h/a/3f2c9b1e-7d4a-4c55-9e2f-0a1b2c3d4e5f')?.['url.path']).toBe('/a/[redacted]');
      expect(outgoingUrl('https://h/key%3Dabc/x+y')?.['url.path']).toBe('/[redacted]/[redacted]');
      expect(outgoingUrl('not a url')).toBeUndefined();
      // A call made with `http.request` is described by its options.
      expect(
        outgoingUrl(
          urlOfRequest({ protocol: 'https:', hostname: '::1', port: 8443, path: '/v1/x?key=abc', auth: 'u:p' }),
        ),
      ).toMatchObject({ 'url.full': 'https://[::1]:8443/v1/x?key=[redacted]' });
      expect(urlOfRequest({ host: 'tools.example.com' })).toBe('http://tools.example.com/');
    });

    it('records a call made in a trace with its URL redacted, and sends W3C trace context but never baggage', async () => {
      let received: IncomingHttpHeaders | undefined;
      const server = createServer((request, response) => {
        received = request.headers;
        response.end('ok');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      try {
        const withBaggage = propagation.setBaggage(
          context.active(),
          propagation.createBaggage({ 'user.email': { value: 'alice@example.com' } }),
        );
        await context.with(withBaggage, () =>
          inSpan('agent.turn', {}, async () => {
            await (await fetch(`${origin}/mcp/sk-live-0123456789abcdef/tools?api_key=s3cret&sk-bare&limit=5`)).text();
          }),
        );
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
      const all = await spans();
      const turn = all.find((span) => span.name === 'agent.turn');
      const call = all.find((span) => span.kind === SpanKind.CLIENT);
      expect(call?.parentSpanContext?.spanId).toBe(turn?.spanContext().spanId);
      expect(call?.attributes).toMatchObject({
        'url.full': `${origin}/mcp/[redacted]/tools?api_key=[redacted]&[redacted]&limit=5`,
        'url.path': '/mcp/[redacted]/tools',
        'url.query': 'api_key=[redacted]&[redacted]&limit=5',
      });
      expect(JSON.stringify(call?.attributes)).not.toMatch(/s3cret|sk-live|sk-bare/);
      expect(received?.traceparent).toBe(`00-${call?.spanContext().traceId}-${call?.spanContext().spanId}-01`);
      expect(received).not.toHaveProperty('baggage');
    });

    it('continues the caller’s trace on the service routes only: the gateway, A2A and MCP', () => {
      for (const path of ['/llm/v1/chat/completions', '/llm/v1/models', '/api/v1/a2a', '/api/v1/mcp']) {
        expect(continuesCallerTrace(path)).toBe(true);
      }
      for (const path of [
        '/api/v1/chat/completions',
        '/llm/v1',
        '/LLM/v1/models',
        '/api/v1/a2a/x',
        '/api/v1/mcp/',
        '/',
      ]) {
        expect(continuesCallerTrace(path)).toBe(false);
      }
    });

    it('a service route reads the caller’s W3C trace context (its sampled flag and tracestate included), never its baggage', () => {
      const headers: IncomingHttpHeaders = {
        traceparent: TRACEPARENT,
        tracestate: 'vendor=x',
        baggage: 'user.email=alice%40example.com',
      };
      classifyIncoming('/llm/v1/chat/completions', headers);
      const received = propagation.extract(ROOT_CONTEXT, headers);
      expect(trace.getSpanContext(received)).toMatchObject({
        traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
        spanId: '00f067aa0ba902b7',
        traceFlags: 1,
        isRemote: true,
      });
      expect(trace.getSpanContext(received)?.traceState?.get('vendor')).toBe('x');
      expect(propagation.getBaggage(received)).toBeUndefined();
      // A malformed or repeated traceparent is no trace context.
      for (const traceparent of ['garbage', [TRACEPARENT, TRACEPARENT]]) {
        const odd: IncomingHttpHeaders = { traceparent: traceparent as string };
        classifyIncoming('/api/v1/a2a', odd);
        expect(trace.getSpanContext(propagation.extract(ROOT_CONTEXT, odd))).toBeUndefined();
      }
    });

    it('a public route does not read the caller’s trace context: its span starts a trace and links to the caller’s', async () => {
      const headers: IncomingHttpHeaders = { traceparent: TRACEPARENT, tracestate: 'vendor=x' };
      classifyIncoming('/api/v1/chat/completions', headers);
      expect(trace.getSpanContext(propagation.extract(ROOT_CONTEXT, headers))).toBeUndefined();
      // Headers never classified (another carrier) are not read either.
      expect(trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent: TRACEPARENT }))).toBeUndefined();

      const request = tracer.startSpan('POST', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      linkCaller(request, headers);
      request.end();
      const malformed = tracer.startSpan('POST', { kind: SpanKind.SERVER }, ROOT_CONTEXT);
      linkCaller(malformed, { traceparent: 'garbage' });
      malformed.end();
      const serviceHeaders: IncomingHttpHeaders = { traceparent: TRACEPARENT };
      classifyIncoming('/api/v1/a2a', serviceHeaders);
      const continued = tracer.startSpan(
        'POST',
        { kind: SpanKind.SERVER },
        propagation.extract(ROOT_CONTEXT, serviceHeaders),
      );
      linkCaller(continued, serviceHeaders);
      continued.end();

      const [linked, unlinked, child] = await spans();
      expect(linked?.parentSpanContext).toBeUndefined();
      expect(linked?.spanContext().traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
      expect(linked?.links).toEqual([
        {
          context: expect.objectContaining({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' }),
        },
      ]);
      // The client's tracestate is its own text: not kept.
      expect(linked?.links[0]?.context.traceState).toBeUndefined();
      expect(unlinked?.links).toEqual([]);
      expect(child?.links).toEqual([]);
      expect(child?.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    });

    it('stops: the spans not yet exported are, and nothing is exported after', async () => {
      tracer.startSpan('last').end();
      await stopTracing();
      expect(tracingStarted()).toBe(false);
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['last']);
      tracer.startSpan('after').end();
      await new Promise((resolve) => setImmediate(resolve));
      expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['last']);
    });
  });
});
