import { isPrintableLine } from '@fed/contracts';
import { addressProblem } from './tool-server-network';
import { ToolServersError } from './tool-servers.errors';

// What an administrator may register. The agent tool name `<server>__<tool>` must fit the
// chat-completions API's `^[a-zA-Z0-9_-]{1,64}$`; tools whose names do not are skipped at turn time.

const SERVER_NAME = /^[a-z0-9][a-z0-9_-]{0,31}$/;
// MCP tool names (SEP-986): 1-128 characters of letters, digits, `_`, `-` and `.`.
const MCP_TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
export const MAX_TOOL_NAME = 128;
const AGENT_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const MAX_TIMEOUT_SECONDS = 300;
export const MAX_AUTH_HEADER = 8192;
export const MAX_URL = 2048;

export const SERVER_NAME_RULE =
  'a tool server name is 1-32 characters of a-z, 0-9, _ and -, starting with a letter or digit';

export function serverName(raw: string): string {
  if (!SERVER_NAME.test(raw)) throw new ToolServersError('invalid_name', SERVER_NAME_RULE);
  return raw;
}

export function isServerName(raw: string): boolean {
  return SERVER_NAME.test(raw);
}

/** An http(s) URL without credentials; address literals must be public unless allowed (names: on connect). */
export function serverUrl(raw: string, allowPrivateAddresses: boolean): string {
  if (raw.length > MAX_URL) throw new ToolServersError('invalid_url', `the URL is at most ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolServersError('invalid_url', `${JSON.stringify(raw.slice(0, 200))} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolServersError('invalid_url', `the URL must be http or https, not ${url.protocol}`);
  }
  // `list` shows the URL: a secret belongs in --auth-header, which is never shown.
  if (url.username || url.password) {
    throw new ToolServersError('invalid_url', 'put credentials in --auth-header, not in the URL');
  }
  const problem = allowPrivateAddresses ? undefined : addressProblem(url.hostname);
  if (problem) {
    throw new ToolServersError(
      'address_not_allowed',
      `${problem}: tool servers must be on public addresses unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true`,
    );
  }
  return url.toString();
}

export function authHeaderValue(raw: string): string {
  if (raw.length === 0 || raw.length > MAX_AUTH_HEADER || !/^[\x21-\x7e][\x20-\x7e]*$/.test(raw)) {
    throw new ToolServersError(
      'invalid_auth_header',
      `the auth header is 1-${MAX_AUTH_HEADER} printable ASCII characters (as in 'Bearer x')`,
    );
  }
  return raw;
}

/** At most this many tools are allowed on one server (the model sees each of them at every turn). */
export const MAX_ALLOWED_TOOLS = 128;

/**
 * The allowed tools as the administrator named them (`tool1,tool2` on the command line, a list over HTTP): each
 * tool named, no wildcard, no duplicates.
 */
export function allowedTools(raw: string | readonly string[]): string[] {
  const names = (typeof raw === 'string' ? raw.split(',') : raw)
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (names.length === 0) throw new ToolServersError('invalid_allowed_tools', 'name at least one tool to allow');
  if (names.includes('*')) {
    throw new ToolServersError('invalid_allowed_tools', 'name each allowed tool: `*` is not accepted');
  }
  for (const name of names) {
    if (!MCP_TOOL_NAME.test(name) || !isPrintableLine(name)) {
      throw new ToolServersError('invalid_allowed_tools', `${JSON.stringify(name.slice(0, 130))} is not a tool name`);
    }
  }
  const unique = [...new Set(names)];
  if (unique.length > MAX_ALLOWED_TOOLS) {
    throw new ToolServersError('invalid_allowed_tools', `allow at most ${MAX_ALLOWED_TOOLS} tools of one server`);
  }
  return unique;
}

/** Seconds as the command line (digits) or a JSON body (an integer) gives them. */
export function timeoutMs(seconds: string | number | undefined): number {
  if (seconds === undefined) return DEFAULT_TIMEOUT_MS;
  const value =
    typeof seconds === 'number'
      ? Number.isInteger(seconds)
        ? seconds
        : NaN
      : /^[0-9]{1,4}$/.test(seconds)
        ? Number(seconds)
        : NaN;
  if (!(value >= 1 && value <= MAX_TIMEOUT_SECONDS)) {
    throw new ToolServersError('invalid_timeout', `the timeout is 1-${MAX_TIMEOUT_SECONDS} seconds`);
  }
  return value * 1000;
}

/** The name the model calls a server's tool by; undefined when it would not be a valid agent tool name. */
export function agentToolName(server: string, tool: string): string | undefined {
  const name = `${server}__${tool}`;
  return AGENT_TOOL_NAME.test(name) ? name : undefined;
}
