export * from './app-names';
export * from './service-config';
export * from './test-services';
export * from './variables';
export * from './config-table';
export * from './environment-secret';
export * from './work-needs';
