import { type HostedApp, loadTracingConfig } from '@fed/config';
import { type RunningSdk, type SdkOptions } from './sdk';

let running: RunningSdk | undefined;

/**
 * Only when a collector is configured (OTEL_EXPORTER_OTLP_ENDPOINT or _TRACES_ENDPOINT); otherwise the SDK
 * is not even loaded. Instrumentations patch modules as they are required, so this runs before anything
 * else (preload.ts, main.ts's first import). A bad tracing variable leaves tracing off: loadConfig names it.
 */
export function startTracing(
  app: HostedApp,
  env?: Record<string, string | undefined>,
  options: Pick<SdkOptions, 'spanProcessors'> = {},
): boolean {
  if (running) return true;
  let config;
  try {
    config = loadTracingConfig(app, env);
  } catch {
    return false;
  }
  if (!config.endpoint && !config.tracesEndpoint) return false;
  // Required here, not imported: without a collector the SDK is never loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./sdk') as typeof import('./sdk');
  running = startSdk({ serviceName: config.serviceName ?? app, ...options });
  return true;
}

export function tracingStarted(): boolean {
  return running !== undefined;
}

/** The last step of the service host's shutdown. */
export async function stopTracing(): Promise<void> {
  const sdk = running;
  running = undefined;
  await sdk?.shutdown().catch(() => undefined);
}
