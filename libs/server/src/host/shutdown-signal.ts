/** SSE streams end themselves on it, so draining does not wait for the whole timeout. */
export const SHUTDOWN_SIGNAL = Symbol.for('fed.server.ShutdownSignal');
