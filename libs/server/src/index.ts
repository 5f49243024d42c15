export * from './errors/api-exception.filter';
export * from './host/create-service-app';
export * from './host/run-service';
export * from './host/service-host.module';
export * from './host/shutdown-signal';
export * from './http/in-flight-tracker';
export * from './http/security-headers';
