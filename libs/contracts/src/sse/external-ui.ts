/** Spec document 2, "Origin differences": it carries no answer, the tool server's UI is the answer. */
export const EXTERNAL_UI_ALT_TEXT = 'An external tool server returned a UI resource.';

/** The only UI type accepted from an external tool server. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';
