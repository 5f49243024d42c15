import { buildDist, repoRoot } from '@fed/testing';
import path from 'node:path';
import { type ScenarioResult, scenarios } from './scenarios';

/**
 * The quick subset of `npm run faults` (docs/reliability.md, "Fault injection"): the same scenarios with
 * small counts, against the distributed mode (each service a process from dist, PostgreSQL and Redis
 * of this machine).
 */
describe('fault injection, quick subset', () => {
  const distRoot = path.join(repoRoot, 'dist');

  beforeAll(() => buildDist(), 120_000);

  async function run(name: string): Promise<ScenarioResult> {
    const scenario = scenarios.find((s) => s.name === name);
    if (!scenario) throw new Error(`no scenario ${name}`);
    return scenario.run({ distRoot, quick: true, log: () => undefined });
  }

  /** The problems a failed scenario names (empty when it passed), so a failure says what went wrong. */
  const problems = (result: ScenarioResult) => (result.pass ? [] : result.notes);

  it('an agent-runtime killed mid-turn leaves no client hanging and no message lost; its turns end with runtime_lost', async () => {
    const result = await run('runtime-killed');
    expect(problems(result)).toEqual([]);
    expect(result.row).toMatchObject({ turns: 6, hanging: 0, lost: 0, duplicated: 0, cut: 0 });
    expect(result.counts?.errorCodes).toEqual(
      result.counts?.errorChunks ? { runtime_lost: result.counts.errorChunks } : {},
    );
  }, 120_000);

  it('a rolling restart of agent-runtime cuts no answer: every turn completes', async () => {
    const result = await run('runtime-rolling-restart');
    expect(problems(result)).toEqual([]);
    expect(result.row).toMatchObject({ turns: 10, completed: 10, errorChunks: 0, hanging: 0, lost: 0, duplicated: 0 });
  }, 120_000);

  it('clients of a killed chat-service reconnect to the other with Last-Event-ID and read every answer once, to its end', async () => {
    const result = await run('chat-killed');
    expect(problems(result)).toEqual([]);
    expect(result.row).toMatchObject({ turns: 10, completed: 10, hanging: 0, lost: 0, duplicated: 0 });
    expect(result.counts?.reconnects).toBeGreaterThan(0);
  }, 120_000);

  it('a provider failing every other call loses nothing: turns complete or end with model_unavailable', async () => {
    const result = await run('provider-failing');
    expect(problems(result)).toEqual([]);
    expect(result.row).toMatchObject({ turns: 10, hanging: 0, lost: 0, duplicated: 0, cut: 0 });
    expect(Object.keys(result.counts?.errorCodes ?? {}).filter((code) => code !== 'model_unavailable')).toEqual([]);
  }, 120_000);

  it('approvals succeed while the SMTP server is down, and each e-mail arrives once after it is back', async () => {
    const result = await run('smtp-down');
    expect(problems(result)).toEqual([]);
    expect(result.row).toMatchObject({ hanging: 0, lost: 0, duplicated: 0 });
  }, 120_000);
});
