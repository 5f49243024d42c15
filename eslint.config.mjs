import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Layers, lowest first. A project may depend only on the layers listed for its tag:
// contracts (wire types) < util (config) < observability < infra (persistence, bus, auth, server)
// < domain (bounded contexts) < app (deployables) < platform (all apps in one process).
const depConstraints = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  // Test-only helpers (process control for end-to-end tests); imported by spec files.
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:observability', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability'] },
  {
    sourceTag: 'type:infra',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra', 'type:testing'],
  },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: [
      'type:contracts',
      'type:util',
      'type:observability',
      'type:infra',
      'type:domain',
      'type:testing',
    ],
  },
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: [
      'type:contracts',
      'type:util',
      'type:observability',
      'type:infra',
      'type:domain',
      'type:testing',
    ],
  },
  {
    sourceTag: 'type:platform',
    onlyDependOnLibsWithTags: [
      'type:contracts',
      'type:util',
      'type:observability',
      'type:infra',
      'type:domain',
      'type:app',
      'type:testing',
    ],
  },
  {
    sourceTag: 'type:tooling',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra', 'type:app'],
  },
];

const deepImports = {
  group: ['@fed/*/src/*', '../../libs/*', '../../../libs/*'],
  message: 'Import a lib only through its public index (@fed/<lib>).',
};
const testHelpers = {
  group: ['@fed/testing', '@fed/persistence/testing'],
  message: 'Test helpers are for spec files and testing folders only.',
};
const testFiles = ['**/*.spec.ts', 'libs/*/src/testing/**/*.ts', 'libs/testing/src/**/*.ts', 'tools/**/*.ts'];

export default tseslint.config(
  { ignores: ['**/node_modules/**', 'dist/**', '.data/**', '.nx/**', 'coverage/**', 'bench/results/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        { enforceBuildableLibDependency: false, allow: [], banTransitiveDependencies: false, depConstraints },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through @fed/config; nothing else reads process.env.',
        },
      ],
      'no-restricted-imports': ['error', { patterns: [deepImports, testHelpers] }],
    },
  },
  {
    files: [
      'libs/config/src/**/*.ts',
      'tools/**/*.ts',
      'bench/src/**/*.ts',
      '**/*.spec.ts',
      'libs/*/src/testing/**/*.ts',
      'libs/testing/src/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: testFiles,
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImports] }] },
  },
  {
    files: ['**/*.cjs', '**/*.mjs'],
    languageOptions: {
      globals: {
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        process: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
