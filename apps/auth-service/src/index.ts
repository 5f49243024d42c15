export * from './auth-service.module';
