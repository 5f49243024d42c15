export interface FetchedPage {
  status: number;
  html: string;
  headers: Headers;
  hidden: Record<string, string>;
}

/** One browser over plain HTTP: keeps the pages' cookies and posts with the last page's token. */
export class AccountFormClient {
  private readonly cookies = new Map<string, string>();
  private hidden: Record<string, string> = {};

  constructor(private readonly baseUrl: string) {}

  async get(pathAndQuery: string): Promise<FetchedPage> {
    return this.keep(await fetch(new URL(pathAndQuery, this.baseUrl), { headers: this.headers() }));
  }

  async post(path: string, fields: Record<string, string>): Promise<FetchedPage> {
    const body = new URLSearchParams({ ...this.hidden, ...fields });
    const response = await fetch(new URL(path, this.baseUrl), {
      method: 'POST',
      headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
    return this.keep(response);
  }

  async submit(path: string, fields: Record<string, string>): Promise<FetchedPage> {
    await this.get(path);
    return this.post(path.split('?')[0], fields);
  }

  private headers(): Record<string, string> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return cookie ? { cookie } : {};
  }

  private async keep(response: Response): Promise<FetchedPage> {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const [name, value] = pair.split('=', 2);
      this.cookies.set(name, value);
    }
    const html = await response.text();
    const hidden = Object.fromEntries(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map(([, name, value]) => [
        name,
        value,
      ]),
    );
    // A page without a form (a message) leaves the last form's fields, as a browser's back button would.
    if (Object.keys(hidden).length > 0) this.hidden = hidden;
    return { status: response.status, html, headers: response.headers, hidden };
  }
}

/** The text of a page without its markup and the CSRF token: what a reader sees, for comparing answers. */
export function visibleText(html: string): string {
  return html
    .replace(/<input type="hidden" name="csrf"[^>]*>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
