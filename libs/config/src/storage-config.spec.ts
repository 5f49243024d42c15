import { ConfigError, loadConfig } from './service-config';

const serviceEnv = { DATABASE_URL: 'postgres://app@db:5432/fed', REDIS_URL: 'redis://redis:6379' };

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.map((p) => `${p.variable}: ${p.problem}`);
    throw error;
  }
  return [];
}

describe('blob storage configuration', () => {
  it('keeps blobs in a directory by default: DATA_DIR/blobs in platform, a shared volume path in services', () => {
    expect(loadConfig('platform', { DATA_DIR: '/var/fed' }).storage).toEqual({
      kind: 'fs',
      dir: '/var/fed/blobs',
      s3: { region: 'us-east-1', forcePathStyle: false },
    });
    expect(loadConfig('chat-service', serviceEnv).storage.dir).toBe('/var/lib/federation/blobs');
    expect(loadConfig('agent-protocols', serviceEnv).storage.kind).toBe('fs');
    expect(loadConfig('platformctl', { BLOB_DIR: 'blobs' }, '/srv').storage.dir).toBe('/srv/blobs');
  });

  it('gives the storage section only to apps that keep file bytes', () => {
    // @ts-expect-error llm-gateway reads no storage variable
    expect(loadConfig('llm-gateway', serviceEnv).storage).toBeUndefined();
    expect(loadConfig('agent-runtime', serviceEnv).storage).toBeDefined();
  });

  it('reads an S3 bucket with its endpoint, credentials and path style', () => {
    const storage = loadConfig('chat-service', {
      ...serviceEnv,
      BLOB_STORE: 's3',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_REGION: 'eu-west-1',
      S3_BUCKET: 'fed-files',
      S3_ACCESS_KEY_ID: 'AKIA1',
      S3_SECRET_ACCESS_KEY: 'hunter2',
      S3_FORCE_PATH_STYLE: 'true',
    }).storage;
    expect(storage.kind).toBe('s3');
    expect(storage.s3).toEqual({
      endpoint: 'http://minio:9000',
      region: 'eu-west-1',
      bucket: 'fed-files',
      accessKeyId: 'AKIA1',
      secretAccessKey: 'hunter2',
      forcePathStyle: true,
    });
  });

  it('refuses to start with BLOB_STORE=s3 and no S3_BUCKET', () => {
    expect(problemsOf(() => loadConfig('chat-service', { ...serviceEnv, BLOB_STORE: 's3' }))).toEqual([
      'S3_BUCKET: is required when BLOB_STORE is s3',
    ]);
  });

  it('refuses half of a static S3 credential', () => {
    expect(problemsOf(() => loadConfig('platform', { S3_ACCESS_KEY_ID: 'AKIA1' }))).toEqual([
      'S3_SECRET_ACCESS_KEY: is required when S3_ACCESS_KEY_ID is set',
    ]);
  });

  it('names a bad store, bucket or flag', () => {
    expect(
      problemsOf(() =>
        loadConfig('platform', { BLOB_STORE: 'gcs', S3_BUCKET: 'Bad_Bucket', S3_FORCE_PATH_STYLE: 'yes' }),
      ).map((problem) => problem.split(':')[0]),
    ).toEqual(['BLOB_STORE', 'S3_BUCKET', 'S3_FORCE_PATH_STYLE']);
  });

  it('never echoes a refused S3 secret', () => {
    const problems = problemsOf(() => loadConfig('platform', { S3_SECRET_ACCESS_KEY: ' ' }));
    expect(problems.join('\n')).toContain('S3_SECRET_ACCESS_KEY');
    expect(problems.join('\n')).not.toContain('"');
  });
});
