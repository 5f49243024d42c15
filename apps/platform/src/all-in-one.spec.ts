import Anthropic from '@anthropic-ai/sdk';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { type ProcessHandle, buildDist, cleanEnv, freePort, startProcess } from '@fed/testing';
import { type DemoCredentials } from './demo-realm';

// `npm start` is `build && node dist/apps/platform/src/main.js`: these tests run exactly that process.
const main = 'dist/apps/platform/src/main.js';

describe('all-in-one platform (npm start)', () => {
  let dataDir: string;
  let port: number;
  let first: ProcessHandle | undefined;

  beforeAll(async () => {
    buildDist();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'fed-platform-'));
    port = await freePort();
  }, 60_000);

  afterAll(() => {
    first?.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => cleanEnv({ PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' });

  it('starts with the embedded database and in-process bus, migrates, and prints the URLs it serves', async () => {
    first = startProcess(main, [], env());
    await first.waitForOutput(/Press Ctrl-C to stop/, 60_000);
    const output = first.output();
    expect(output).toContain(`listening on http://127.0.0.1:${port}`);
    expect(output).toContain(`embedded PostgreSQL in ${dataDir}`);
    expect(output).toContain('in-process');
    expect(output).toContain(`http://localhost:${port}/realms/federation/.well-known/openid-configuration`);
    expect(output).toContain(`node:     ${process.version}`);
    expect(output).toMatch(new RegExp(`OpenAI SDK +http://localhost:${port}/llm/v1\\n`));
    expect(output).toMatch(new RegExp(`Anthropic SDK +http://localhost:${port}/llm\\n`));
    expect(output).toMatch(new RegExp(`A2A agent card +http://localhost:${port}/.well-known/agent-card.json\\n`));
    expect(output).toMatch(new RegExp(`MCP \\(streamable HTTP\\) +http://localhost:${port}/api/v1/mcp\\n`));
    expect(output).toMatch(/"msg":"\d+ migrations applied"/);
  }, 90_000);

  it('answers /healthz and /readyz with 200, readiness covering the database and the bus', async () => {
    const live = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(live.status).toBe(200);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { checks: Record<string, { status: string }> };
    expect(body.checks.postgres?.status).toBe('ok');
    expect(body.checks.bus?.status).toBe('ok');
  });

  it('creates a demo realm on the first start and prints how to get a token with it', async () => {
    const output = first!.output();
    expect(output).toContain('Demo realm created');
    const curl = /curl -u (demo-service):(\S+) -d grant_type=client_credentials (\S+)/.exec(output);
    expect(curl).not.toBeNull();
    const [, clientId, secret, tokenUrl] = curl as RegExpExecArray;
    expect(tokenUrl).toBe(`http://localhost:${port}/federation/auth/v1/token`);
    expect(output).toContain('Get a token (an access token lives 300 s: ACCESS_TOKEN_TTL_SECONDS):');
    const res = await fetch(`http://127.0.0.1:${port}/federation/auth/v1/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ token_type: 'Bearer', scope: expect.stringContaining('users:read') });
    const saved = statSync(path.join(dataDir, 'demo-credentials.json'));
    expect(saved.mode & 0o777).toBe(0o600);
  });

  it('prints a model-gateway key that calls the offline demo model with the official clients', async () => {
    const output = first!.output();
    const key = /Model gateway key: (fed_\S+)/.exec(output)?.[1] as string;
    expect(key).toBeDefined();
    // The base URLs exactly as printed, each given to its own SDK.
    const openaiBase = /OpenAI SDK +(\S+)/.exec(output)?.[1] as string;
    const anthropicBase = /Anthropic SDK +(\S+)/.exec(output)?.[1] as string;
    const openai = new OpenAI({ baseURL: openaiBase, apiKey: key, maxRetries: 0 });
    const completion = await openai.chat.completions.create({
      model: 'demo',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/demo model/);
    const anthropic = new Anthropic({ baseURL: anthropicBase, apiKey: key, maxRetries: 0 });
    const message = await anthropic.messages
      .stream({ model: 'demo', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] })
      .finalMessage();
    expect(JSON.stringify(message.content)).toMatch(/demo model/);
  });

  it('writes JSON log lines when stdout is not a terminal, every one of them before the banner', () => {
    const output = first!.output();
    const bannerAt = output.indexOf('\nFederation agent platform (all-in-one');
    const logLines = output.slice(0, bannerAt).split('\n').filter(Boolean);
    expect(logLines.length).toBeGreaterThan(20);
    for (const line of logLines) expect(JSON.parse(line)).toMatchObject({ service: 'platform' });
    expect(output.endsWith('Press Ctrl-C to stop.\n')).toBe(true);
  });

  it('refuses a second instance on the same data directory instead of sharing the database', async () => {
    const second = startProcess(main, [], cleanEnv({ PORT: String(await freePort()), DATA_DIR: dataDir }));
    const code = await second.exited(60_000);
    expect(code).not.toBe(0);
    expect(second.output()).toContain(dataDir);
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  }, 90_000);

  it('stops cleanly on Ctrl-C (SIGINT) with exit code 0', async () => {
    first!.child.kill('SIGINT');
    const code = await first!.exited(30_000);
    expect(code).toBe(0);
    expect(first!.output()).toMatch(/"msg":"stopped"/);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 40_000);

  it('reuses the data directory on the next start: nothing left to migrate', async () => {
    const again = startProcess(main, [], env());
    try {
      await again.waitForOutput(/Press Ctrl-C to stop/, 60_000);
      expect(again.output()).toMatch(/"msg":"database schema up to date"/);
      // The secrets were shown once; the commands are printed again, naming the file that keeps the secrets.
      const output = again.output();
      expect(output).not.toContain('Demo realm created');
      expect(output).toContain(`${path.join(dataDir, 'demo-credentials.json')} keeps them`);
      expect(output).toContain(
        `curl -u demo-service:<client_secret> -d grant_type=client_credentials http://localhost:${port}/federation/auth/v1/token`,
      );
      expect(output).toContain("-H 'authorization: Bearer <fed_ key>'");
      const kept = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
      for (const secret of [kept.user.password, kept.app.clientSecret, kept.service.clientSecret, kept.gatewayKey]) {
        expect(output).not.toContain(secret);
      }
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited(30_000)).toBe(0);
    }
  }, 90_000);

  it('prints the Marketplace commands on a data directory a SaaS start created, and they work as printed', async () => {
    const marketplace = startProcess(main, [], cleanEnv({ ...env(), EDITION: 'marketplace' }));
    try {
      await marketplace.waitForOutput(/Press Ctrl-C to stop/, 60_000);
      const output = marketplace.output();
      expect(output).toContain(`${path.join(dataDir, 'demo-credentials.json')} keeps them`);
      const create = /npm run platformctl -- agents create --id (\S+) --name '([^']+)' --instructions '([^']+)'/.exec(
        output,
      );
      const token = /curl -X POST (\S+) -H 'content-type: application\/json' -d '(\{[^']+\})'/.exec(output);
      const chat =
        /curl -N (\S+) -H 'authorization: Bearer <access_token>' -H 'x-agent-id: (\S+)' .* -d '(\{[^']+\})'/.exec(
          output,
        );
      expect(create && token && chat).toBeTruthy();
      const [, agentId, name, instructions] = create as RegExpExecArray;
      expect(chat?.[2]).toBe(agentId);

      // Run as printed: platformctl beside the running platform, the secret from the file the banner names.
      const ctl = startProcess(
        'dist/apps/platformctl/src/main.js',
        ['agents', 'create', '--id', agentId!, '--name', name!, '--instructions', instructions!],
        cleanEnv({ DATA_DIR: dataDir }),
      );
      expect(await ctl.exited(60_000)).toBe(0);
      const kept = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')) as DemoCredentials;
      const local = (url: string) => url.replace('http://localhost:', 'http://127.0.0.1:');
      const tokenRes = await fetch(local(token![1]!), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: token![2]!.replace('<client_secret>', kept.service.clientSecret),
      });
      expect(tokenRes.status).toBe(200);
      const { access_token } = (await tokenRes.json()) as { access_token: string };
      const turn = await fetch(local(chat![1]!), {
        method: 'POST',
        headers: {
          authorization: `Bearer ${access_token}`,
          'x-agent-id': agentId!,
          'content-type': 'application/json',
        },
        body: chat![3],
      });
      expect(turn.status).toBe(200);
      expect(await turn.text()).toContain('data: [DONE]');
    } finally {
      marketplace.child.kill('SIGTERM');
      expect(await marketplace.exited(30_000)).toBe(0);
    }
  }, 120_000);

  it('refuses to start on a bad configuration value, naming the variable (exit 78)', async () => {
    const bad = startProcess(main, [], cleanEnv({ PORT: 'eighty', DATA_DIR: dataDir }));
    expect(await bad.exited(30_000)).toBe(78);
    expect(bad.output()).toContain('PORT: "eighty" is invalid');
    expect(bad.output()).toContain('allowed: an integer from 1 to 65535');
  }, 40_000);
});
