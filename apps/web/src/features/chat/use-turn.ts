import { useCallback, useEffect, useReducer, useRef } from 'react';
import { ApiRequestError } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';
import { readWebConfig } from '../../lib/web-config';
import { type ChatItem, historyItem, loadHistory } from './history';
import {
  type MessageFile,
  type TurnOptions,
  cancelTurn,
  readTurnStream,
  resumeTurn,
  startTurn,
} from './stream/turn-stream';
import { type StreamEvent, emptyTurn, reduceTurn } from './stream/turn-view';
import { CONNECTION_LOST, UNREACHABLE } from './turn-errors';

type Action =
  | { kind: 'reset'; items: ChatItem[]; older?: string }
  | { kind: 'older'; items: ChatItem[]; older?: string }
  | { kind: 'ask'; question: string; files: string[] }
  | { kind: 'event'; event: StreamEvent }
  /** `message` is the platform's; the app's own failures have only a code (turn-errors.ts words them). */
  | { kind: 'refused'; code: string; message: string };

let keys = 0;

const RESUME_ATTEMPTS = 6;
const RESUME_BASE_MS = 500;
const RESUME_MAX_MS = 8_000;

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

interface Turns {
  items: ChatItem[];
  /** The cursor of the next older page of history, while there is one. */
  older?: string;
}

function reduceTurns(turns: Turns, action: Action): Turns {
  if (action.kind === 'reset') return { items: action.items, older: action.older };
  if (action.kind === 'older') {
    // Pages can overlap when messages arrive meanwhile (document 2, "Pagination"): a message is shown once.
    const shown = new Set(turns.items.map((item) => item.key));
    return { items: [...action.items.filter((item) => !shown.has(item.key)), ...turns.items], older: action.older };
  }
  const items = reduceItems(turns.items, action);
  return items === turns.items ? turns : { ...turns, items };
}

function reduceItems(items: ChatItem[], action: Exclude<Action, { kind: 'reset' | 'older' }>): ChatItem[] {
  if (action.kind === 'ask') {
    return [
      ...items,
      { kind: 'user', key: `local-${++keys}`, text: action.question, files: action.files },
      { kind: 'assistant', key: `local-${++keys}`, view: emptyTurn },
    ];
  }
  const last = items[items.length - 1];
  if (last?.kind !== 'assistant') return items;
  const view =
    action.kind === 'event'
      ? reduceTurn(last.view, action.event)
      : { ...last.view, phase: 'failed' as const, error: { code: action.code, message: action.message } };
  return view === last.view ? items : [...items.slice(0, -1), { ...last, view }];
}

async function refusalOf(response: Response): Promise<Action> {
  const body = (await response.json().catch(() => undefined)) as
    { error?: { code?: string; message?: string } } | undefined;
  const message = body?.error?.message ?? `${response.status} ${response.statusText}`;
  return { kind: 'refused', code: body?.error?.code ?? 'refused', message };
}

// fetch fails with a TypeError when the platform cannot be reached; other errors carry words already.
function failureOf(error: unknown): Action {
  if (error instanceof ApiRequestError) return { kind: 'refused', code: error.code, message: error.message };
  if (error instanceof Error && !(error instanceof TypeError)) {
    return { kind: 'refused', code: 'failed', message: error.message };
  }
  return { kind: 'refused', code: UNREACHABLE, message: '' };
}

/**
 * The turns of one conversation: its history, then new turns streamed in. A conversation whose last answer is
 * still being written (a reload, a second tab) is followed through the reconnect endpoint to its end.
 */
/**
 * `onStarted`: a new conversation's id is known (its turn started). `onEnded`: a turn's stream ended, so the
 * conversation's place and title in lists may have changed (a list read at the start may predate the row).
 */
