import { Checks, RefuseUnknownFields, withCode } from '@fed/server';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateBy,
} from 'class-validator';
import { type ToolServerItem, type ToolServerState } from './tool-servers-admin.service';
import {
  MAX_ALLOWED_TOOLS,
  MAX_AUTH_HEADER,
  MAX_TIMEOUT_SECONDS,
  MAX_TOOL_NAME,
  MAX_URL,
  SERVER_NAME_RULE,
  isServerName,
} from './tool-server.rules';

// The request's shapes; the registry's own rules (tool-server.rules) are checked by the service, with the same
// code (invalid_parameter) whichever refuses.

const refusal = (message: string) => withCode('invalid_parameter', message);

/** @openapi {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,31}$"} */
function ToolServerName(): PropertyDecorator {
  return Checks(
    IsDefined(refusal('name is required')),
    ValidateBy({ name: 'isToolServerName', validator: { validate: isServerName } }, refusal(SERVER_NAME_RULE)),
  );
}

function ServerUrl(): PropertyDecorator {
  return Checks(
    IsString(refusal('url must be a string')),
    MaxLength(MAX_URL, refusal(`url is at most ${MAX_URL} characters`)),
  );
}

function AllowedToolNames(): PropertyDecorator {
  return Checks(
    IsArray(refusal('allowedTools must be a list of tool names')),
    ArrayMaxSize(MAX_ALLOWED_TOOLS, refusal(`allow at most ${MAX_ALLOWED_TOOLS} tools of one server`)),
    IsString({ ...refusal('each allowed tool is named by a string'), each: true }),
    MaxLength(MAX_TOOL_NAME, { ...refusal(`a tool name is at most ${MAX_TOOL_NAME} characters`), each: true }),
  );
}

/** A field that `add` requires, checked as `check` when given. */
function Required(field: string, check: PropertyDecorator): PropertyDecorator {
  return Checks(IsDefined(refusal(`${field} is required`)), check);
}

function RequiredServerUrl(): PropertyDecorator {
  return Required('url', ServerUrl());
}

function RequiredAllowedToolNames(): PropertyDecorator {
  return Required('allowedTools', AllowedToolNames());
}

function AuthHeader(): PropertyDecorator {
  return Checks(
    IsString(refusal('authHeader must be a string')),
    MaxLength(MAX_AUTH_HEADER, refusal(`authHeader is at most ${MAX_AUTH_HEADER} characters`)),
  );
}

function TimeoutSeconds(): PropertyDecorator {
  const message = `timeoutSeconds is an integer from 1 to ${MAX_TIMEOUT_SECONDS}`;
  return Checks(IsInt(refusal(message)), Min(1, refusal(message)), Max(MAX_TIMEOUT_SECONDS, refusal(message)));
}

/** A server is named in the path by its name; a name of the wrong shape names none (404). */
export class ToolServerNameParams {
  @IsString()
  name!: string;
}

/** What `platformctl toolservers add` takes. */
export class CreateToolServerBody {
  /** `<name>__<tool>` is what the agent calls a tool by; never changes. */
  @ToolServerName()
  name!: string;

  /** The server's streamable HTTP endpoint, on a public address unless TOOLSERVER_ALLOW_PRIVATE_ADDRESSES=true. */
  @RequiredServerUrl()
  url!: string;

  /** The tools the agent may call, each by name (no `*`). */
  @RequiredAllowedToolNames()
  allowedTools!: string[];

  /** The `Authorization` header the server requires; stored encrypted and never shown again. */
  @IsOptional()
  @AuthHeader()
  authHeader?: string;

  /** Longest a call may take (default 15). */
  @IsOptional()
  @TimeoutSeconds()
  timeoutSeconds?: number;
}

/** Every field optional; an unknown one (such as `name`, which never changes) is refused, not ignored. */
@RefuseUnknownFields()
export class UpdateToolServerBody {
  @IsOptional()
  @ServerUrl()
  url?: string;

  @IsOptional()
  @AllowedToolNames()
  allowedTools?: string[];

  /** A new header, or null to send none. A new URL of another origin needs it given again. */
  @IsOptional()
  @AuthHeader()
  authHeader?: string | null;

  @IsOptional()
  @TimeoutSeconds()
  timeoutSeconds?: number;
}

export interface ToolServerToolResponse {
  name: string;
  description: string;
  /** The administrator allowed it. */
  allowed: boolean;
  /** The server listed it when last asked; an allowed tool it no longer lists is not offered to the agent. */
  offered: boolean;
  /** What the agent calls it (`<server>__<tool>`); null when that name would be too long (not offered). */
  agentToolName: string | null;
}

/** An approved server; its auth header is never shown, only whether it has one. */
export interface ToolServerResponse {
  name: string;
  url: string;
  auth: 'set' | 'none';
  enabled: boolean;
  /** `failing`: the last ask for its tools failed (`lastError`); the agent still offers the recorded tools. */
  state: ToolServerState;
  timeoutSeconds: number;
  allowedTools: string[];
  /** Every tool of the server's last listing, then the allowed ones it did not list. */
  tools: ToolServerToolResponse[];
  /** When the server was last asked for its tools (added, changed or refreshed). */
  lastRefreshedAt: string | null;
  /** Why that failed; null when it answered. */
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ToolServerListResponse {
  toolServers: ToolServerResponse[];
  total: number;
  limit: number;
  page: number;
  hasMore: boolean;
}

export interface ToolServerDeletedResponse {
  name: string;
  deleted: true;
}

export function toToolServerResponse(item: ToolServerItem): ToolServerResponse {
  return {
    name: item.name,
    url: item.url,
    auth: item.auth,
    enabled: item.enabled,
    state: item.state,
    timeoutSeconds: item.timeoutMs / 1000,
    allowedTools: item.allowedTools,
    tools: item.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      allowed: tool.allowed,
      offered: tool.offered,
      agentToolName: tool.agentToolName,
    })),
    lastRefreshedAt: item.refreshedAt?.toISOString() ?? null,
    lastError: item.refreshError,
    createdAt: item.createdAt.toISOString(),
    updatedAt: item.updatedAt.toISOString(),
  };
}
