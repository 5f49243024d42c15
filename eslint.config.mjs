import nx from '@nx/eslint-plugin';
import prettier from 'eslint-config-prettier';
import path from 'node:path';
import tseslint from 'typescript-eslint';

// Layers, lowest first. A project may depend on its own layer and the layers below it:
// contracts (wire types) < util (config) < observability < infra (persistence, bus, auth, server)
// < domain (bounded contexts) < app (deployables) < platform (all apps in one process).
// `testing` (test-only helpers) sits beside them: infra and above may use it, from test files only.
const layers = ['contracts', 'util', 'observability', 'infra', 'domain', 'app', 'platform'];
const tags = (names) => names.map((name) => `type:${name}`);
const upTo = (layer) => tags(layers.slice(0, layers.indexOf(layer) + 1));
// The domain libs each domain lib may use: the edges docs/architecture.md names, e.g. agent reads
// conversations, never the reverse. Every domain lib carries `scope:<name>` and has a row here
// (tools/lint/module-boundaries.spec.ts checks both); infra libs keep the layer rule alone.
export const domainEdges = {
  agent: ['audit', 'conversations', 'identity', 'memory'],
  audit: [],
  conversations: [],
  gateway: ['audit'],
  identity: ['audit'],
  memory: [],
  protocols: ['agent', 'conversations'],
  // The sign-in side of the identity domain builds on the directory, never the reverse.
  'sign-in': ['audit', 'identity'],
};
const depConstraints = [
  ...layers.map((layer) => ({
    sourceTag: `type:${layer}`,
    onlyDependOnLibsWithTags: [
      ...upTo(layer),
      ...(layers.indexOf(layer) >= layers.indexOf('infra') ? ['type:testing'] : []),
    ],
  })),
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: tags(['contracts', 'util']) },
  // Benchmarks and deployment checks drive the apps from outside.
  { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: [...upTo('app'), 'type:testing'] },
  // A domain lib may use the layers below it and, of the domain libs, only those listed here.
  ...Object.entries(domainEdges).map(([lib, uses]) => ({
    sourceTag: `scope:${lib}`,
    onlyDependOnLibsWithTags: [...upTo('infra'), 'type:testing', ...[lib, ...uses].map((name) => `scope:${name}`)],
  })),
];

const deepImports = {
  group: ['@fed/*/src/*', '../../libs/*', '../../../libs/*'],
  message: 'Import a lib only through its public index (@fed/<lib>).',
};
const testHelpers = {
  group: ['@fed/testing', '@fed/persistence/testing', '@fed/auth/testing', '@fed/storage/testing'],
  message: 'Test helpers are for spec files and testing folders only.',
};
// The directory's inner surface is for its sibling in the same domain and schema alone.
const identityInternal = {
  group: ['@fed/identity/internal'],
  message: "Only libs/sign-in uses the identity library's inner surface; use @fed/identity.",
};
const testFiles = [
  '**/*.spec.ts',
  'libs/*/src/testing/**/*.ts',
  'apps/*/src/testing/**/*.ts',
  'libs/testing/src/**/*.ts',
  'tools/**/*.ts',
  'bench/src/**/*.ts',
];

// The web app's one-way flow (style.md, "The web app"): app -> features -> lib, and no feature imports another.
const webRoot = path.resolve('apps/web/src');
const webPlace = (file) => {
  const [top, feature] = path.relative(webRoot, file).split(path.sep);
  return top === 'features' ? `features/${feature}` : top;
};
const webLayers = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = webPlace(context.filename);
    return {
      ImportDeclaration(node) {
        const source = node.source.value;
        if (!source.startsWith('.')) return;
        const to = webPlace(path.resolve(path.dirname(context.filename), source));
        const refused =
          (from.startsWith('features/') && (to === 'app' || (to.startsWith('features/') && to !== from))) ||
          (from === 'lib' && (to === 'app' || to.startsWith('features/')));
        if (refused) {
          context.report({
            node: node.source,
            message: `${from} may not import ${to}: the web app's code flows app -> features -> lib, and features do not import each other`,
          });
        }
      },
    };
  },
};

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
      'no-duplicate-imports': ['error', { includeExports: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through @fed/config; nothing else reads process.env.',
        },
      ],
      'no-restricted-imports': ['error', { patterns: [deepImports, testHelpers, identityInternal] }],
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
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImports, identityInternal] }] },
  },
  {
    files: ['libs/sign-in/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImports, testHelpers] }] },
  },
  {
    files: ['libs/sign-in/src/**/*.spec.ts', 'libs/sign-in/src/testing/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [deepImports] }] },
  },
  {
    files: ['apps/web/src/**/*.ts', 'apps/web/src/**/*.tsx'],
    plugins: { web: { rules: { layers: webLayers } } },
    rules: { 'web/layers': 'error' },
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
