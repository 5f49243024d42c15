import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { SigningKeyEntity } from './signing-key.entity';

// Transaction-scoped, so it also works on the embedded PostgreSQL (one shared session).
const ROTATION_LOCK = "hashtext('identity.signing_keys')";

@Injectable()
export class SigningKeyRepository {
  constructor(private readonly dataSource: DataSource) {}

  locked<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(${ROTATION_LOCK})`);
      return work(manager);
    });
  }

  all(manager: EntityManager = this.dataSource.manager): Promise<SigningKeyEntity[]> {
    return manager.find(SigningKeyEntity, { order: { activatesAt: 'ASC', createdAt: 'ASC' } });
  }

  published(now: Date): Promise<SigningKeyEntity[]> {
    return this.dataSource.manager
      .createQueryBuilder(SigningKeyEntity, 'key')
      .where('(key.expiresAt IS NULL OR key.expiresAt > :now)', { now })
      .andWhere('key.revokedAt IS NULL')
      .orderBy('key.activatesAt', 'ASC')
      .getMany();
  }

  signingAt(now: Date, manager: EntityManager = this.dataSource.manager): Promise<SigningKeyEntity | null> {
    return manager
      .createQueryBuilder(SigningKeyEntity, 'key')
      .where('key.activatesAt <= :now', { now })
      .andWhere('(key.retiredAt IS NULL OR key.retiredAt > :now)', { now })
      .andWhere('key.revokedAt IS NULL')
      .orderBy('key.activatesAt', 'DESC')
      .getOne();
  }

  find(manager: EntityManager, kid: string): Promise<SigningKeyEntity | null> {
    return manager.findOneBy(SigningKeyEntity, { kid });
  }

  revoke(manager: EntityManager, kid: string, at: Date): Promise<unknown> {
    return manager.update(SigningKeyEntity, { kid }, { revokedAt: at });
  }

  insert(manager: EntityManager, key: SigningKeyEntity): Promise<unknown> {
    return manager.insert(SigningKeyEntity, key);
  }

  /** Keys announced but never used to sign: a newer rotation supersedes them. */
  deleteNotYetActive(manager: EntityManager, now: Date): Promise<unknown> {
    return manager.createQueryBuilder().delete().from(SigningKeyEntity).where('activates_at > :now', { now }).execute();
  }

  /** Both null: the key signs on with no end planned. */
  retire(manager: EntityManager, kid: string, retiredAt: Date | null, expiresAt: Date | null): Promise<unknown> {
    return manager.update(SigningKeyEntity, { kid }, { retiredAt, expiresAt });
  }
}
