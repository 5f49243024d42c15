const { readFileSync } = require('node:fs');
const path = require('node:path');
const { swcOptions } = require('./tools/swc-options.cjs');
const tsconfig = require('./tsconfig.base.json');

const moduleNameMapper = {};
// The web app's one runtime import from a lib (its own tsconfig names it).
moduleNameMapper['^@fed/contracts/locales$'] = '<rootDir>/libs/contracts/src/text/locales.ts';
for (const [alias, [target]] of Object.entries(tsconfig.compilerOptions.paths)) {
  moduleNameMapper[`^${alias.replace(/[/]/g, '\\/')}$`] = `<rootDir>/${target.replace(/^\.\//, '')}`;
}

// Two tiers, each spec in exactly one. The unit tier is the list in tools/jest/unit-specs.txt: specs
// that pass with PostgreSQL and Redis unreachable and run in seconds (`node tools/jest/unit-specs.mjs`
// finds them by running them so). A list, not a naming or folder convention, because what a spec needs
// shows only when it runs; and a list that cannot rot silently: the unit tier always runs with both
// services pointed at a closed port (tools/jest/unit-setup.ts), so a listed spec that starts to need
// one fails everywhere, and tools/jest/unit-tier.spec.ts refuses a listed spec that imports the
// database or Redis test helpers. A spec not listed runs in the integration tier, which can do anything.
const unitSpecs = readFileSync(path.join(__dirname, 'tools/jest/unit-specs.txt'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const exactPath = (file) => `^${path.join(__dirname, file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;

const shared = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/deploy', '<rootDir>/bench', '<rootDir>/tools'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcOptions(), swcrc: false }],
    // Nest 12 and jose 6 ship ES modules only. Node 20.19 loads them with require(), but Jest's
    // module runtime does not, so Jest compiles them to CommonJS (dist/ runs them untransformed).
    '^.+\\.m?js$': [
      '@swc/jest',
      { ...swcOptions(), swcrc: false, jsc: { ...swcOptions().jsc, parser: { syntax: 'ecmascript' } } },
    ],
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|jose|oidc-provider|openid-client|oauth4webapi|eventsource-parser|range-parser|@modelcontextprotocol/ext-apps|franc-min|trigram-utils|n-gram|collapse-white-space)/)',
  ],
  moduleNameMapper,
  testTimeout: 30000,
};

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testRegex: unitSpecs.map(exactPath),
      setupFiles: ['<rootDir>/tools/jest/unit-setup.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: ['/node_modules/', ...unitSpecs.map(exactPath)],
      globalSetup: '<rootDir>/tools/jest/global-setup.ts',
    },
  ],
  testTimeout: 30000,
  maxWorkers: process.env.CI ? 2 : '50%',
};
