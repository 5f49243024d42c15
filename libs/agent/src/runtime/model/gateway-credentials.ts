import { request } from 'undici';
import { ModelError } from './model-error';

export interface CredentialSettings {
  /** A virtual key of the gateway (preferred). */
  apiKey?: string;
  /** A client of the auth service whose client-credentials token the gateway accepts. */
  clientId?: string;
  clientSecret?: string;
  /** auth-service's token endpoint (AGENT_TOKEN_URL). */
  tokenUrl: string;
}

/** A token is renewed this long before it expires, so a call never starts with one about to lapse. */
const RENEW_BEFORE_MS = 30_000;
const TOKEN_TIMEOUT_MS = 10_000;

/** The agent's gateway `Authorization`: its virtual key, or a client-credentials token fetched once for all waiters. */
export class GatewayCredentials {
  private token: { value: string; renewAt: number } | undefined;
  private fetching: Promise<string> | undefined;

  constructor(private readonly settings: CredentialSettings) {}

  /** Whether any credential is configured; without one, no model can be called. */
  get configured(): boolean {
    return Boolean(this.settings.apiKey || (this.settings.clientId && this.settings.clientSecret));
  }

  async authorization(): Promise<string> {
    if (this.settings.apiKey) return `Bearer ${this.settings.apiKey}`;
    if (!this.configured) {
      throw new ModelError('model_unavailable', 'The agent has no credentials for the model gateway.');
    }
    if (this.token && Date.now() < this.token.renewAt) return `Bearer ${this.token.value}`;
    this.fetching ??= this.fetchToken().finally(() => (this.fetching = undefined));
    return `Bearer ${await this.fetching}`;
  }

  /** A token the gateway refused (401) is not used again. */
  forget(): void {
    this.token = undefined;
  }

  private async fetchToken(): Promise<string> {
    const { clientId = '', clientSecret = '', tokenUrl } = this.settings;
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    let answer;
    try {
      answer = await request(tokenUrl, {
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
        headersTimeout: TOKEN_TIMEOUT_MS,
        bodyTimeout: TOKEN_TIMEOUT_MS,
      });
    } catch (error) {
      throw new ModelError(
        'model_unavailable',
        `The auth service could not be reached for a token (${describe(error)}).`,
      );
    }
    const body = (await answer.body.json().catch(() => undefined)) as
      { access_token?: unknown; expires_in?: unknown } | undefined;
    if (answer.statusCode !== 200 || typeof body?.access_token !== 'string') {
      throw new ModelError(
        'model_unavailable',
        `The auth service refused the agent's token request (${answer.statusCode}).`,
      );
    }
    const lifetimeMs = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in * 1000 : 60_000;
    this.token = { value: body.access_token, renewAt: Date.now() + Math.max(0, lifetimeMs - RENEW_BEFORE_MS) };
    return body.access_token;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
