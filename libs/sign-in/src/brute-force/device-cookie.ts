import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const DEVICE_COOKIE = 'fed_device';
const LIFETIME_SECONDS = 30 * 24 * 3600;
const MAC_LENGTH = 43; // HMAC-SHA256 in base64url

export interface DeviceCookieSettings {
  /** HMAC-SHA256 key, e.g. `KeyEncryption.derive('device-cookie')`. */
  key: Buffer;
  /** Where the browser sends the cookie back: the login form's path. */
  path: string;
  /** Over https (the issuer's scheme): the cookie is marked Secure. */
  secure: boolean;
  now?: () => number;
}

/**
 * Device cookies (OWASP, "Slow down online guessing attacks with device cookies"): a browser that
 * signed in to an account gets a signed cookie naming the user, a random nonce and an expiry. Its next
 * attempts on that account are counted by the nonce instead of the address, and account holds do not
 * apply to them, so an attacker, even one behind the same address, cannot hold the real user back.
 */
export class DeviceCookies {
  private readonly now: () => number;

  constructor(private readonly settings: DeviceCookieSettings) {
    this.now = settings.now ?? Date.now;
  }

  /** The `Set-Cookie` value that marks this browser as one `userId` signed in from. */
  issue(userId: string): string {
    const expiresAt = Math.floor(this.now() / 1000) + LIFETIME_SECONDS;
    const payload = `${userId}.${randomBytes(16).toString('base64url')}.${expiresAt}`;
    const attributes = [`Max-Age=${LIFETIME_SECONDS}`, `Path=${this.settings.path}`, 'HttpOnly', 'SameSite=Strict'];
    if (this.settings.secure) attributes.push('Secure');
    return [`${DEVICE_COOKIE}=${payload}.${this.mac(payload)}`, ...attributes].join('; ');
  }

  /** The nonce of a valid device cookie for `userId` in a `Cookie` header; undefined for none, forged, expired or another user's. */
  nonceFor(cookieHeader: string | undefined, userId: string): string | undefined {
    for (const value of cookieValues(cookieHeader, DEVICE_COOKIE)) {
      const parts = value.split('.');
      if (parts.length !== 4) continue;
      const [owner, nonce, expiresAt, mac] = parts as [string, string, string, string];
      if (!this.macMatches(`${owner}.${nonce}.${expiresAt}`, mac)) continue;
      if (owner === userId && Number(expiresAt) * 1000 > this.now()) return nonce;
    }
    return undefined;
  }

  private mac(payload: string): string {
    return createHmac('sha256', this.settings.key).update(payload).digest('base64url');
  }

  private macMatches(payload: string, given: string): boolean {
    const actual = Buffer.from(given);
    return actual.length === MAC_LENGTH && timingSafeEqual(Buffer.from(this.mac(payload)), actual);
  }
}

function cookieValues(header: string | undefined, name: string): string[] {
  return (header ?? '')
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1));
}
