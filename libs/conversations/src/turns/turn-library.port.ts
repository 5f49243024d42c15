/** A published library file, as a chat request's `{type: input_file, filepath}` part resolves it. */
export interface TurnLibraryFile {
  /** The library item's id: the `fileId` the user message's `files[]` shows. */
  fileId: string;
  filepath: string;
  filename: string;
  mimeType: string;
}

/** What the turn needs of the library (libs/agent provides it): the items at some filepaths, in one query. */
export interface TurnLibrary {
  resolveFilepaths(filepaths: readonly string[]): Promise<TurnLibraryFile[]>;
}

export const TURN_LIBRARY = Symbol.for('fed.conversations.TurnLibrary');

/** For a host without the library: no filepath names a file. */
export const NO_LIBRARY: TurnLibrary = { resolveFilepaths: () => Promise.resolve([]) };
