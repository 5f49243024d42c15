import type { ChunkDelta, Interaction, Task, UiResource } from '@fed/contracts';
import type { ChunkWriter } from './chunk-writer';
import { MarkdownStripper } from './markdown-stripper';
import { StorableStream } from './storable-stream';

/** A turn's text: made storable, stripped when plain, coalesced; what the writer gets is what the message stores. */
export class TurnOutput {
  private readonly storable = new StorableStream();
  private readonly stripper: MarkdownStripper | undefined;
  /** Last character of the text given so far, before stripping ('' when none). */
  private lastCharacter = '';
  private newParagraph = false;

  constructor(
    private readonly writer: ChunkWriter,
    outputFormat: 'plain' | 'markdown',
  ) {
    this.stripper = outputFormat === 'plain' ? new MarkdownStripper() : undefined;
  }

  /** The text shown so far (and stored when the turn ends). */
  get text(): string {
    return this.writer.text;
  }

  /** A piece of the answer's text (a model delta, the work report). */
  write(piece: string): void {
    let text = this.storable.push(piece);
    if (text.length === 0) return;
    if (this.newParagraph) {
      this.newParagraph = false;
      // Each model call's text is its own message: without a break, two would run into one line.
      if (this.lastCharacter !== '' && this.lastCharacter !== '\n') text = `\n\n${text}`;
    }
    this.lastCharacter = text[text.length - 1];
    this.writer.write(this.stripper ? this.stripper.push(text) : text);
  }

  startParagraph(): void {
    this.newParagraph = true;
  }

  /** Shows what is held back (an unfinished line of plain output, half a surrogate pair). */
  release(): void {
    const rest = this.storable.flush();
    if (rest.length > 0) this.lastCharacter = rest[rest.length - 1];
    this.writer.write(this.stripper ? this.stripper.push(rest) + this.stripper.flush() : rest);
  }

  task(task: Task): void {
    this.release();
    this.writer.send({ tasks: [task] });
  }

  /** An interaction; one with a UI resource carries its alternative text as `delta.content`. */
  interaction(task: Task, interaction: Interaction): void {
    this.release();
    const altText = interaction.uiResource?.altText;
    if (altText === undefined) this.writer.send({ tasks: [task], interaction });
    else this.showUi(altText, { tasks: [task], interaction });
  }

  /** Display-only UI, or just the alt text of one that cannot be served; the text bypasses the stripper. */
  uiResource(altText: string, resource?: UiResource): void {
    this.release();
    this.showUi(altText, resource ? { uiResource: resource } : undefined);
  }

  private showUi(altText: string, delta: Omit<ChunkDelta, 'role' | 'messageInfo' | 'content'> | undefined): void {
    const shown = this.writer.text;
    if (altText.length > 0 && shown.length > 0 && !shown.endsWith('\n')) this.writer.write('\n\n');
    if (delta) this.writer.sendWithText(altText, delta);
    else this.writer.write(altText);
    if (altText.length > 0) this.lastCharacter = altText[altText.length - 1];
    this.newParagraph = true;
  }

  /** Shows everything held back and waits until every chunk so far is in the stream. */
  async end(): Promise<void> {
    this.release();
    await this.writer.drain();
  }
}
