import { signIn } from '@fed/testing';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ChildServer, freePort, startChildServer } from './child-server';

/** What the platform writes to its data directory on a first start (apps/platform demo realm). */
interface DemoCredentials {
  user: { login: string; password: string };
  app: { clientId: string; clientSecret: string; redirectUri: string };
}

export interface AllInOnePlatform extends ChildServer {
  dataDir: string;
  /** An access token of the demo user, through the real sign-in (authorization code with PKCE). */
  signInDemoUser(scope: string): Promise<string>;
  /** Stops the platform and removes its data directory. */
  close(): Promise<void>;
}

/**
 * The whole platform in one process (`apps/platform`) on the given database, in a data directory of its
 * own, ready when `/readyz` answers. `env` adds to or overrides the defaults (quiet log, no access log);
 * given as a function it is called with the data directory, for files the platform must find there.
 */
export async function startAllInOnePlatform(options: {
  distRoot: string;
  databaseUrl: string;
  /** Names the data directory (`fed-bench-<name>-…`). */
  name: string;
  env?: Record<string, string> | ((dataDir: string) => Record<string, string>);
}): Promise<AllInOnePlatform> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `fed-bench-${options.name}-`));
  const port = await freePort();
  let server: ChildServer;
  try {
    const extra = typeof options.env === 'function' ? options.env(dataDir) : options.env;
    server = await startChildServer({
      script: path.join(options.distRoot, 'apps/platform/src/main.js'),
      env: {
        DATABASE_URL: options.databaseUrl,
        DATA_DIR: dataDir,
        PORT: String(port),
        // The issuer the sign-in checks is the public URL's.
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn',
        ACCESS_LOG_ENABLED: 'false',
        ...extra,
      },
      port,
      readyPath: '/readyz',
      readyTimeoutMs: 60_000,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const started = server;
  return {
    ...started,
    dataDir,
    async signInDemoUser(scope) {
      const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
      const tokens = await signIn({
        serviceUrl: started.url,
        issuer: `${started.url}/realms/federation`,
        clientId: demo.app.clientId,
        clientSecret: demo.app.clientSecret,
        redirectUri: demo.app.redirectUri,
        login: demo.user.login,
        password: demo.user.password,
        scope,
      });
      return tokens.access_token;
    },
    async close() {
      await started.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
