// PostgreSQL and Redis at a closed port: the environment of the unit tier (tools/jest/unit-setup.ts,
// and `npm test` / `npm run test:unit` for the whole Jest process, so its child processes get it too).
module.exports = {
  unreachableServices: {
    TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres',
    TEST_REDIS_URL: 'redis://127.0.0.1:1',
  },
};
