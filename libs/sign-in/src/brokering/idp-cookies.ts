import {
  IDP_CALLBACK_PATH,
  INTERACTION_PATH,
  type KeyEncryption,
  SealedBox,
  type UiLocale,
  UnsealError,
} from '@fed/identity/internal';

const FLOW_COOKIE = 'fed_idp_flow';
const RESULT_COOKIE = 'fed_idp_result';
// The interaction lasts 15 minutes; the result only needs to survive one redirect.
const FLOW_SECONDS = 900;
const RESULT_SECONDS = 120;

/** Sealed in the browser, not kept on the server. */
export interface IdpFlow {
  uid: string;
  tenantId: string;
  state: string;
  nonce: string;
  codeVerifier: string;
  locale: UiLocale;
}

/** Carried from the callback to the interaction, whose cookie has its own path. */
export type IdpResult = { uid: string; accountId: string } | { uid: string; error: 'access_denied' };

/**
 * SameSite=Lax (the upstream returns with a top-level GET), sealed so neither can be read or forged. The flow
 * cookie binds the callback to the browser that started; the result is bound to its interaction.
 */
export class IdpCookies {
  private readonly box: SealedBox;

  constructor(
    encryption: KeyEncryption,
    private readonly secure: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.box = new SealedBox(encryption, 'idp-cookies');
  }

  flow(flow: IdpFlow): string {
    return this.cookie(FLOW_COOKIE, this.seal(flow, FLOW_COOKIE, FLOW_SECONDS), IDP_CALLBACK_PATH, FLOW_SECONDS);
  }

  readFlow(cookieHeader: string | undefined): IdpFlow | undefined {
    return this.open<IdpFlow>(cookieHeader, FLOW_COOKIE, FLOW_COOKIE);
  }

  clearFlow(): string {
    return this.cookie(FLOW_COOKIE, '', IDP_CALLBACK_PATH, 0);
  }

  result(result: IdpResult): string {
    const context = `${RESULT_COOKIE}:${result.uid}`;
    return this.cookie(
      RESULT_COOKIE,
      this.seal(result, context, RESULT_SECONDS),
      resultPath(result.uid),
      RESULT_SECONDS,
    );
  }

  readResult(cookieHeader: string | undefined, uid: string): IdpResult | undefined {
    const result = this.open<IdpResult>(cookieHeader, RESULT_COOKIE, `${RESULT_COOKIE}:${uid}`);
    return result?.uid === uid ? result : undefined;
  }

  clearResult(uid: string): string {
    return this.cookie(RESULT_COOKIE, '', resultPath(uid), 0);
  }

  private seal(value: object, context: string, seconds: number): string {
    const sealed = this.box.seal(JSON.stringify({ ...value, exp: this.now() + seconds * 1000 }), context);
    return sealed.toString('base64url');
  }

  private open<T>(cookieHeader: string | undefined, name: string, context: string): T | undefined {
    const raw = cookieValue(cookieHeader, name);
    if (!raw || raw.length > 4096) return undefined;
    try {
      const value = JSON.parse(this.box.open(Buffer.from(raw, 'base64url'), context)) as T & { exp: number };
      return value.exp > this.now() ? value : undefined;
    } catch (error) {
      if (error instanceof UnsealError || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  private cookie(name: string, value: string, path: string, maxAgeSeconds: number): string {
    return `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`;
  }
}

/** Where oidc-provider's interaction cookie is sent too. */
export function resultPath(uid: string): string {
  return `${INTERACTION_PATH}/${encodeURIComponent(uid)}`;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
