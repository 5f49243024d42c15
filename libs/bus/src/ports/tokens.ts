// Plain symbols: the ports know nothing of Nest.
export const RUN_QUEUE = Symbol.for('fed.bus.RunQueue');
export const RUN_STREAM = Symbol.for('fed.bus.RunStream');
export const SIGNALS = Symbol.for('fed.bus.Signals');
export const COUNTERS = Symbol.for('fed.bus.Counters');
export const EMAIL_QUEUE = Symbol.for('fed.bus.EmailQueue');
