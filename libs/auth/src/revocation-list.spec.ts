import { MemorySignals } from '@fed/bus';
import { RevocationList } from './revocation-list';

const SKEW = 10;
const MAX_AGE = 3600;

describe('RevocationList', () => {
  let clock: number;
  const nowSeconds = () => clock / 1000;
  const list = () => new RevocationList({ clockSkewSeconds: SKEW, maxTokenAgeSeconds: MAX_AGE, now: () => clock });
  const token = (overrides: Partial<{ tokenId: string; subject: string; issuedAt: number }> = {}) => ({
    tokenId: 'jti-1',
    subject: 'user-1',
    issuedAt: nowSeconds() - 60,
    ...overrides,
  });

  beforeEach(() => {
    clock = Date.UTC(2030, 0, 1);
  });

  it('refuses a revoked jti and no other', () => {
    const revocations = list();
    revocations.revokeToken('jti-1', nowSeconds() + 300);
    expect(revocations.isRevoked(token())).toBe(true);
    expect(revocations.isRevoked(token({ tokenId: 'jti-2' }))).toBe(false);
  });

  it('forgets a revoked jti only once the token has expired beyond the clock skew', () => {
    const revocations = list();
    revocations.revokeToken('jti-1', nowSeconds() + 300);
    clock += (300 + SKEW - 1) * 1000;
    revocations.sweep();
    expect(revocations.isRevoked(token())).toBe(true);
    clock += 2000;
    revocations.sweep();
    expect(revocations.revokedTokenCount).toBe(0);
  });

  it('does not store a revocation of a token that has expired already', () => {
    const revocations = list();
    revocations.revokeToken('jti-1', nowSeconds() - SKEW - 1);
    expect(revocations.revokedTokenCount).toBe(0);
  });

  it('refuses tokens of a subject issued before the cut-off and accepts those issued at or after it', () => {
    const revocations = list();
    const cutOff = nowSeconds() - 30;
    revocations.invalidateSessions('user-1', cutOff);
    expect(revocations.isRevoked(token({ issuedAt: cutOff - 1 }))).toBe(true);
    expect(revocations.isRevoked(token({ issuedAt: cutOff }))).toBe(false);
    expect(revocations.isRevoked(token({ issuedAt: cutOff - 1, subject: 'user-2' }))).toBe(false);
  });

  it('keeps the latest cut-off of a subject', () => {
    const revocations = list();
    revocations.invalidateSessions('user-1', nowSeconds() - 10);
    revocations.invalidateSessions('user-1', nowSeconds() - 100);
    expect(revocations.isRevoked(token({ issuedAt: nowSeconds() - 50 }))).toBe(true);
  });

  it('forgets a cut-off once every token it refuses is past the maximum token age', () => {
    const revocations = list();
    revocations.invalidateSessions('user-1', nowSeconds());
    clock += (MAX_AGE + SKEW - 1) * 1000;
    revocations.sweep();
    expect(revocations.invalidatedSubjectCount).toBe(1);
    clock += 2000;
    revocations.sweep();
    expect(revocations.invalidatedSubjectCount).toBe(0);
  });

  describe('attached to Signals', () => {
    let signals: MemorySignals;
    const delivered = () => new Promise((resolve) => setImmediate(resolve));

    beforeEach(() => {
      signals = new MemorySignals();
    });

    afterEach(() => signals.close());

    it('applies auth.token-revoked and auth.sessions-invalidated', async () => {
      const revocations = list();
      await revocations.attach(signals);
      await signals.publish('auth.token-revoked', { version: 1, jti: 'jti-1', expiresAt: nowSeconds() + 300 });
      await signals.publish('auth.sessions-invalidated', { version: 1, subject: 'user-2', issuedBefore: nowSeconds() });
      await delivered();
      expect(revocations.isRevoked(token())).toBe(true);
      expect(revocations.isRevoked(token({ tokenId: 'jti-9', subject: 'user-2' }))).toBe(true);
      await revocations.detach();
    });

    it('loads the revocations retained before it attached', async () => {
      const until = Date.now() / 1000 + 300;
      await signals.publishRetained(
        'auth.token-revoked',
        { version: 1, jti: 'jti-1', expiresAt: nowSeconds() + 300 },
        until,
      );
      const revocations = list();
      await revocations.attach(signals);
      expect(revocations.isRevoked(token())).toBe(true);
      await revocations.detach();
    });

    it('ignores malformed signals', async () => {
      const revocations = list();
      await revocations.attach(signals);
      await signals.publish('auth.token-revoked', { version: 1, jti: '', expiresAt: nowSeconds() + 300 });
      await signals.publish('auth.token-revoked', { version: 1, expiresAt: nowSeconds() + 300 } as never);
      await signals.publish('auth.sessions-invalidated', {
        version: 1,
        subject: 'user-1',
        issuedBefore: 'soon',
      } as never);
      await delivered();
      expect(revocations.revokedTokenCount).toBe(0);
      expect(revocations.invalidatedSubjectCount).toBe(0);
      await revocations.detach();
    });

    it('hears nothing after detach', async () => {
      const revocations = list();
      await revocations.attach(signals);
      await revocations.detach();
      await signals.publish('auth.token-revoked', { version: 1, jti: 'jti-1', expiresAt: nowSeconds() + 300 });
      await delivered();
      expect(revocations.isRevoked(token())).toBe(false);
    });
  });
});
