import { type ChatCompletionChunk } from '@fed/contracts';
import { CHAT_MODEL } from './boot-chat-stack';

export interface FinishedTurn<Chunk> {
  response: Response;
  conversationId: string;
  chunks: Chunk[];
}

/** Posts a chat turn (streaming, no work report unless `body` says) and reads it to `[DONE]`; anything else throws. */
export async function runTurn<Chunk = ChatCompletionChunk>(
  api: string,
  token: string,
  body: Record<string, unknown>,
): Promise<FinishedTurn<Chunk>> {
  const response = await fetch(`${api}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: CHAT_MODEL, stream: true, reportMode: 'without', ...body }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the turn was answered ${response.status}: ${text}`);
  const datas = text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
  if (datas.at(-1) !== '[DONE]') throw new Error(`the stream ended without [DONE]: ${text.slice(-300)}`);
  return {
    response,
    conversationId: response.headers.get('x-conversation-id') as string,
    chunks: datas.slice(0, -1).map((data) => JSON.parse(data) as Chunk),
  };
}
