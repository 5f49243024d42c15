// The few browser globals that the functions given to page.evaluate use: those functions run in the page, and
// the services' type check has no DOM library (adding it would retype Node's globals for every file). A file
// that needs them declares them from these shapes, in its own module scope.

export interface PageElement {
  id: string;
  textContent: string | null;
  lang: string;
  dir: string;
  dataset: Record<string, string | undefined>;
  style: { colorScheme: string };
  scrollWidth: number;
  matches(selector: string): boolean;
  getAttribute(name: string): string | null;
}

export interface PageDocument {
  documentElement: PageElement;
  activeElement: PageElement | null;
  querySelector(selector: string): PageElement | null;
}

export interface PageMutationRecord {
  oldValue: string | null;
}

export type PageMutationObserver = new (callback: (records: PageMutationRecord[]) => void) => {
  observe(target: PageElement, options: Record<string, unknown>): void;
};

export type PageComputedStyle = (element: PageElement) => { backgroundColor: string; outlineStyle: string };

export interface PageDataTransfer {
  items: { add(file: unknown): void };
}

export type PageDataTransferClass = new () => PageDataTransfer;
export type PageFileClass = new (parts: string[], name: string, options: { type: string }) => unknown;
export type PageClipboardEventClass = new (
  type: 'paste',
  init: { clipboardData: PageDataTransfer; bubbles: boolean; cancelable: boolean },
) => unknown;
