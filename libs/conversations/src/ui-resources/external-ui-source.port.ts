/** Where an external UI resource's HTML comes from when it was not stored with the turn. */
export interface ExternalUiReference {
  /** The approved tool server's name (`server_name` of the resource). */
  serverName: string;
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

/** Cannot be served, now or later (server removed, or not a valid MCP Apps resource): 404 `not_found`. */
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

/** Re-reads an external UI resource from its tool server (`resources/read`); the agent lib implements it. */
export interface ExternalUiSource {
  read(reference: ExternalUiReference, signal?: AbortSignal): Promise<ExternalUiContent>;
}

/** Looked up app-wide on first need; absent, an external resource without stored HTML answers 500. */
export const EXTERNAL_UI_SOURCE = Symbol.for('fed.conversations.ExternalUiSource');
