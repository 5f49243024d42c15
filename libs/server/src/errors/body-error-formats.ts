export interface BodyRefusalAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** `status` and `message`: what the REST envelope would have said. */
export type BodyRefusalFormat = (refusal: { status: number; message: string }) => BodyRefusalAnswer;

export const BODY_ERROR_FORMATS = Symbol.for('fed.server.BodyErrorFormats');

/**
 * The host parses JSON before Nest routes a request, so its refusals reach only the global filter. A route
 * whose errors have another format (the Marketplace token endpoint's OAuth errors) registers it here.
 */
export class BodyErrorFormats {
  private readonly byPath = new Map<string, BodyRefusalFormat>();

  /** Matched as Express routes it: any case, a trailing slash or not. */
  add(path: string, format: BodyRefusalFormat): void {
    const key = routeKey(path);
    if (this.byPath.has(key)) throw new Error(`a body error format for ${path} is registered twice`);
    this.byPath.set(key, format);
  }

  find(path: string): BodyRefusalFormat | undefined {
    return this.byPath.get(routeKey(path));
  }
}

const routeKey = (path: string) => path.toLowerCase().replace(/\/+$/, '');
