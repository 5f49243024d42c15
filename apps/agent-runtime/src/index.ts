export * from './agent-runtime.module';
