// The default folder as Settings shows it (a path) and keeps it (a file://
// URI, as folder.list and session.create take it). Pure.

/** The path of a `file://` URI ('' for none). */
export function folderPath(uri: string | null | undefined): string {
  if (!uri) return '';
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}

/** The `file://` URI of a typed path (null when empty; `~` is not expanded). */
export function folderUri(path: string): string | null {
  const p = path.trim();
  if (!p) return null;
  if (p.startsWith('file://')) return p;
  return new URL(`file://${p.startsWith('/') ? '' : '/'}${p}`).href;
}
