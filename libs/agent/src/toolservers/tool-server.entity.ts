import { Column, Entity, PrimaryColumn, Unique } from 'typeorm';

/** A tool of the server as recorded when the server was added or refreshed (MCP `tools/list`). */
export interface RecordedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** `_meta.ui.resourceUri` of the tool (MCP Apps): the `ui://` resource its calls show. */
  uiResourceUri?: string;
  /** The tool's `_meta.ui` as declared (visibility and other hints), without `resourceUri`. */
  ui?: Record<string, unknown>;
}

/** A tool of the server's last listing, allowed or not: what an operator chooses the allowed ones from. */
export interface OfferedTool {
  name: string;
  description: string;
}

// An external MCP tool server an administrator approved (platformctl toolservers). The agent runtime
// offers the recorded allowed tools of each enabled server as `<name>__<tool>`.
@Entity({ schema: 'agent', name: 'tool_servers' })
@Unique('tool_servers_name_key', ['name'])
export class ToolServerEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tool_servers_pkey' })
  id!: string;

  /** `server_name` of its UI resources; `^[a-z0-9][a-z0-9_-]{0,31}$`. */
  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  url!: string;

  /** The `Authorization` header value, sealed (tool-server-secrets.ts); null: none. Never shown back. */
  @Column({ type: 'bytea', nullable: true })
  authHeader!: Buffer | null;

  /** Tool names the administrator allowed, each by name; empty: none. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  allowedTools!: string[];

  /** The allowed tools that the server listed when last added or refreshed. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  tools!: RecordedTool[];

  /** Every tool the server listed when last added, changed or refreshed successfully. */
  @Column({ type: 'jsonb', default: () => "'[]'" })
  offeredTools!: OfferedTool[];

  /** When the server was last asked for its tools (add, change, refresh); null: never since the column came. */
  @Column({ type: 'timestamptz', nullable: true })
  refreshedAt!: Date | null;

  /** Why that last ask failed; null: it answered. The recorded tools are still the last successful listing's. */
  @Column({ type: 'text', nullable: true })
  refreshError!: string | null;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  /** Longest a call (connect, tool call, resource read) may take. */
  @Column({ type: 'integer', default: 15000 })
  timeoutMs!: number;

  @Column({ type: 'timestamptz' })
  createdAt!: Date;

  @Column({ type: 'timestamptz' })
  updatedAt!: Date;
}

export const toolServerEntities = [ToolServerEntity];
