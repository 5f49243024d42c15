import { AccessTokenVerifier } from '../access-token.verifier';
import { JwksKeySet } from '../jwks-key-set';
import { RevocationList } from '../revocation-list';
import { VerificationCache } from '../verification-cache';
import { JwksServer } from './jwks-server';
import { TestTokenIssuer } from './token-issuer';

export interface ThroughputResult {
  verifications: number;
  perWallSecond: number;
  /** Verifications per second of CPU time of this process: the "per core" figure. */
  perCpuSecond: number;
}

/**
 * Verifications per second of one AccessTokenVerifier with a loaded JWKS, cycling through
 * `distinctTokens` tokens. `cacheSize: 0` measures the RSA path alone. For `npm run bench`, not tests.
 */
export async function measureVerificationThroughput(
  options: { cacheSize: number; distinctTokens?: number; durationMs?: number } = { cacheSize: 10_000 },
): Promise<ThroughputResult> {
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  try {
    const rules = { issuer: issuer.issuer, clockSkewSeconds: 10, maxTokenAgeSeconds: 86_400 };
    const verifier = new AccessTokenVerifier(
      rules,
      new JwksKeySet({ url: jwks.url }),
      new RevocationList(rules),
      new VerificationCache(options.cacheSize),
    );
    const tokens = await Promise.all(Array.from({ length: options.distinctTokens ?? 1000 }, () => issuer.mint()));
    for (const token of tokens) await verifier.verify(token);

    const durationMs = options.durationMs ?? 3000;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    let verifications = 0;
    while (performance.now() - started < durationMs) {
      for (let i = 0; i < 1000; i++) await verifier.verify(tokens[verifications++ % tokens.length]);
    }
    const wallSeconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    return {
      verifications,
      perWallSecond: Math.round(verifications / wallSeconds),
      perCpuSecond: Math.round(verifications / cpuSeconds),
    };
  } finally {
    await jwks.close();
    await issuer.close();
  }
}
