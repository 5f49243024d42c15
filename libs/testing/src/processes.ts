import { type ChildProcess, type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '../../..');

/** Incremental, so process tests run what `npm start` runs. */
export function buildDist(): void {
  execFileSync(process.execPath, [path.join(repoRoot, 'tools/build.mjs')], {
    cwd: repoRoot,
    env: { ...process.env, BUILD_QUIET: '1' },
    stdio: 'inherit',
  });
}

/** The web app into dist/web (skipped when its sources did not change), as `npm start` builds it. */
export function buildWeb(): void {
  execFileSync(process.execPath, [path.join(repoRoot, 'tools/build-web.mjs')], { cwd: repoRoot, stdio: 'inherit' });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Without the variables that would change its mode. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'HOST', 'DATA_DIR', 'PUBLIC_URL', 'AUTH_URL', 'EDITION']) {
    delete env[name];
  }
  return { ...env, ...sandboxPort(extra), ...extra };
}

/**
 * The UI resource sandbox's port of a process given a PORT (the web app's default is PORT + 1). Not PORT + 1
 * here: Linux hands out ports for bind(0) (freePort) of one parity and local ports of outgoing connections of
 * the other, so under load PORT + 1 is often some client socket's. A random port below the ephemeral range is
 * no process's but another test's that drew the same (1 in 6,000).
 */
function sandboxPort(extra: Record<string, string>): Record<string, string> {
  if (extra.PORT === undefined || extra.WEB_SANDBOX_PORT !== undefined) return {};
  return { WEB_SANDBOX_PORT: String(20_000 + 2 * Math.floor(Math.random() * 6_000)) };
}

export interface ProcessHandle {
  child: ChildProcess;
  output(): string;
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<void>;
  exited(timeoutMs: number): Promise<number | null>;
}

export function startProcess(script: string, args: string[], env: NodeJS.ProcessEnv): ProcessHandle {
  return handleOf(
    spawn(process.execPath, [path.join(repoRoot, script), ...args], { cwd: repoRoot, env, stdio: 'pipe' }),
  );
}

const shellQuoted = (word: string) => `'${word.replaceAll("'", `'\\''`)}'`;

/**
 * Through util-linux `script`: `isTTY` is true, output has CRLF line ends, and `\x03` on stdin is Ctrl-C.
 * `exec` makes the script replace `$SHELL -c`, since dash would otherwise die of the SIGINT itself.
 */
export function startProcessInTerminal(script: string, args: string[], env: NodeJS.ProcessEnv): ProcessHandle {
  const command = `exec ${[process.execPath, path.join(repoRoot, script), ...args].map(shellQuoted).join(' ')}`;
  return handleOf(
    spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
      cwd: repoRoot,
      env,
      stdio: 'pipe',
    }),
  );
}

function handleOf(child: ChildProcessWithoutNullStreams): ProcessHandle {
  let output = '';
  const listeners = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    listeners.forEach((l) => l());
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  // 'close' rather than 'exit': both pipes are drained by then.
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    waitForOutput: (pattern, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${timeoutMs} ms; output:\n${output.slice(-3000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        void exit.then(() => {
          if (!pattern.test(output)) {
            cleanup();
            reject(new Error(`process exited before ${pattern}; output:\n${output.slice(-3000)}`));
          }
        });
        check();
      }),
    exited: (timeoutMs) =>
      Promise.race([exit, new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs).unref())]),
  };
}
