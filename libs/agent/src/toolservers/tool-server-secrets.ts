import { type AppName } from '@fed/config';
import { keyEncryptionFor } from '@fed/identity';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Auth header values at rest: AES-256-GCM with the server's id as associated data, so a value copied onto another
 * server's row does not open. Layout: version | iv | tag | ciphertext.
 */
export class ToolServerSecrets {
  private key?: Promise<Buffer>;

  /** `key`: the key, or how to get it when first needed (a derived key is not made just to start). */
  constructor(private readonly source: Buffer | (() => Promise<Buffer>)) {}

  async seal(value: string, serverId: string): Promise<Buffer> {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', await this.theKey(), iv);
    cipher.setAAD(associatedData(serverId));
    const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /** The value, or undefined when this key did not seal it (another TOOLSERVER_SECRET_KEY, or an altered row). */
  async open(sealed: Buffer, serverId: string): Promise<string | undefined> {
    if (sealed.length <= 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT_VERSION) return undefined;
    const key = await this.theKey();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(associatedData(serverId));
      decipher.setAuthTag(sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }

  private theKey(): Promise<Buffer> {
    this.key ??= (Buffer.isBuffer(this.source) ? Promise.resolve(this.source) : this.source()).then((key) => {
      if (key.length !== 32) throw new RangeError('the tool-server secret key must be 32 bytes');
      return key;
    });
    return this.key;
  }
}

function associatedData(serverId: string): Buffer {
  return Buffer.from(`fed.agent.tool-server:${serverId}`, 'utf8');
}

/** The configuration that decides the key (any app's: sections it lacks are absent at run time). */
export interface SecretKeyConfig {
  app: AppName;
  dataDir?: string;
  toolServers?: { secretKey?: string };
  signingKeys?: { encryptionKey?: string };
}

/**
 * TOOLSERVER_SECRET_KEY, else (`platform`, `platformctl`) a key derived by HKDF from the key-encryption key those
 * apps hold anyway. The distributed agent-runtime and chat-service never hold it, so they need the variable.
 */
export function toolServerSecretsFor(config: SecretKeyConfig): ToolServerSecrets | undefined {
  const configured = config.toolServers?.secretKey;
  if (configured) return new ToolServerSecrets(Buffer.from(configured, 'base64'));
  const { signingKeys, dataDir } = config;
  if ((config.app !== 'platform' && config.app !== 'platformctl') || !signingKeys || !dataDir) return undefined;
  return new ToolServerSecrets(async () => {
    const keyEncryption = await keyEncryptionFor({ signingKeys, dataDir } as Parameters<typeof keyEncryptionFor>[0]);
    return keyEncryption.derive('tool-server-auth-headers');
  });
}
