import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const DEVICE_COOKIE = 'fed_device';
const LIFETIME_SECONDS = 30 * 24 * 3600;
const MAC_LENGTH = 43; // HMAC-SHA256 in base64url

export interface DeviceCookieSettings {
  /** HMAC-SHA256 key, e.g. `KeyEncryption.derive('device-cookie')`. */
  key: Buffer;
  path: string;
  secure: boolean;
  now?: () => number;
}

/**
 * OWASP device cookies: later attempts from a browser that signed in to the account are counted by its nonce,
 * not the address, and account holds skip them, so an attacker, even behind the same address, cannot hold the
 * real user back.
 */
export class DeviceCookies {
  private readonly now: () => number;

  constructor(private readonly settings: DeviceCookieSettings) {
    this.now = settings.now ?? Date.now;
  }

  issue(userId: string): string {
    const expiresAt = Math.floor(this.now() / 1000) + LIFETIME_SECONDS;
    const payload = `${userId}.${randomBytes(16).toString('base64url')}.${expiresAt}`;
    const attributes = [`Max-Age=${LIFETIME_SECONDS}`, `Path=${this.settings.path}`, 'HttpOnly', 'SameSite=Strict'];
    if (this.settings.secure) attributes.push('Secure');
    return [`${DEVICE_COOKIE}=${payload}.${this.mac(payload)}`, ...attributes].join('; ');
  }

  /** Undefined for none, forged, expired or another user's. */
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
