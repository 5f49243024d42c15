export * from './catalog/catalog.entities';
export * from './catalog/catalog.module';
export * from './runtime/agent.module';
export {
  CatalogAdminService,
  type CatalogFields,
  type CatalogItem,
  type CatalogKind,
} from './catalog/catalog-admin.service';
export { type PersonaList, type PlaybookList, type SkillList } from './catalog/catalog.dto';
export { CatalogError, type CatalogErrorCode } from './catalog/catalog.errors';
export { CatalogRepository } from './catalog/catalog.repository';
export { DESCRIPTION_MAX, INSTRUCTIONS_MAX, NAME_MAX } from './catalog/catalog.rules';
export { CatalogService, type CatalogSelection, type ResolvedCatalog } from './catalog/catalog.service';
export { seedCatalog } from './catalog/catalog.seed';
