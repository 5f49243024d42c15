// Are the machine's PostgreSQL and Redis reachable? Used by `npm test` (before anything else runs)
// and by Jest's global setup, so a missing service fails fast with the command that starts it.
const net = require('node:net');

const defaults = {
  TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres',
  TEST_REDIS_URL: 'redis://127.0.0.1:6379',
};

const howToStart = {
  postgres: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
  redis:
    'redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log',
};

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Resolves to a list of problems, each with how to fix it; empty when both services answer. */
async function checkServices(env = process.env) {
  const databaseUrl = env.TEST_DATABASE_URL || defaults.TEST_DATABASE_URL;
  const redisUrl = env.TEST_REDIS_URL || defaults.TEST_REDIS_URL;
  const problems = [];
  if (!(await reachable(databaseUrl, 5432))) {
    problems.push(
      `PostgreSQL is not reachable at ${new URL(databaseUrl).host}. Start it with:\n    ${howToStart.postgres}\n  or point TEST_DATABASE_URL at one.`,
    );
  }
  if (!(await reachable(redisUrl, 6379))) {
    problems.push(
      `Redis is not reachable at ${new URL(redisUrl).host}. Start it with:\n    ${howToStart.redis}\n  or point TEST_REDIS_URL at one.`,
    );
  }
  return problems;
}

module.exports = { checkServices, howToStart };
