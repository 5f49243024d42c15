const { swcOptions } = require('./tools/swc-options.cjs');
const tsconfig = require('./tsconfig.base.json');

const moduleNameMapper = {};
for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/]/g, '\\/')}$`] = `<rootDir>/${target.replace(/^\.\//, '')}`;
}

/** @type {import('jest').Config} */
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/deploy', '<rootDir>/bench', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcOptions(), swcrc: false }] },
  moduleNameMapper,
  globalSetup: '<rootDir>/tools/jest/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: process.env.CI ? 2 : '50%',
};
