export * from './catalog/catalog.entities';
