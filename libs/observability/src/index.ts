export * from './health/health';
export * from './health/operational-endpoints';
export * from './logging/logger';
export * from './logging/nest-logger';
export * from './logging/request-context';
export * from './logging/request-logging';
export * from './metrics/metrics';
export * from './health/tokens';
