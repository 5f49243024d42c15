import { spawnSync } from 'node:child_process';
import path from 'node:path';

// `npm test` without PostgreSQL or Redis must stop at once and say how to start them.
const root = path.resolve(__dirname, '..');

function runNpmTest(env: Record<string, string>) {
  const started = Date.now();
  const run = spawnSync(process.execPath, [path.join(root, 'tools/test.mjs')], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, ms: Date.now() - started };
}

describe('npm test without its services', () => {
  it('stops before linting when PostgreSQL is not reachable, with the command that starts it', () => {
    const run = runNpmTest({ TEST_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/postgres' });
    expect(run.status).toBe(2);
    expect(run.output).toContain('PostgreSQL is not reachable at 127.0.0.1:1');
    expect(run.output).toContain('pg_ctlcluster --skip-systemctl-redirect');
    expect(run.output).not.toContain('== lint');
  });

  it('stops when Redis is not reachable, with the command that starts it', () => {
    const run = runNpmTest({ TEST_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.status).toBe(2);
    expect(run.output).toContain('Redis is not reachable at 127.0.0.1:1');
    expect(run.output).toContain('redis-server --daemonize yes');
  });
});
