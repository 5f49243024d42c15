import { createHmac, randomBytes } from 'node:crypto';
import { DEVICE_COOKIE, DeviceCookies } from './device-cookie';

const ALICE = '6f1c2a0e-0d7e-4d5b-9c39-2f1f0a6c1e01';
const BOB = '0b7e4b1e-5d0c-4f36-8a59-7d2c4e9f3a02';
const PATH = '/federation/auth/v1/interaction';
const DAY = 24 * 3600 * 1000;

describe('device cookies', () => {
  let now: number;
  const key = randomBytes(32);
  const cookies = (secure = false) => new DeviceCookies({ key, path: PATH, secure, now: () => now });
  /** The `Cookie` header a browser sends back for a `Set-Cookie` value. */
  const sentBack = (setCookie: string) => setCookie.split(';')[0] as string;
  const valueOf = (setCookie: string) => sentBack(setCookie).slice(DEVICE_COOKIE.length + 1);

  beforeEach(() => {
    now = Date.parse('2026-11-22T10:00:00Z');
  });

  it('is HttpOnly, SameSite=Strict, on the login path, kept 30 days, and Secure over https only', () => {
    const plain = cookies(false).issue(ALICE);
    expect(plain.split('; ').slice(1)).toEqual([
      `Max-Age=${30 * 24 * 3600}`,
      `Path=${PATH}`,
      'HttpOnly',
      'SameSite=Strict',
    ]);
    expect(cookies(true).issue(ALICE).split('; ')).toContain('Secure');
  });

  it("gives back the nonce of a valid cookie for the user it names, among the browser's other cookies", () => {
    const issued = cookies().issue(ALICE);
    const nonce = cookies().nonceFor(`_session=abc; ${sentBack(issued)}; other=1`, ALICE);
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(valueOf(issued)).toContain(`.${nonce}.`);
  });

  it('gives each successful login a new nonce', () => {
    const first = cookies().nonceFor(sentBack(cookies().issue(ALICE)), ALICE);
    const second = cookies().nonceFor(sentBack(cookies().issue(ALICE)), ALICE);
    expect(first).toBeDefined();
    expect(second).not.toBe(first);
  });

  it("ignores another user's cookie", () => {
    expect(cookies().nonceFor(sentBack(cookies().issue(BOB)), ALICE)).toBeUndefined();
  });

  it('ignores an expired cookie', () => {
    const issued = sentBack(cookies().issue(ALICE));
    now += 30 * DAY - 1000;
    expect(cookies().nonceFor(issued, ALICE)).toBeDefined();
    now += 1000;
    expect(cookies().nonceFor(issued, ALICE)).toBeUndefined();
  });

  it('ignores forged and malformed cookies', () => {
    const [owner, nonce, expiresAt, mac] = valueOf(cookies().issue(BOB)).split('.') as [string, string, string, string];
    const forge = (...parts: string[]) => `${DEVICE_COOKIE}=${parts.join('.')}`;
    const otherKey = createHmac('sha256', randomBytes(32)).update(`${ALICE}.${nonce}.${expiresAt}`).digest('base64url');
    for (const header of [
      forge(ALICE, nonce, expiresAt, mac),
      forge(owner, nonce, String(Number(expiresAt) + 1), mac),
      forge(ALICE, nonce, expiresAt, otherKey),
      forge(ALICE, nonce, expiresAt, mac.slice(1)),
      forge(ALICE, nonce, expiresAt, `${mac}x`),
      forge(ALICE, nonce, expiresAt),
      forge(ALICE, nonce, expiresAt, mac, 'x'),
      `${DEVICE_COOKIE}=`,
      `${DEVICE_COOKIE}=${'é'.repeat(43)}`,
      '',
    ]) {
      expect(cookies().nonceFor(header, ALICE)).toBeUndefined();
    }
    expect(cookies().nonceFor(undefined, ALICE)).toBeUndefined();
    // Signed under another key (another installation): not ours.
    const elsewhere = new DeviceCookies({ key: randomBytes(32), path: PATH, secure: false, now: () => now });
    expect(cookies().nonceFor(sentBack(elsewhere.issue(ALICE)), ALICE)).toBeUndefined();
  });
});
