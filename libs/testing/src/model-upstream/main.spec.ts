import { buildDist, cleanEnv, startProcess } from '../processes';
import { parseUpstreamArgs } from './upstream-args';

describe('the standalone upstream arguments', () => {
  it('reads port, host and latency in both --flag value and --flag=value forms, without recording', () => {
    expect(parseUpstreamArgs(['--port', '0', '--latency-ms=20', '--host', '::1'])).toEqual({
      port: 0,
      latencyMs: 20,
      host: '::1',
      recordRequests: false,
    });
    expect(parseUpstreamArgs([])).toEqual({ recordRequests: false });
  });

  it('refuses an unknown flag, a missing value and a value that is not a whole number', () => {
    expect(() => parseUpstreamArgs(['--verbose'])).toThrow('unknown argument --verbose');
    expect(() => parseUpstreamArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseUpstreamArgs(['--latency-ms', '2.5'])).toThrow('--latency-ms must be a whole number, got 2.5');
    expect(() => parseUpstreamArgs(['--port=-1'])).toThrow('--port must be a whole number, got -1');
  });
});

describe('the standalone upstream process', () => {
  beforeAll(() => buildDist(), 60_000);

  it('prints its url, answers with the given latency and exits cleanly on SIGTERM', async () => {
    const handle = startProcess(
      'dist/libs/testing/src/model-upstream/main.js',
      ['--port', '0', '--latency-ms', '20'],
      cleanEnv({}),
    );
    try {
      await handle.waitForOutput(/listening http:\/\/127\.0\.0\.1:\d+\n/, 10_000);
      const url = /listening (\S+)/.exec(handle.output())?.[1];

      const started = performance.now();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'bench' }] }),
      });
      expect(performance.now() - started).toBeGreaterThanOrEqual(18);
      expect(await res.json()).toMatchObject({ choices: [{ message: { content: 'Echo: bench' } }] });

      handle.child.kill('SIGTERM');
      expect(await handle.exited(5_000)).toBe(0);
      expect(handle.output()).toMatch(/^listening \S+\n$/);
    } finally {
      handle.child.kill('SIGKILL');
    }
  });

  it('exits with 2 and the usage on a bad argument', async () => {
    const handle = startProcess('dist/libs/testing/src/model-upstream/main.js', ['--nope'], cleanEnv({}));

    expect(await handle.exited(5_000)).toBe(2);
    expect(handle.output()).toContain('usage: main.js');
  });
});
