// Attachments of picked `@` mentions. A completion item carries the
// attachment the protocol says the client SHOULD send with the message; the
// composer keeps the picked items and, on send, attaches those whose text is
// still in the message, with the range moved to where it now is.

import type { Attachment } from '../gen/Attachment';

export interface PickedMention {
  insertText: string;
  attachment: Attachment;
}

/** A place in the message: line and UTF-16 column. */
export interface TextPosition {
  line: number;
  character: number;
}

/** An attachment ranged to where its mention is in the message. */
export type RangedAttachment = Attachment & { range: { start: TextPosition; end: TextPosition } };

/** Remember a picked completion item (once per inserted text). */
export function rememberPick(
  picked: PickedMention[],
  item: { insertText: string; attachment?: Attachment },
): PickedMention[] {
  if (!item.attachment) return picked;
  const insertText = item.insertText.trimEnd();
  return [...picked.filter((p) => p.insertText !== insertText), { insertText, attachment: item.attachment }];
}

/** Where `word` occurs in `text` as a whole word (UTF-16 index), or -1. */
function wordAt(text: string, word: string): number {
  for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
    const before = i === 0 || /\s/.test(text[i - 1]);
    const end = i + word.length;
    const after = end === text.length || /\s/.test(text[end]);
    if (before && after) return i;
  }
  return -1;
}

/** Line and UTF-16 column of index `i` in `text`. */
function position(text: string, i: number): TextPosition {
  const lines = text.slice(0, i).split('\n');
  return { line: lines.length - 1, character: lines[lines.length - 1].length };
}

/** The attachments to send with `text`: picked mentions still in it, ranged to their place. */
export function mentionAttachments(text: string, picked: PickedMention[]): RangedAttachment[] {
  const out: RangedAttachment[] = [];
  for (const p of picked) {
    const i = wordAt(text, p.insertText);
    if (i < 0) continue;
    const range = { start: position(text, i), end: position(text, i + p.insertText.length) };
    out.push({ ...p.attachment, range });
  }
  return out;
}

/**
 * What a completion item says about itself beside its text: an agent
 * command's argument hint and description (`/review [focus] — Review my
 * changes`), a prompt's or skill's description; empty for a file.
 */
export function completionNote(attachment: Attachment): string {
  const meta = (attachment._meta ?? {}) as { description?: unknown; hint?: unknown };
  const parts = [meta.hint, meta.description].filter((p): p is string => typeof p === 'string' && p !== '');
  return parts.join(' — ');
}
