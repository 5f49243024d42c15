/** Cookies, redirects followed on the provider's origin, and form posts: enough for the code flow. */
export class TestBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly origin: string) {}

  /** Stops at the first page or a redirect elsewhere. */
  async visit(
    url: string,
    init: RequestInit = {},
  ): Promise<{ status: number; url: string; html: string; location?: string }> {
    let current = url;
    let request = init;
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(current, {
        ...request,
        redirect: 'manual',
        headers: { ...(request.headers as Record<string, string>), cookie: this.cookieHeader() },
      });
      this.store(response);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        const next = new URL(location, current).href;
        if (!next.startsWith(this.origin)) return { status: response.status, url: current, html: '', location: next };
        current = next;
        request = {};
        continue;
      }
      return { status: response.status, url: current, html: await response.text() };
    }
    throw new Error('too many redirects');
  }

  /** Its action and hidden fields, plus `fields`. */
  submit(page: { url: string; html: string }, fields: Record<string, string>) {
    const action = /<form method="post" action="([^"]+)"/.exec(page.html)?.[1];
    if (!action) throw new Error(`no form on the page: ${page.html.slice(0, 300)}`);
    const hidden = Object.fromEntries(
      [...page.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
    );
    return this.visit(new URL(action.replace(/&#38;/g, '&'), page.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hidden, ...fields }).toString(),
    });
  }

  cookieNames(): string[] {
    return [...this.cookies.keys()];
  }

  rawSetCookies: string[] = [];

  private store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      this.rawSetCookies.push(header);
      const [pair] = header.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (/expires=Thu, 01 Jan 1970/i.test(header) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}
