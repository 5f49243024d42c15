import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import { ChatClient, type TurnRecord } from '../clients/chat-client';
import { type TurnCounts, auditTurns } from '../clients/turn-audit';
import { FaultStack, type StackOptions } from '../stack/fault-stack';
import { type AnswerShape } from '../stack/scripted-answers';

export interface ScenarioContext {
  distRoot: string;
  /** Small counts (the CI subset). */
  quick: boolean;
  /** Progress lines. */
  log(line: string): void;
}

/** One row of the results table. Counts are numbers; '-' where a column does not apply. */
export interface ScenarioRow {
  turns: number | string;
  completed: number | string;
  errorChunks: number | string;
  /** Streams that ended without a final chunk, or "completed" answers with pieces missing. */
  cut: number | string;
  /** Turns whose POST was never answered 200 (503s are retried until the deadline). */
  notStarted: number | string;
  hanging: number | string;
  lost: number | string;
  duplicated: number | string;
}

export interface ScenarioResult {
  name: string;
  title: string;
  row: ScenarioRow;
  pass: boolean;
  /** What failed, or what else was seen (reconnects, error codes, provider failures). */
  notes: string[];
  seconds: number;
  /** Set when the scenario could not run here (e.g. no PostgreSQL server binaries). */
  skipped?: string;
  counts?: TurnCounts;
}

export interface Scenario {
  name: string;
  title: string;
  /** Runs in `npm test` (faults-quick.spec.ts) with the quick counts. */
  inQuickSubset: boolean;
  run(context: ScenarioContext): Promise<ScenarioResult>;
}

/** Settings every scenario's services share; quick runs take crashed runtimes' turns back sooner. */
export function stackEnv(context: ScenarioContext): Record<string, string> {
  return context.quick ? { AGENT_STALL_SECONDS: '4', AGENT_CONCURRENCY: '60' } : { AGENT_CONCURRENCY: '60' };
}

/** `AGENT_STALL_SECONDS` in effect, in ms (the setting's default is 10). */
export function stallMs(context: ScenarioContext): number {
  return Number(stackEnv(context).AGENT_STALL_SECONDS ?? 10) * 1000;
}

/** How long after the fault is over a client may still wait for its turn to end before it counts as hanging. */
export function graceMs(context: ScenarioContext, answers: AnswerShape): number {
  return answers.pieces * answers.pauseMs + 3 * stallMs(context) + (context.quick ? 15_000 : 60_000);
}

/** Turns of scripted clients against a stack, with a deadline that a scenario sets once its fault is over. */
export class TurnLoad {
  readonly records: Promise<TurnRecord[]>;
  private deadline = Date.now() + 15 * 60_000;
  private readonly client: ChatClient;

  constructor(
    private readonly stack: FaultStack,
    count: number,
    /** The turns start evenly over this many ms. */
    spreadMs: number,
  ) {
    this.client = new ChatClient({
      instances: () => stack.liveChats().map((chat) => chat.url),
      token: (userId) => stack.userToken(userId),
      deadline: () => this.deadline,
    });
    this.records = Promise.all(
      Array.from({ length: count }, async (_, index) => {
        await sleep(count > 1 ? (spreadMs * index) / (count - 1) : 0);
        return this.client.runTurn(randomUUID(), `turn ${index + 1}: please answer slowly`);
      }),
    );
  }

  /** From now on, a turn not ended within `ms` is hanging. */
  endWithin(ms: number): void {
    this.deadline = Date.now() + ms;
  }

  async finish(piecesPerAnswer: number, settleMs: number): Promise<TurnCounts> {
    const records = await this.records;
    this.client.close();
    return auditTurns(records, {
      chatUrl: () => (this.stack.liveChats()[0] ?? this.stack.chats[0])?.url as string,
      token: (userId) => this.stack.userToken(userId),
      piecesPerAnswer,
      settleMs,
    });
  }
}

