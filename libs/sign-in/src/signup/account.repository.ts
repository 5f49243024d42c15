import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type UserStatus } from '@fed/identity/internal';

export interface AccountRecord {
  id: string;
  email: string;
  username: string;
  status: UserStatus;
  /** False for identity-provider-only users: no password to reset. */
  hasPassword: boolean;
}

const COLUMNS = `"id", "email", "username", "status", "password_hash" IS NOT NULL AS "hasPassword"`;

/** By e-mail address only (a username is never an address here). */
@Injectable()
export class AccountRepository {
  constructor(private readonly dataSource: DataSource) {}

  async byEmail(email: string): Promise<AccountRecord | undefined> {
    const [row] = (await this.dataSource.query(`SELECT ${COLUMNS} FROM "identity"."users" WHERE "email" = $1`, [
      email,
    ])) as AccountRecord[];
    return row;
  }

  async byId(id: string): Promise<AccountRecord | undefined> {
    const [row] = (await this.dataSource.query(`SELECT ${COLUMNS} FROM "identity"."users" WHERE "id" = $1`, [
      id,
    ])) as AccountRecord[];
    return row;
  }

  /** Whether an enterprise tenant's users of this e-mail domain sign in at its own identity provider. */
  async organizationDomain(domain: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM "identity"."tenant_idp_domains" WHERE "domain" = $1 LIMIT 1`,
      [domain],
    )) as unknown[];
    return rows.length > 0;
  }

  /** Whether a login form would find someone by this name (as a username, or as an address). */
  async loginTaken(name: string): Promise<boolean> {
    const rows = (await this.dataSource.query(
      `SELECT 1 FROM "identity"."users" WHERE "username" = $1 OR "email" = $1 LIMIT 1`,
      [name],
    )) as unknown[];
    return rows.length > 0;
  }
}
