/**
 * Aborted when the instance starts shutting down. Long-lived responses (SSE streams) listen to it
 * and end themselves cleanly, so draining does not wait for the whole timeout.
 */
export const SHUTDOWN_SIGNAL = Symbol.for('fed.server.ShutdownSignal');
