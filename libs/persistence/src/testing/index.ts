export { prepareTestTemplate } from './test-template';
export {
  createTestDatabase,
  useTestDatabase,
  type TestDatabase,
  type TestDatabaseHandle,
  type TestDatabaseOptions,
} from './test-database';
export * from './schema-drift';
