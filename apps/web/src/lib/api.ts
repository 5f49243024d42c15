/** A refusal of the platform's API, in its documented error shape. */
export class ApiRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What a screen shows of a failed call: the API's message and its code, or the error's message. */
export function errorText(error: Error): string {
  return error instanceof ApiRequestError ? `${error.message} (${error.code})` : error.message;
}

/** GET (or another method) of a documented JSON endpoint with the user's token. */
export async function apiJson<T>(path: string, token: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, {
    ...init,
    headers: { ...init.headers, authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  const body = (await response.json().catch(() => undefined)) as
    { error?: { code?: string; message?: string } } | undefined;
  if (!response.ok) {
    throw new ApiRequestError(
      response.status,
      body?.error?.code ?? 'http_error',
      body?.error?.message ?? `${response.status} ${response.statusText}`,
    );
  }
  return body as T;
}
