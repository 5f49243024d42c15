import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

// Layers, lowest first. A project may depend only on the layers listed for its tag:
// contracts (wire types) < util (config) < observability < infra (persistence, bus, auth, server)
// < domain (bounded contexts) < app (deployables) < platform (all apps in one process).
const depConstraints = [
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:contracts', 'type:util'] },
  { sourceTag: 'type:observability', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability'] },
  {
    sourceTag: 'type:infra',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra'],
  },
  {
    sourceTag: 'type:domain',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra', 'type:domain'],
  },
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra', 'type:domain'],
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
    ],
  },
  {
    sourceTag: 'type:tooling',
    onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:observability', 'type:infra', 'type:app'],
  },
];

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
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@fed/*/src/*', '../../libs/*', '../../../libs/*'], message: 'Import a lib only through its public index (@fed/<lib>).' }] },
      ],
    },
  },
  {
    files: ['libs/config/src/**/*.ts', 'tools/**/*.ts', '**/*.spec.ts', 'libs/*/src/testing/**/*.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
