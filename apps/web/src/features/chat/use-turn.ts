import { useCallback, useReducer, useRef } from 'react';
import { useAuth } from '../../lib/auth/auth-context';
import { readWebConfig } from '../../lib/web-config';
import { cancelTurn, readTurnStream, startTurn } from './stream/turn-stream';
import { type StreamEvent, type TurnView, emptyTurn, reduceTurn } from './stream/turn-view';

export interface Exchange {
  question: string;
  answer: TurnView;
}

type Action =
  { kind: 'ask'; question: string } | { kind: 'event'; event: StreamEvent } | { kind: 'refused'; message: string };

function reduceExchanges(exchanges: Exchange[], action: Action): Exchange[] {
  if (action.kind === 'ask') return [...exchanges, { question: action.question, answer: emptyTurn }];
  const last = exchanges[exchanges.length - 1];
  if (!last) return exchanges;
  const answer =
    action.kind === 'event'
      ? reduceTurn(last.answer, action.event)
      : { ...last.answer, phase: 'failed' as const, error: { code: 'refused', message: action.message } };
  return answer === last.answer ? exchanges : [...exchanges.slice(0, -1), { ...last, answer }];
}

/** The turns of this page's conversation: send, stream, stop. */
export function useConversationTurns() {
  const auth = useAuth();
  const [exchanges, dispatch] = useReducer(reduceExchanges, []);
  const conversationId = useRef<string | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const streaming = exchanges[exchanges.length - 1]?.answer.phase === 'streaming';

  const send = useCallback(
    async (question: string) => {
      dispatch({ kind: 'ask', question });
      const controller = new AbortController();
      abort.current = controller;
      try {
        const token = await auth.accessToken();
        const { chatModel } = readWebConfig();
        const response = await startTurn(
          { model: chatModel, conversationId: conversationId.current, text: question },
          token,
          controller.signal,
        );
        if (!response.ok) {
          const body = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
          dispatch({ kind: 'refused', message: body?.error?.message ?? `${response.status}` });
          return;
        }
        conversationId.current = response.headers.get('x-conversation-id') ?? conversationId.current;
        await readTurnStream(response, (event) => dispatch({ kind: 'event', event }));
      } catch (error) {
        if (!controller.signal.aborted)
          dispatch({ kind: 'refused', message: error instanceof Error ? error.message : String(error) });
      }
    },
    [auth],
  );

  const stop = useCallback(async () => {
    if (!conversationId.current) return;
    // The turn ends itself with a final chunk (finishReason stop, unfinished), which the open stream shows.
    await cancelTurn(conversationId.current, await auth.accessToken());
  }, [auth]);

  return { exchanges, streaming, send, stop };
}
