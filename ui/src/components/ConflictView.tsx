// A save that met a change on disk: both versions side by side, and the
// three ways out (keep yours, take the disk's, merge by hand: yours in the
// editor with the disk's read-only beside it).

/** The disk's side of a conflict: its text (`null`: deleted) and version. */
export type Conflict = { disk: string | null; etag: string | null };

export function ConflictView({
  mine,
  conflict,
  busy,
  onKeepMine,
  onTakeDisk,
  onMerge,
}: {
  mine: string;
  conflict: Conflict;
  busy: boolean;
  onKeepMine: () => void;
  onTakeDisk: () => void;
  /** Edit yours with the disk's beside it; a save then replaces the disk's. */
  onMerge: () => void;
}) {
  return (
    <div class="cust-conflict" data-testid="cust-conflict">
      <p class="small">
        The file changed on disk while you edited it. Nothing was saved. Keep your version (it replaces the one on
        disk), take the disk's (your edits are dropped), or merge the two by hand.
      </p>
      <div class="cust-conflict-sides">
        <div>
          <h3 class="small">Yours</h3>
          <pre data-testid="cust-conflict-mine">{mine}</pre>
        </div>
        <div>
          <h3 class="small">On disk now</h3>
          <pre data-testid="cust-conflict-disk">{conflict.disk ?? '(the file was deleted)'}</pre>
        </div>
      </div>
      <div class="cust-conflict-actions">
        <button type="button" class="primary" disabled={busy} data-testid="cust-keep-mine" onClick={onKeepMine}>
          Keep mine
        </button>
        <button type="button" disabled={busy} data-testid="cust-take-disk" onClick={onTakeDisk}>
          Take the disk's
        </button>
        <button type="button" disabled={busy} data-testid="cust-merge" onClick={onMerge}>
          Merge by hand
        </button>
      </div>
    </div>
  );
}
