export const HEALTH = Symbol.for('fed.observability.Health');
export const METRICS = Symbol.for('fed.observability.Metrics');
