import cluster, { type Worker } from 'node:cluster';
import { type Logger, serveWorkerMetrics } from '@fed/observability';
import { endProcess } from './end-process';

const STOP = 'fed:worker:stop';

interface StopMessage {
  type: typeof STOP;
  signal: NodeJS.Signals;
}

/** Within REPLACEMENT_WINDOW_MS: a crash loop, the primary gives up. */
const MAX_REPLACEMENTS = 5;
const REPLACEMENT_WINDOW_MS = 60_000;

/**
 * The primary of `count` worker processes sharing a port (node:cluster). It passes each SIGTERM or SIGINT
 * to every worker as a message; workers ignore their own, since Ctrl-C or a systemd stop reaches every
 * process and would count twice. A worker that exits before it ever listened failed to start: the others
 * stop and the primary exits with its code. One that exits later is replaced, up to MAX_REPLACEMENTS a minute.
 */
export function superviseWorkers(options: { count: number; logger: Logger }): void {
  const { count, logger } = options;
  const live = new Set<Worker>();
  const listened = new Set<Worker>();
  const replacedAt: number[] = [];
  let stopping = false;
  let exitCode = 0;

  const fork = () => live.add(cluster.fork());
  const stopAll = (signal: NodeJS.Signals = 'SIGTERM') => {
    for (const worker of live) if (worker.isConnected()) worker.send({ type: STOP, signal } satisfies StopMessage);
  };
  const giveUp = (code: number, reason: string) => {
    logger.fatal({ exitCode: code }, `${reason}: stopping every worker`);
    stopping = true;
    exitCode = code;
    stopAll();
    if (live.size === 0) endProcess(code);
  };

  cluster.on('listening', (worker) => listened.add(worker));
  cluster.on('exit', (worker, code: number | null, signal: string | null) => {
    live.delete(worker);
    const wasListening = listened.delete(worker);
    const pid = worker.process.pid;
    if (stopping) {
      if (exitCode === 0 && code !== 0) exitCode = code ?? 1;
      if (live.size === 0) {
        logger.info({ exitCode }, 'every worker stopped');
        endProcess(exitCode);
      }
      return;
    }
    if (!wasListening) return giveUp(code === 78 ? 78 : 1, `worker ${pid} failed to start (exit ${code ?? signal})`);
    const now = Date.now();
    replacedAt.push(now);
    while ((replacedAt[0] ?? now) < now - REPLACEMENT_WINDOW_MS) replacedAt.shift();
    if (replacedAt.length > MAX_REPLACEMENTS) {
      return giveUp(1, `workers exited ${replacedAt.length} times within a minute`);
    }
    logger.error({ pid, code, signal }, 'worker exited: starting another');
    fork();
  });

  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) logger.info({ signal, workers: live.size }, 'stopping the workers');
    stopping = true;
    stopAll(signal);
    if (live.size === 0) endProcess(exitCode);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);

  serveWorkerMetrics();
  for (let i = 0; i < count; i++) fork();
  logger.info({ workers: count }, 'starting worker processes');
}

/** Also runs once if the primary goes away while this worker is still serving. */
export function followPrimary(onSignal: (signal: NodeJS.Signals) => void, serving: () => boolean): void {
  process.on('SIGTERM', () => undefined);
  process.on('SIGINT', () => undefined);
  process.on('message', (message: unknown) => {
    if (typeof message === 'object' && message !== null && (message as { type?: unknown }).type === STOP) {
      onSignal((message as StopMessage).signal);
    }
  });
  process.on('disconnect', () => {
    if (serving()) onSignal('SIGTERM');
  });
}
