import { useTestDatabase } from '../testing';
import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { snakeCase } from './snake-naming.strategy';

@Entity({ schema: 'identity' })
class ExampleAccount {
  @PrimaryGeneratedColumn('uuid')
  accountId!: string;

  @Column()
  displayName!: string;

  @Column({ type: 'text', name: 'legacyName', nullable: true })
  oldName!: string | null;

  @ManyToOne(() => ExampleAccount, { nullable: true })
  @JoinColumn()
  invitedBy!: ExampleAccount | null;
}

describe('snakeCase', () => {
  it.each([
    ['conversationId', 'conversation_id'],
    ['toolCallId', 'tool_call_id'],
    ['userID', 'user_id'],
    ['HTTPServer', 'http_server'],
    ['ExampleAccount', 'example_account'],
    ['already_snake', 'already_snake'],
    ['sha256Digest', 'sha256_digest'],
  ])('writes %s as %s', (name, expected) => {
    expect(snakeCase(name)).toBe(expected);
  });
});

describe('the snake_case naming strategy', () => {
  const database = useTestDatabase({ entities: [ExampleAccount] });

  it('names tables, columns and join columns in snake_case and keeps explicit names', () => {
    const metadata = database.dataSource.getMetadata(ExampleAccount);
    expect(metadata.tablePath).toBe('identity.example_account');
    expect(metadata.columns.map((column) => column.databaseName).sort()).toEqual([
      'account_id',
      'display_name',
      'invited_by_account_id',
      'legacyName',
    ]);
  });

  it('reads and writes a table created by hand-written snake_case SQL', async () => {
    await database.dataSource.query(`
      CREATE TABLE identity.example_account (
        account_id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        display_name text NOT NULL,
        "legacyName" text,
        invited_by_account_id uuid REFERENCES identity.example_account (account_id)
      )`);
    const accounts = database.dataSource.getRepository(ExampleAccount);
    const inviter = await accounts.save({ displayName: 'Ada', oldName: null, invitedBy: null });
    await accounts.save({ displayName: 'Grace', oldName: 'G.', invitedBy: inviter });

    const grace = await accounts.findOneOrFail({ where: { displayName: 'Grace' }, relations: { invitedBy: true } });
    expect(grace.invitedBy?.accountId).toBe(inviter.accountId);
    expect(grace.oldName).toBe('G.');
  });
});
