// One SWC configuration for the build (tools/build.mjs) and for Jest (jest.config.cjs),
// so tests run exactly the code that ships: legacy decorators with metadata, which Nest needs.
const path = require('node:path');
const tsconfig = require('../tsconfig.base.json');

const root = path.resolve(__dirname, '..');

function swcOptions({ sourceMaps = true } = {}) {
  return {
    sourceMaps,
    module: { type: 'commonjs', strictMode: true, resolveFully: false },
    jsc: {
      target: 'es2023',
      keepClassNames: true,
      baseUrl: root,
      paths: tsconfig.compilerOptions.paths,
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
    },
  };
}

module.exports = { swcOptions, root };
