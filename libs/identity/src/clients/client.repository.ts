import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ClientEntity } from './client.entity';

@Injectable()
export class ClientRepository {
  constructor(private readonly dataSource: DataSource) {}

  find(clientId: string): Promise<ClientEntity | null> {
    return this.dataSource.manager.findOneBy(ClientEntity, { clientId });
  }

  list(): Promise<ClientEntity[]> {
    return this.dataSource.manager.find(ClientEntity, { order: { clientId: 'ASC' } });
  }

  /** Inserts unless the id is taken; false when it was (atomic: no read-then-write race). */
  async insert(client: ClientEntity): Promise<boolean> {
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .insert()
      .into(ClientEntity)
      .values(client)
      .orIgnore()
      .returning('client_id')
      .execute();
    return result.raw.length === 1;
  }

  /** Replaces the secret hash; false when no such client. */
  async updateSecret(clientId: string, secretHash: Buffer, at: Date): Promise<boolean> {
    const result = await this.dataSource.manager.update(
      ClientEntity,
      { clientId },
      { secretHash, secretRotatedAt: at, updatedAt: at },
    );
    return result.affected === 1;
  }
}
