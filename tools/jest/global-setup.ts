import { prepareTestTemplate } from '@fed/persistence/testing';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { checkServices } = require('../check-services.cjs') as {
  checkServices: () => Promise<string[]>;
};

// Runs once before all test files: refuse to start without PostgreSQL and Redis, then build the
// migrated template database each test file clones.
export default async function globalSetup(): Promise<void> {
  const problems = await checkServices();
  if (problems.length > 0) throw new Error(`Tests need PostgreSQL and Redis.\n  ${problems.join('\n  ')}`);
  await prepareTestTemplate();
}
