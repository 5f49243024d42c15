import { type RoleChangedV1 } from '@fed/contracts';
import { type Signals, type Subscription } from '@fed/bus';

export interface CurrentRolesOptions {
  /** Tokens are accepted up to this long past `exp`; a change is kept that much longer. */
  clockSkewSeconds: number;
  /** The verifier refuses tokens older than this; a change is kept that long. */
  maxTokenAgeSeconds: number;
  sweepIntervalMs?: number;
  /** Epoch milliseconds; tests move it. */
  now?: () => number;
}

export interface RoleHolder {
  readonly subject: string;
  /** `realm_access.roles` when the token was signed. */
  readonly roles: readonly string[];
}

export type UserRole = RoleChangedV1['role'];

const DEFAULT_SWEEP_INTERVAL_MS = 60_000;

/**
 * Recent role changes from the retained `auth.role-changed` signal. A change known here is newer than any
 * still-accepted token, so it beats the token's claim until every token signed before it has expired.
 */
export class CurrentRoles {
  /** sub -> the latest change, and Unix seconds after which it may go. */
  private readonly changes = new Map<string, { role: UserRole; changedAtMs: number; forgetAfter: number }>();
  private subscription: Subscription | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private readonly now: () => number;

  constructor(private readonly options: CurrentRolesOptions) {
    this.now = options.now ?? Date.now;
  }

  get size(): number {
    return this.changes.size;
  }

  /** Of two changes of one user, the later one holds, whatever order they arrive in. */
  roleChanged(subject: string, role: UserRole, changedAtMs: number): void {
    const current = this.changes.get(subject);
    if (current && current.changedAtMs > changedAtMs) return;
    const forgetAfter = changedAtMs / 1000 + this.options.maxTokenAgeSeconds + this.options.clockSkewSeconds;
    if (forgetAfter <= this.now() / 1000) return;
    this.changes.set(subject, { role, changedAtMs, forgetAfter });
    this.startSweeping();
  }

  isAdmin(token: RoleHolder): boolean {
    const change = this.changes.size > 0 ? this.changes.get(token.subject) : undefined;
    return change ? change.role === 'admin' : token.roles.includes('admin');
  }

  /** Subscribes to `auth.role-changed`, then reads what was retained of it before this instance started. */
  async attach(signals: Signals): Promise<void> {
    await this.detach();
    this.subscription = await signals.subscribe('auth.role-changed', (signal) => this.onRoleChanged(signal));
    for (const signal of await signals.retained('auth.role-changed')) this.onRoleChanged(signal);
  }

  async detach(): Promise<void> {
    const subscription = this.subscription;
    this.subscription = undefined;
    this.stopSweeping();
    await subscription?.unsubscribe();
  }

  sweep(): void {
    const now = this.now() / 1000;
    for (const [subject, change] of this.changes) if (change.forgetAfter <= now) this.changes.delete(subject);
    if (this.changes.size === 0) this.stopSweeping();
  }

  // From the wire: anything malformed is ignored rather than trusted.
  private onRoleChanged(signal: RoleChangedV1): void {
    if (
      typeof signal?.subject === 'string' &&
      signal.subject !== '' &&
      (signal.role === 'admin' || signal.role === 'user') &&
      Number.isFinite(signal.changedAtMs)
    ) {
      this.roleChanged(signal.subject, signal.role, signal.changedAtMs);
    }
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), this.options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }

  private stopSweeping(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