/** Polls until `done` holds; false after `timeoutMs`. */
export async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Model calls the provider has received (each turn's answer starts with one). */
export function modelCalls(stack: FaultStack): number {
  return stack.upstream.requests.filter((request) => request.path.startsWith('/v1/chat/completions')).length;
}

/** The invariants every scenario keeps: nobody hangs, nothing is lost, duplicated, cut or left processing. */
export function invariantProblems(
  counts: TurnCounts,
  options: {
    /** No turn may end with an error chunk either ("no answer cut"). */
    noErrorChunks?: boolean;
    /** The fault makes the service refuse new turns for a while (its dependency is down): reported, not failed. */
    refusalsExpected?: boolean;
  } = {},
): string[] {
  const problems: string[] = [];
  const check = (value: number, what: string) => {
    if (value > 0) problems.push(`${value} ${what}`);
  };
  check(counts.hanging, 'hanging');
  check(counts.lost, 'lost');
  check(counts.duplicated, 'duplicated');
  check(counts.cut, 'cut (no final chunk, or an answer missing pieces)');
  check(counts.mismatched, 'stored text not what was streamed');
  check(counts.stuck, 'left processing');
  if (!options.refusalsExpected) check(counts.refused, `not started (${describe(counts.refusals)})`);
  check(counts.unfinished, 'unfinished without error');
  if (options.noErrorChunks) check(counts.errorChunks, `ended with an error chunk (${describe(counts.errorCodes)})`);
  return problems;
}

export function describe(counts: Record<string, number>): string {
  return Object.entries(counts)
    .map(([key, count]) => `${key} × ${count}`)
    .join(', ');
}

/** The table row and notes of a turn scenario. */
export function turnResult(
  scenario: Pick<Scenario, 'name' | 'title'>,
  counts: TurnCounts,
  problems: string[],
  extraNotes: string[],
  startedAt: number,
): ScenarioResult {
  const notes = [...problems];
  if (counts.errorChunks > 0 && !problems.some((p) => p.includes('error chunk'))) {
    notes.push(`error chunks: ${describe(counts.errorCodes)}`);
  }
  if (counts.refused > 0 && !problems.some((p) => p.includes('not started'))) {
    notes.push(`not started: ${describe(counts.refusals)}`);
  }
  if (counts.reconnects > 0) notes.push(`${counts.reconnects} reconnects with Last-Event-ID`);
  notes.push(...extraNotes);
  return {
    name: scenario.name,
    title: scenario.title,
    row: {
      turns: counts.turns,
      completed: counts.completed,
      errorChunks: counts.errorChunks,
      cut: counts.cut,
      notStarted: counts.refused,
      hanging: counts.hanging,
      lost: counts.lost,
      duplicated: counts.duplicated,
    },
    pass: problems.length === 0,
    notes,
    seconds: Math.round((Date.now() - startedAt) / 1000),
    counts,
  };
}

/** The row of a scenario without figures: skipped here, or broken before it could count. */
export const NO_FIGURES: ScenarioRow = {
  turns: '-',
  completed: '-',
  errorChunks: '-',
  cut: '-',
  notStarted: '-',
  hanging: '-',
  lost: '-',
  duplicated: '-',
};

/** The row of a scenario that cannot run on this machine. */
export function skippedResult(scenario: Pick<Scenario, 'name' | 'title'>, reason: string): ScenarioResult {
  return {
    name: scenario.name,
    title: scenario.title,
    row: NO_FIGURES,
    pass: true,
    notes: [],
    seconds: 0,
    skipped: reason,
  };
}

/** Boots a stack, runs `work`, and always closes the stack. */
export async function withStack<T>(options: StackOptions, work: (stack: FaultStack) => Promise<T>): Promise<T> {
  const stack = await FaultStack.start(options);
  try {
    return await work(stack);
  } finally {
    await stack.close();
  }
}

/** A figure of the quick subset and its counterpart in the full run. */
export interface Sized<T> {
  quick: T;
  full: T;
}

/** What a turn scenario's fault is given: the booted stack with its turns under way. */
export interface TurnFault {
  stack: FaultStack;
  turns: number;
  answers: AnswerShape;
  context: ScenarioContext;
}

/** What a fault adds to the verdict; the functions are called once every turn has ended. */
export interface TurnFaultOutcome {
  /** Lines after the problems and what the counts show. */
  notes?: string[] | ((counts: TurnCounts) => string[]);
  /** Failures beyond the invariants. */
  problems?: (counts: TurnCounts) => string[];
}

export interface TurnScenarioOptions extends Omit<Scenario, 'run'> {
  turns: Sized<number>;
  answers: Sized<AnswerShape>;
  /** The turns start evenly over this many ms. */
  spreadMs: Sized<number>;
  stack: Pick<StackOptions, 'chatInstances' | 'runtimes' | 'redis' | 'postgres' | 'providerFailures'>;
  /** Why the scenario cannot run on this machine, if it cannot; asked before anything starts. */
  unavailable?: () => string | undefined;
  /** The fault strikes two answer pauses after this many turns have reached the provider; unset: at once. */
  faultAfter?: (turns: number) => number;
  /** Once the fault is over, a turn not ended within this many ms is hanging; by default graceMs. */
  endWithinMs?: Sized<number>;
  invariants?: Parameters<typeof invariantProblems>[1];
  fault: (run: TurnFault) => Promise<TurnFaultOutcome>;
}

/**
 * The scenarios of turns under a fault: a stack boots, scripted clients start their turns, the fault
 * strikes, and every turn is audited against the invariants once it has ended.
 */
export function turnScenario(options: TurnScenarioOptions): Scenario {
  const { name, title, inQuickSubset } = options;
  return {
    name,
    title,
    inQuickSubset,
    run: async (context) => {
      const startedAt = Date.now();
      const reason = options.unavailable?.();
      if (reason) return skippedResult(options, reason);
      const sized = <T>(figure: Sized<T>): T => (context.quick ? figure.quick : figure.full);
      const turns = sized(options.turns);
      const answers = sized(options.answers);
      return withStack(
        { distRoot: context.distRoot, ...options.stack, answers, env: stackEnv(context) },
        async (stack) => {
          const load = new TurnLoad(stack, turns, sized(options.spreadMs));
          if (options.faultAfter) {
            const started = options.faultAfter(turns);
            await waitUntil(() => modelCalls(stack) >= started, 60_000);
            await sleep(answers.pauseMs * 2);
          }
          const outcome = await options.fault({ stack, turns, answers, context });
          load.endWithin(options.endWithinMs ? sized(options.endWithinMs) : graceMs(context, answers));
          const counts = await load.finish(answers.pieces, 3 * stallMs(context) + 10_000);
          const problems = [...invariantProblems(counts, options.invariants), ...(outcome.problems?.(counts) ?? [])];
          const notes = typeof outcome.notes === 'function' ? outcome.notes(counts) : (outcome.notes ?? []);
          return turnResult(options, counts, problems, notes, startedAt);
        },
      );
    },
  };
}
