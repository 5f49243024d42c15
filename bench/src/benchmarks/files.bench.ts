import { JwksServer, TestTokenIssuer } from '@fed/auth/testing';
import { testServiceUrls } from '@fed/config';
import { runMigrations } from '@fed/persistence';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type ChildServer, freePort, processUsage, startChildServer } from '../harness/child-server';
import { type Row, printTable, writeResult } from '../harness/report';
import { withScratchDatabase } from '../harness/scratch-database';
import { type Benchmark, type BenchmarkContext } from './benchmark';

/** Issue 16: uploads and downloads at >= 0.7x a plain copy of the same bytes on the same machine. */
const GOAL_RATIO = 0.7;
const MiB = 1024 * 1024;

const mbPerSecond = (bytes: number, ms: number) => bytes / MiB / (ms / 1000);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const verdict = (pass: boolean) => (pass ? 'ok' : 'MISSED');

/** A file of `bytes` incompressible bytes (1 MiB of random data, repeated). */
async function writeSource(file: string, bytes: number): Promise<void> {
  const block = randomBytes(MiB);
  const handle = await open(file, 'w');
  try {
    for (let written = 0; written < bytes; written += MiB) await handle.write(block, 0, Math.min(MiB, bytes - written));
  } finally {
    await handle.close();
  }
}

/**
 * The baseline: the same bytes read from a file and written to another with streams, the way the
 * store writes an upload (`flush`: fsync before close) or a client saves a download (no fsync).
 */
async function fsCopy(source: string, target: string, fsync: boolean): Promise<number> {
  const started = performance.now();
  await pipeline(createReadStream(source), createWriteStream(target, { flush: fsync }));
  const elapsed = performance.now() - started;
  rmSync(target, { force: true });
  return elapsed;
}

/** Runs curl (the client, in its own process, as wrk is elsewhere) and returns its wall time and output. */
function curl(args: string[]): Promise<{ ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    execFile('curl', ['--silent', '--show-error', ...args], { maxBuffer: MiB }, (error, stdout) => {
      if (error) reject(error);
      else resolve({ ms: performance.now() - started, stdout });
    });
  });
}

/** POST /api/v1/files with the file streamed from disk by curl; samples the server's RSS while it runs. */
async function upload(
  chat: ChildServer,
  token: string,
  source: string,
  work: string,
): Promise<{ ms: number; fileId: string; peakRssMiB: number; baseRssMiB: number }> {
  const baseRssMiB = processUsage(chat.pid).rssKiB / 1024;
  let peakRssMiB = baseRssMiB;
  const sampler = setInterval(() => {
    peakRssMiB = Math.max(peakRssMiB, processUsage(chat.pid).rssKiB / 1024);
  }, 10);
  const answer = path.join(work, 'upload-answer.json');
  try {
    const { ms, stdout } = await curl([
      '--output',
      answer,
      '--write-out',
      '%{http_code}',
      '--header',
      `authorization: Bearer ${token}`,
      '--form',
      'filename=bench.bin',
      '--form',
      `file=@${source};type=application/octet-stream`,
      `${chat.url}/api/v1/files`,
    ]);
    const body = readFileSync(answer, 'utf8');
    if (stdout.trim() !== '201') throw new Error(`upload answered ${stdout}: ${body}`);
    return { ms, fileId: (JSON.parse(body) as { fileId: string }).fileId, peakRssMiB, baseRssMiB };
  } finally {
    clearInterval(sampler);
  }
}

/** GET /api/v1/files/:id/content saved to a file by curl, as a client saves a download. */
async function download(chat: ChildServer, token: string, fileId: string, target: string): Promise<number> {
  const { ms, stdout } = await curl([
    '--output',
    target,
    '--write-out',
    '%{http_code}',
    '--header',
    `authorization: Bearer ${token}`,
    `${chat.url}/api/v1/files/${fileId}/content`,
  ]);
  const size = statSync(target).size;
  rmSync(target, { force: true });
  if (stdout.trim() !== '200' || size === 0) throw new Error(`the download answered ${stdout} with ${size} bytes`);
  return ms;
}

