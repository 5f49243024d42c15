import { type Exchange, sseFrame } from './exchange';
import { providerError } from './provider-errors';
import type { SseStep, UpstreamStep } from './upstream-step';

export async function playStep(step: UpstreamStep, exchange: Exchange): Promise<void> {
  switch (step.kind) {
    case 'json':
      await exchange.pause(step.delayMs ?? 0);
      return exchange.sendJson(step.status ?? 200, step.body, step.headers);
    case 'status':
      await exchange.pause(step.delayMs ?? 0);
      if (typeof step.body === 'string') {
        return exchange.sendText(step.status, step.body, {
          'content-type': 'text/plain; charset=utf-8',
          ...step.headers,
        });
      }
      return exchange.sendJson(
        step.status,
        step.body === undefined
          ? providerError(step.status, exchange.request.headers['anthropic-version'] !== undefined)
          : step.body,
        step.headers,
      );
    case 'sse':
      return playSse(step, exchange);
    case 'hangUp':
      return exchange.hangUp();
    case 'stall':
      // The client's disconnect or close() ends it.
      return;
  }
}

async function playSse(step: SseStep, exchange: Exchange): Promise<void> {
  exchange.startStream(step.status ?? 200, step.headers);
  const writtenAt: number[] = [];
  exchange.request.eventsWrittenAt = writtenAt;
  const interval = step.eventsPerSecond ? 1000 / step.eventsPerSecond : 0;
  const started = performance.now();
  let paused = 0;
  for (const item of step.events) {
    if (exchange.closed) return;
    if ('hangUp' in item) {
      // So the client sees a stream broken mid-way.
      await flushed(exchange);
      return exchange.hangUp();
    }
    if ('delayMs' in item) {
      await exchange.pause(item.delayMs);
      paused += item.delayMs;
      continue;
    }
    if (interval > 0) {
      await exchange.pause(started + paused + writtenAt.length * interval - performance.now());
      if (exchange.closed) return;
    }
    exchange.res.write('raw' in item ? item.raw : sseFrame(item.data, item.event));
    writtenAt.push(Date.now());
  }
  if (!exchange.closed) exchange.res.end();
}

function flushed(exchange: Exchange): Promise<void> {
  return new Promise((resolve) => {
    if (exchange.closed) return resolve();
    exchange.res.write('', () => resolve());
  });
}
