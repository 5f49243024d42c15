export * from './chat-service.module';