async function run({ distRoot, resultsDir, quick }: BenchmarkContext, databaseUrl: string): Promise<void> {
  const bytes = (quick ? 64 : 256) * MiB;
  const rounds = quick ? 1 : 3;
  const work = mkdtempSync(path.join(os.tmpdir(), 'fed-bench-files-'));
  const issuer = await TestTokenIssuer.create();
  const jwks = await JwksServer.start(() => issuer.jwks());
  let chat: ChildServer | undefined;
  const profile = process.env.BENCH_FILES_CPU_PROFILE;
  try {
    await runMigrations(databaseUrl);
    const source = path.join(work, 'source.bin');
    await writeSource(source, bytes);
    const port = await freePort();
    chat = await startChildServer({
      script: path.join(distRoot, 'apps/chat-service/src/main.js'),
      env: {
        DATABASE_URL: databaseUrl,
        REDIS_URL: testServiceUrls().redisUrl,
        HOST: '127.0.0.1',
        PORT: String(port),
        AUTH_URL: issuer.issuer.replace(/\/realms\/federation$/, ''),
        AUTH_JWKS_URL: jwks.url,
        BLOB_STORE: 'fs',
        // Same filesystem as the source and the baseline's copies.
        BLOB_DIR: path.join(work, 'blobs'),
        LOG_LEVEL: 'warn',
        // BENCH_FILES_CPU_PROFILE=<file>: chat-service writes a V8 CPU profile there.
        ...(profile
          ? {
              NODE_OPTIONS: `--require ${path.join(distRoot, 'bench/src/harness/cpu-profile-preload.js')}`,
              FED_BENCH_CPU_PROFILE: path.resolve(profile),
            }
          : {}),
      },
      port,
      readyPath: '/readyz',
      readyTimeoutMs: 60_000,
    });
    const token = await issuer.mint({ scope: 'chat:file' });
    const copyTarget = path.join(work, 'copy.bin');

    const measured = {
      copyFsync: [] as number[],
      upload: [] as number[],
      copy: [] as number[],
      download: [] as number[],
    };
    let peakRssMiB = 0;
    let baseRssMiB = Infinity;
    for (let round = 0; round < rounds; round++) {
      measured.copyFsync.push(await fsCopy(source, copyTarget, true));
      const uploaded = await upload(chat, token, source, work);
      measured.upload.push(uploaded.ms);
      peakRssMiB = Math.max(peakRssMiB, uploaded.peakRssMiB);
      baseRssMiB = Math.min(baseRssMiB, uploaded.baseRssMiB);
      measured.copy.push(await fsCopy(source, copyTarget, false));
      measured.download.push(await download(chat, token, uploaded.fileId, path.join(work, 'download.bin')));
    }
    const rate = (ms: number[]) => mbPerSecond(bytes, median(ms));
    const uploadRatio = rate(measured.upload) / rate(measured.copyFsync);
    const downloadRatio = rate(measured.download) / rate(measured.copy);
    const size = `${bytes / MiB} MiB`;
    const rows: Row[] = [
      {
        measure: `fs copy with fsync (${size}), MB/s`,
        value: rate(measured.copyFsync).toFixed(0),
        goal: '',
        verdict: '',
      },
      {
        measure: `upload POST /v1/files (${size}), MB/s`,
        value: rate(measured.upload).toFixed(0),
        goal: '',
        verdict: '',
      },
      {
        measure: 'upload / fs copy with fsync',
        value: `${uploadRatio.toFixed(2)}x`,
        goal: `>= ${GOAL_RATIO}x`,
        verdict: verdict(uploadRatio >= GOAL_RATIO),
      },
      { measure: `fs copy (${size}), MB/s`, value: rate(measured.copy).toFixed(0), goal: '', verdict: '' },
      {
        measure: `download GET content (${size}), MB/s`,
        value: rate(measured.download).toFixed(0),
        goal: '',
        verdict: '',
      },
      {
        measure: 'download / fs copy',
        value: `${downloadRatio.toFixed(2)}x`,
        goal: `>= ${GOAL_RATIO}x`,
        verdict: verdict(downloadRatio >= GOAL_RATIO),
      },
      {
        measure: 'chat-service RSS during upload, MiB',
        value: `${Math.round(peakRssMiB)} peak (${Math.round(baseRssMiB)} before)`,
        goal: '',
        verdict: '',
      },
    ];
    printTable(`files: chat-service upload and download, median of ${rounds} (MB = MiB)`, rows);
    const file = writeResult(resultsDir, 'files', {
      quick,
      bytes,
      rounds,
      millis: measured,
      mbPerSecond: {
        copyFsync: rate(measured.copyFsync),
        upload: rate(measured.upload),
        copy: rate(measured.copy),
        download: rate(measured.download),
      },
      ratios: { upload: uploadRatio, download: downloadRatio },
      rssMiB: { beforeUpload: baseRssMiB, peakDuringUpload: peakRssMiB },
      table: rows,
    });
    process.stdout.write(`written ${file}\n`);
  } finally {
    await chat?.stop();
    await jwks.close();
    await issuer.close();
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Upload and download of a 256 MiB file through chat-service as deployed (its own process, the fs
 * blob store), each against a plain stream copy of the same bytes on the same disk: the upload
 * against a copy that fsyncs (as the store does), the download against one that does not (as a
 * client saving it). And the server's RSS while the upload streams.
 */
export const filesBenchmark: Benchmark = {
  name: 'files',
  description: 'POST /api/v1/files and GET content of a 256 MiB file: MB/s against a plain fs copy, peak RSS',
  run: (context) => withScratchDatabase((databaseUrl) => run(context, databaseUrl)),
};
