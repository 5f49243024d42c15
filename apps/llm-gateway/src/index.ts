export * from './llm-gateway.module';
