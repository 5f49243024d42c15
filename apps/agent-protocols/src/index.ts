export * from './agent-protocols.module';
