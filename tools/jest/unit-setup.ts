// Runs before each unit-tier spec, however Jest was started: a spec of this tier that reaches for
// PostgreSQL or Redis fails on every machine, not only on one without them.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { unreachableServices } = require('./unreachable-services.cjs') as {
  unreachableServices: Record<string, string>;
};

Object.assign(process.env, unreachableServices);
