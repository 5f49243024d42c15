import { AccessTokenVerifier, JwksKeySet, RevocationList, VerificationCache } from '@fed/auth';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Row, printTable, writeResult } from '../harness/report';
import { type Benchmark } from './benchmark';

const issuer = 'http://localhost:8080/realms/federation';

async function mintTokens(count: number) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const kid = randomUUID();
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  const now = Math.floor(Date.now() / 1000);
  const tokens = await Promise.all(
    Array.from({ length: count }, () =>
      new SignJWT({
        typ: 'Bearer',
        aud: 'broker',
        azp: 'bench-client',
        scope: 'openid chat:exec',
        jti: randomUUID(),
        realm_access: { roles: ['user'] },
      })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
        .setIssuer(issuer)
        .setSubject(randomUUID())
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey),
    ),
  );
  return { jwks, tokens };
}

/** Verifications per CPU-second of one verifier, cycling through distinct tokens (design budget: > 20,000/core). */
async function measure(tokens: string[], jwksUrl: string, cacheSize: number, durationMs: number) {
  const rules = { issuer, clockSkewSeconds: 10, maxTokenAgeSeconds: 86_400 };
  const verifier = new AccessTokenVerifier(
    rules,
    new JwksKeySet({ url: jwksUrl }),
    new RevocationList(rules),
    new VerificationCache(cacheSize),
  );
  for (const token of tokens) await verifier.verify(token);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let count = 0;
  while (performance.now() - started < durationMs) {
    for (let i = 0; i < 1000; i++) await verifier.verify(tokens[count++ % tokens.length] as string);
  }
  const wallSeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    verifications: count,
    perWallSecond: Math.round(count / wallSeconds),
    perCpuSecond: Math.round(count / ((cpu.user + cpu.system) / 1e6)),
  };
}

export const verifyBenchmark: Benchmark = {
  name: 'verify',
  description:
    'access-token verification with a cached JWKS, 1,000 distinct RS256 tokens, with and without the result cache',
  async run({ resultsDir, quick }) {
    const durationMs = quick ? 1000 : 4000;
    const { jwks, tokens } = await mintTokens(1000);
    const server = http.createServer((_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
    try {
      const uncached = await measure(tokens, jwksUrl, 0, durationMs);
      const cached = await measure(tokens, jwksUrl, 10_000, durationMs);
      const rows: Row[] = [
        {
          mode: 'signature checked every time (cache 0)',
          'per CPU-second': uncached.perCpuSecond,
          'per wall-second': uncached.perWallSecond,
        },
        {
          mode: 'result cache (10,000 entries)',
          'per CPU-second': cached.perCpuSecond,
          'per wall-second': cached.perWallSecond,
        },
      ];
      printTable('verify: access tokens verified per second, one core', rows);
      process.stdout.write(`written ${writeResult(resultsDir, 'verify', { durationMs, uncached, cached })}\n`);
    } finally {
      server.close();
    }
  },
};
