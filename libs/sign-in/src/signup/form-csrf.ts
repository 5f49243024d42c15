import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface FormCsrfSettings {
  key: Buffer;
  path: string;
  secure: boolean;
}

const COOKIE = 'fed_account_form';
const NONCE = /^[A-Za-z0-9_-]{22}$/;
// Long enough to fill in a form and follow a link from an e-mail in between; renewed on each page.
const MAX_AGE_SECONDS = 2 * 3600;

/**
 * Signed double-submit cookie, since these pages belong to no sign-in request: forms carry the HMAC of an
 * HttpOnly nonce, which another site can neither read nor compute.
 */
export class FormCsrf {
  constructor(private readonly settings: FormCsrfSettings) {}

  issue(cookieHeader: string | undefined): { token: string; setCookie: string } {
    const nonce = nonceIn(cookieHeader) ?? randomBytes(16).toString('base64url');
    const secure = this.settings.secure ? '; Secure' : '';
    return {
      token: this.sign(nonce),
      setCookie: `${COOKIE}=${nonce}; Path=${this.settings.path}; Max-Age=${MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure}`,
    };
  }

  valid(cookieHeader: string | undefined, given: unknown): boolean {
    const nonce = nonceIn(cookieHeader);
    if (!nonce || typeof given !== 'string') return false;
    const expected = Buffer.from(this.sign(nonce));
    const actual = Buffer.from(given);
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  }

  private sign(nonce: string): string {
    return createHmac('sha256', this.settings.key).update(nonce).digest('base64url');
  }
}

function nonceIn(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, value] = part.trim().split('=', 2);
    if (name === COOKIE && value && NONCE.test(value)) return value;
  }
  return undefined;
}