export function useConversationTurns(
  conversationId: string | undefined,
  onStarted: (conversationId: string) => void,
  onEnded?: (conversationId: string) => void,
) {
  const auth = useAuth();
  const [{ items, older }, dispatch] = useReducer(reduceTurns, { items: [] });
  const loadingOlder = useRef<string | undefined>(undefined);
  const current = useRef<string | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const last = items[items.length - 1];
  const streaming = last?.kind === 'assistant' && last.view.phase === 'streaming';

  /**
   * Reads a turn's stream to its end. A connection that drops before `[DONE]` is resumed with `Last-Event-ID`
   * (the reducer drops what was already applied); a turn that ended meanwhile is read from history.
   */
  const follow = useCallback(
    async (first: Response, controller: AbortController) => {
      let lastEventId: string | undefined;
      let done = false;
      const onEvent = (event: StreamEvent) => {
        if (event.kind === 'done') done = true;
        else if (event.id !== undefined) lastEventId = event.id;
        dispatch({ kind: 'event', event });
      };
      let response: Response | undefined = first;
      for (let attempt = 0; !done && !controller.signal.aborted; attempt++) {
        try {
          if (response) await readTurnStream(response, onEvent);
        } catch {
          // Dropped: resumed below.
        }
        response = undefined;
        const conversationId = current.current;
        if (done || controller.signal.aborted || !conversationId) return;
        if (attempt >= RESUME_ATTEMPTS) {
          dispatch({ kind: 'refused', code: CONNECTION_LOST, message: '' });
          return;
        }
        await sleep(Math.min(RESUME_BASE_MS * 2 ** attempt, RESUME_MAX_MS), controller.signal);
        try {
          const token = await auth.accessToken();
          const resumed = await resumeTurn(conversationId, lastEventId, token, controller.signal);
          if (resumed.ok) response = resumed;
          else if (resumed.status === 404) {
            // No turn in progress any more: the stored message is the whole answer.
            const history = await loadHistory(token, conversationId);
            if (!controller.signal.aborted) {
              dispatch({ kind: 'reset', items: history.messages.map(historyItem), older: history.older });
            }
            return;
          }
        } catch {
          // Still offline: the next attempt waits longer.
        }
      }
    },
    [auth],
  );

  useEffect(() => {
    // The conversation this hook just started (its id came with the stream): nothing to load.
    if (conversationId !== undefined && conversationId === current.current) return;
    abort.current?.abort();
    current.current = conversationId;
    dispatch({ kind: 'reset', items: [] });
    if (!conversationId) return;
    const controller = new AbortController();
    abort.current = controller;
    void (async () => {
      const token = await auth.accessToken();
      const history = await loadHistory(token, conversationId);
      if (controller.signal.aborted) return;
      const loaded = history.messages.map(historyItem);
      const tail = loaded[loaded.length - 1];
      if (tail?.kind === 'assistant' && tail.view.phase === 'streaming') {
        // Follow the answer being written from its start; the reducer rebuilds it from the chunks.
        loaded[loaded.length - 1] = { ...tail, view: { ...emptyTurn } };
        dispatch({ kind: 'reset', items: loaded, older: history.older });
        const response = await resumeTurn(conversationId, undefined, token, controller.signal);
        if (response.ok) return follow(response, controller);
        // It ended in the meantime (404 "no turn in progress"): the history has the whole answer now.
        const ended = await loadHistory(token, conversationId);
        if (!controller.signal.aborted) {
          dispatch({ kind: 'reset', items: ended.messages.map(historyItem), older: ended.older });
        }
        return;
      }
      dispatch({ kind: 'reset', items: loaded, older: history.older });
    })().catch((error: unknown) => {
      if (!controller.signal.aborted) dispatch(failureOf(error));
    });
    return () => controller.abort();
  }, [auth, conversationId, follow]);

  const send = useCallback(
    async (question: string, options: TurnOptions, files: (MessageFile & { filename: string })[] = []) => {
      dispatch({ kind: 'ask', question, files: files.map((file) => file.filename) });
      const controller = new AbortController();
      abort.current = controller;
      try {
        const token = await auth.accessToken();
        const { chatModel } = readWebConfig();
        const response = await startTurn(
          {
            model: chatModel,
            conversationId: current.current,
            text: question,
            files: files.map((file) => ('fileId' in file ? { fileId: file.fileId } : { filepath: file.filepath })),
            options,
          },
          token,
          controller.signal,
        );
        if (!response.ok) return dispatch(await refusalOf(response));
        const started = response.headers.get('x-conversation-id');
        if (started && started !== current.current) {
          current.current = started;
          onStarted(started);
        }
        await follow(response, controller);
        const turnOf = started ?? current.current;
        if (turnOf) onEnded?.(turnOf);
      } catch (error) {
        if (!controller.signal.aborted) dispatch(failureOf(error));
      }
    },
    [auth, follow, onStarted, onEnded],
  );

  const stop = useCallback(async () => {
    if (!current.current) return;
    // The turn ends itself with a final chunk (finishReason stop, unfinished), which the open stream shows.
    await cancelTurn(current.current, await auth.accessToken());
  }, [auth]);

  /** The next older page of history, once at a time; a page of another conversation is dropped. */
  const loadOlder = useCallback(async () => {
    const conversationId = current.current;
    if (!conversationId || !older || loadingOlder.current === older) return;
    loadingOlder.current = older;
    try {
      const page = await loadHistory(await auth.accessToken(), conversationId, older);
      if (current.current === conversationId) {
        dispatch({ kind: 'older', items: page.messages.map(historyItem), older: page.older });
      }
    } catch {
      // Offline or refused: the next scroll to the top asks again.
    } finally {
      loadingOlder.current = undefined;
    }
  }, [auth, older]);

  return { items, streaming, send, stop, hasOlder: older !== undefined, loadOlder };
}
