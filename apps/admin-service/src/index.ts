export * from './admin-service.module';
