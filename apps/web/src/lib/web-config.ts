/** The product edition (EDITION): the SaaS edition's app (chat and console), or the Marketplace edition's admin panel. */
export type Edition = 'saas' | 'marketplace';

/** What the server that serves the app tells it, in `<meta name="fed-web-config">` (no inline script). */
export interface WebConfig {
  issuer: string;
  clientId: string;
  scopes: string[];
  /** Not in discovery (document 1's table is the contract), so the app is told. */
  endSessionEndpoint: string;
  /** The chat API's `model` (CHAT_MODEL_NAME). */
  chatModel: string;
  /** The UI resource sandbox's origin (WEB_SANDBOX_URL): UI resources run in frames of it, never of the app. */
  sandboxUrl: string;
  /**
   * In the Marketplace edition the app is its admin panel: the console only (no chat: that edition's end users are
   * services), with the sections of the routes that edition serves. Absent (an older server): `saas`.
   */
  edition: Edition;
}

export function readWebConfig(doc: Document = document): WebConfig {
  const content = doc.querySelector<HTMLMetaElement>('meta[name="fed-web-config"]')?.content;
  if (!content) throw new Error('the page carries no fed-web-config: it was not served by the platform');
  const config = JSON.parse(content) as Partial<WebConfig>;
  const { issuer, clientId, scopes, endSessionEndpoint, chatModel, sandboxUrl, edition } = config;
  if (
    typeof issuer !== 'string' ||
    typeof clientId !== 'string' ||
    typeof endSessionEndpoint !== 'string' ||
    typeof chatModel !== 'string' ||
    typeof sandboxUrl !== 'string'
  ) {
    throw new Error('fed-web-config lacks issuer, clientId, endSessionEndpoint, chatModel or sandboxUrl');
  }
  if (edition !== undefined && edition !== 'saas' && edition !== 'marketplace') {
    throw new Error(`fed-web-config names an unknown edition ${JSON.stringify(edition)}`);
  }
  return {
    issuer,
    clientId,
    endSessionEndpoint,
    chatModel,
    sandboxUrl,
    scopes: Array.isArray(scopes) ? scopes : ['openid'],
    edition: edition ?? 'saas',
  };
}

let pageEdition: Edition | undefined;

/** The edition of the page's server (its fed-web-config), read once. */
export function webEdition(): Edition {
  pageEdition ??= readWebConfig().edition;
  return pageEdition;
}
