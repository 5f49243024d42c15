export * from './api-error';
export * from './domain-error';
export * from './error-code';
