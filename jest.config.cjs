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
  globalSetup: '<rootDir>/tools/jest/global-setup.ts',
  testTimeout: 30000,
  maxWorkers: process.env.CI ? 2 : '50%',
};
