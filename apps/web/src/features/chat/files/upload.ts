/** 201 of `POST /api/v1/files` (document 2, "UploadedFile"). */
export interface UploadedFile {
  fileId: string;
  filename: string;
  bytes: number;
  createdAt: string;
  width?: number;
  height?: number;
}

export const MAX_ATTACHMENTS = 20;

/** Why a transfer failed: the platform refused it (with its own message, if it gave one), the line dropped, or the user cancelled. */
export type TransferFailure =
  { kind: 'refused'; status: number; message?: string } | { kind: 'lost' } | { kind: 'cancelled' };

export class TransferError extends Error {
  constructor(readonly failure: TransferFailure) {
    super(failure.kind === 'refused' ? (failure.message ?? `refused (${failure.status})`) : failure.kind);
  }
}

export interface Upload {
  done: Promise<UploadedFile>;
  cancel(): void;
}

/**
 * Uploads one file as the multipart form of `POST /api/v1/files`. XMLHttpRequest, not fetch: only it reports
 * upload progress in browsers.
 */
export function uploadFile(file: File, token: string, onProgress: (fraction: number) => void): Upload {
  const request = new XMLHttpRequest();
  const done = new Promise<UploadedFile>((resolve, reject) => {
    request.upload.onprogress = (event) => event.lengthComputable && onProgress(event.loaded / event.total);
    request.onload = () => {
      let body: { error?: { message?: string } } & Partial<UploadedFile> = {};
      try {
        body = JSON.parse(request.responseText) as typeof body;
      } catch {
        // Not JSON: the status says enough.
      }
      if (request.status === 201 && body.fileId) resolve(body as UploadedFile);
      else reject(new TransferError({ kind: 'refused', status: request.status, message: body.error?.message }));
    };
    request.onerror = () => reject(new TransferError({ kind: 'lost' }));
    request.onabort = () => reject(new TransferError({ kind: 'cancelled' }));
  });
  const form = new FormData();
  form.append('filename', file.name);
  form.append('file', file, file.name);
  request.open('POST', '/api/v1/files');
  request.setRequestHeader('authorization', `Bearer ${token}`);
  request.send(form);
  return { done, cancel: () => request.abort() };
}

/** A file of the user or the agent, fetched with the token (the API takes no cookie) and handed to the browser. */
export async function downloadBlob(url: string, token: string): Promise<Blob> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) throw new TransferError({ kind: 'refused', status: response.status });
  return response.blob();
}

export function saveAs(blob: Blob, filename: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}
