/** Where an external UI resource's HTML comes from when it was not stored with the turn. */
export interface ExternalUiReference {
  /** The approved tool server's name (`server_name` of the resource). */
  serverName: string;
  /** The `ui://` URI. */
  uri: string;
}

export interface ExternalUiContent {
  html: string;
  mimeType: string;
}

/** The tool server could not answer now (down, timed out, 5xx): retrieval answers 502 `upstream_api_error`. */
export class ExternalUiUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalUiUnavailableError';
  }
}

/**
 * The resource cannot be served, and asking again will not change that (its tool server was removed, or
 * answers with something that is not a valid MCP Apps resource): retrieval answers 404 `not_found`.
 */
export class ExternalUiGoneError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalUiGoneError';
  }
}

/** The tool server's HTML is over the size limit: retrieval answers 404 `file_too_large`. */
export class ExternalUiTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExternalUiTooLargeError';
  }
}

/**
 * Reads an external UI resource from its tool server again (MCP `resources/read`). Implemented by the
 * agent lib's tool-server registry; throws `ExternalUiUnavailableError` for a transient failure,
 * `ExternalUiGoneError` for a permanent one and `ExternalUiTooLargeError` for HTML over its limit.
 */
export interface ExternalUiSource {
  read(reference: ExternalUiReference, signal?: AbortSignal): Promise<ExternalUiContent>;
}

/**
 * Provide it in any module of the app: `UiResourcesModule` looks it up application-wide (`ModuleRef`,
 * `strict: false`) when a retrieval first needs it. Absent, an external resource stored without HTML
 * answers 500 (a deployment without tool servers never stores one).
 */
export const EXTERNAL_UI_SOURCE = Symbol.for('fed.conversations.ExternalUiSource');
