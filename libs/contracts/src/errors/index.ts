export * from './api-error';
export * from './error-code';
