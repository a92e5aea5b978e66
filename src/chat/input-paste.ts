/**
 * Pastes of several lines in the chat's input: the line shows a marker, `[pasted text #1 +3 lines]`,
 * which becomes the pasted text when the message is sent.
 */
const PASTE_MARK = /\[pasted text #(\d+) \+\d+ lines?\]/g;

export class Pastes {
  private readonly texts: string[] = [];

  /** What a paste puts on the line: a one-line paste as it is, a longer one as its marker. */
  pasted(text: string): string {
    const clean = text.replace(/\r\n?/g, "\n");
    if (!clean.includes("\n")) return clean;
    this.texts.push(clean);
    const lines = clean.split("\n").length;
    return `[pasted text #${this.texts.length} +${lines} lines]`;
  }

  /** The message with each marker of this chat replaced by its text. */
  expand(text: string): string {
    return text.replace(PASTE_MARK, (mark, n: string) => this.texts[Number(n) - 1] ?? mark);
  }
}
