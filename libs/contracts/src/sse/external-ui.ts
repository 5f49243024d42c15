/**
 * The fixed alternative text of an external UI resource: its `altText` and the chunk's `delta.content`
 * (spec document 2, "Origin differences"). It carries no answer: the tool server's UI is the answer.
 */
export const EXTERNAL_UI_ALT_TEXT = 'An external tool server returned a UI resource.';

/** The MIME type of an MCP Apps UI resource, the only one accepted from an external tool server. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
