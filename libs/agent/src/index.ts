export * from './catalog/catalog.entities';
export * from './catalog/catalog.module';
export * from './runtime/agent.module';
