// A markdown customization file as its YAML front matter and its body.
// Editing a field goes through the `yaml` package's document, so the keys
// the form does not show, their order and the comments survive a save.
import { Document, isMap, parseDocument } from 'yaml';

/** A file split into front matter (a YAML document) and body. */
export interface Split {
  /** `null` when the file has no front matter. */
  doc: Document | null;
  body: string;
  /** Why the front matter could not be read (the form then shows raw mode only). */
  error: string | null;
}

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Split `text` at its `---` fences. */
export function splitFrontmatter(text: string): Split {
  const m = FENCE.exec(text);
  if (!m) return { doc: null, body: text, error: null };
  const doc = parseDocument(m[1]);
  const body = text.slice(m[0].length);
  if (doc.errors.length > 0) return { doc: null, body, error: doc.errors[0].message };
  if (doc.contents != null && !isMap(doc.contents)) return { doc: null, body, error: 'the front matter is not a map' };
  return { doc, body, error: null };
}

/** A front matter field as the form shows it: text, or a list as lines. */
export function fieldOf(split: Split, key: string): string | string[] | boolean | null {
  const v = split.doc?.get(key);
  if (v == null) return null;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  const js = (v as { toJSON?: () => unknown }).toJSON?.();
  if (Array.isArray(js)) return js.map(String);
  return js == null ? null : JSON.stringify(js);
}

/** The file with `fields` set (an empty value or list removes the key) and `body`. */
export function joinFrontmatter(
  split: Split,
  fields: Record<string, string | string[] | boolean | null>,
  body: string,
): string {
  const doc = split.doc ?? new Document({});
  for (const [key, value] of Object.entries(fields)) {
    const empty = value == null || value === '' || (Array.isArray(value) && value.length === 0);
    if (empty) {
      doc.delete(key);
    } else {
      doc.set(key, value);
    }
  }
  const front = isMap(doc.contents) && doc.contents.items.length === 0 ? '' : String(doc);
  if (!front.trim()) return body;
  return `---\n${front.trimEnd()}\n---\n${body}`;
}
