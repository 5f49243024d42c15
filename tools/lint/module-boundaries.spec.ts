import { execFileSync, spawnSync } from 'node:child_process';
import path from 'node:path';

// The boundary rule skips itself silently when Nx has no project graph; this proves it is live
// and forbids what the design forbids.
const root = path.resolve(__dirname, '../..');

interface LintMessage {
  ruleId: string | null;
  message: string;
}

// The real ESLint CLI (its config loader needs dynamic import, which Jest's VM does not offer).
async function boundaryErrors(filePath: string, code: string): Promise<string[]> {
  const run = spawnSync(
    path.join(root, 'node_modules/.bin/eslint'),
    ['--format', 'json', '--stdin', '--stdin-filename', path.join(root, filePath)],
    { cwd: root, input: code, encoding: 'utf8', env: { ...process.env, NX_DAEMON: 'false' } },
  );
  const [result] = JSON.parse(run.stdout) as { messages: LintMessage[] }[];
  return (result?.messages ?? []).filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
}

describe('module boundaries', () => {
  beforeAll(() => {
    execFileSync(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
      stdio: 'ignore',
    });
  }, 60_000);

  it('forbids contracts from depending on any other lib', async () => {
    const errors = await boundaryErrors(
      'libs/contracts/src/probe.ts',
      "import { loadConfig } from '@fed/config';\nexport const x = loadConfig;\n",
    );
    expect(errors).toEqual([expect.stringContaining('type:contracts')]);
  }, 30_000);

  it('forbids an infrastructure lib from importing an app', async () => {
    const errors = await boundaryErrors(
      'libs/bus/src/probe.ts',
      "import { ChatServiceModule } from '@fed/apps/chat-service';\nexport const x = ChatServiceModule;\n",
    );
    expect(errors.length).toBeGreaterThan(0);
  }, 30_000);

  it('forbids one service app from importing another', async () => {
    const errors = await boundaryErrors(
      'apps/chat-service/src/probe.ts',
      "import { LlmGatewayModule } from '@fed/apps/llm-gateway';\nexport const x = LlmGatewayModule;\n",
    );
    expect(errors).toEqual([expect.stringContaining('Imports of apps are forbidden')]);
  }, 30_000);

  it('allows an app to use infrastructure libs', async () => {
    const errors = await boundaryErrors(
      'apps/chat-service/src/probe.ts',
      "import { runService } from '@fed/server';\nexport const x = runService;\n",
    );
    expect(errors).toEqual([]);
  }, 30_000);
});
