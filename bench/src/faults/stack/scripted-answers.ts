import { type ScriptedUpstream, type SseItem, type UpstreamStep } from '@fed/testing';

export interface AnswerShape {
  /** Text pieces of one answer. */
  pieces: number;
  /** Pause between two pieces: the answer takes about pieces × pauseMs. */
  pauseMs: number;
}

/**
 * Which provider calls fail: none, or every other one (in turn answered 500, and hung up before a byte),
 * so that of `n` calls `ceil(n / 2)` failed.
 */
export type ProviderFailures = 'none' | 'every-other-call';

const PIECE = /a(\d+)p(\d+) /g;

/** The text of piece `piece` (from 1) of answer `answer`: unique in a run, so a repeat or a gap shows. */
export function pieceText(answer: number, piece: number): string {
  return `a${answer}p${String(piece).padStart(3, '0')} `;
}

/**
 * What a text says about the scripted answers in it: the pieces, in order, and whether they are one
 * answer's pieces from the first on without a gap or a repeat (`prefix`), all of them (`complete`).
 */
export function readAnswer(text: string, piecesPerAnswer: number) {
  const pieces = [...text.matchAll(PIECE)].map((match) => ({ answer: Number(match[1]), piece: Number(match[2]) }));
  const seen = new Set<string>();
  let repeated = 0;
  for (const { answer, piece } of pieces) {
    const key = `${answer}.${piece}`;
    if (seen.has(key)) repeated++;
    seen.add(key);
  }
  const answers = new Set(pieces.map((p) => p.answer));
  const prefix = answers.size <= 1 && pieces.every((p, index) => p.piece === index + 1);
  const unexplained = text.replace(PIECE, '').trim();
  return {
    pieces: pieces.length,
    repeated,
    prefix: prefix && unexplained === '',
    complete: prefix && unexplained === '' && pieces.length === piecesPerAnswer,
  };
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null): SseItem {
  return {
    data: {
      id: 'chatcmpl-faults',
      object: 'chat.completion.chunk',
      created: 0,
      model: 'upstream-model',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    },
  };
}

/**
 * Keeps the scripted provider's queue filled with slow streamed answers (each answer's pieces
 * unique), and with failed calls between them when the scenario asks: every model call of every turn
 * takes the next step, so the provider never falls back to its quick echo.
 */
export class AnswerFeeder {
  private answers = 0;
  private failures = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly upstream: ScriptedUpstream,
    private readonly shape: AnswerShape,
    private readonly failing: ProviderFailures = 'none',
    /** Steps kept queued ahead of the calls. */
    private readonly ahead = 400,
  ) {
    this.topUp();
    this.timer = setInterval(() => this.topUp(), 100);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private topUp(): void {
    while (this.upstream.pendingSteps < this.ahead) {
      if (this.failing === 'every-other-call') {
        this.upstream.enqueue(
          ++this.failures % 2 === 1
            ? { kind: 'hangUp', path: '/v1/chat/completions' }
            : { kind: 'status', status: 500, path: '/v1/chat/completions' },
        );
      }
      this.upstream.enqueue(this.answer(++this.answers));
    }
  }

  private answer(answer: number): UpstreamStep {
    const events: SseItem[] = [chunk({ role: 'assistant', content: '' })];
    for (let piece = 1; piece <= this.shape.pieces; piece++) {
      if (piece > 1 && this.shape.pauseMs > 0) events.push({ delayMs: this.shape.pauseMs });
      events.push(chunk({ content: pieceText(answer, piece) }));
    }
    events.push(chunk({}, 'stop'), { data: '[DONE]' });
    return { kind: 'sse', path: '/v1/chat/completions', events };
  }
}
