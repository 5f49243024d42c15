import cluster, { type Worker } from 'node:cluster';
import { type Logger, serveWorkerMetrics } from '@fed/observability';
import { endProcess } from './end-process';

const STOP = 'fed:worker:stop';

interface StopMessage {
  type: typeof STOP;
  signal: NodeJS.Signals;
}

/** More replacements than this within REPLACEMENT_WINDOW_MS is a crash loop: the primary gives up. */
const MAX_REPLACEMENTS = 5;
const REPLACEMENT_WINDOW_MS = 60_000;

/**
 * The primary of a service run as `count` worker processes sharing its port (node:cluster): each
 * worker is the whole service (runService in it, as in a single process); the primary only starts
 * them, answers their metrics requests, and passes signals on.
 *
 * - Signals are the primary's: each SIGTERM or SIGINT it gets is passed to every worker as a message, so
 *   the second and third mean there what they mean to a single process (runService). Workers ignore
 *   signals of their own: Ctrl-C in a terminal or a stop of the whole control group (systemd) reaches
 *   every process, and would count twice. A worker whose primary is gone stops as on a SIGTERM. The
 *   primary exits once every worker has, 0 when all of them exited 0.
 * - A worker that exits before it ever listened failed to start (its database, say): the primary
 *   stops the others and exits with its code (78 for configuration, 1 otherwise), as a single process
 *   would, and the orchestrator restarts it. A worker that exits later is replaced, unless that
 *   happened more than MAX_REPLACEMENTS times within a minute.
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

/**
 * In a worker: `onSignal` runs for each signal the primary passes on, and once if the primary goes
 * away while this worker is still serving (`serving()`).
 */
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
