// What Merge back asks before it merges: how (a merge commit, one squashed
// commit, or a rebase then a fast-forward; the folder's last choice is
// preselected) and, for a squash, its commit message, prefilled with the
// host's drafted commit message and editable.
import type { MergeMode } from '../state/merge-modes';

const LABELS: Record<MergeMode, [string, string]> = {
  merge: ['Merge commit', 'a fast-forward when the folder’s branch has nothing new, else a merge commit'],
  squash: ['Squash', 'one new commit with all of this session’s changes'],
  rebase: ['Rebase', 'this session’s commits replayed onto the folder’s branch, then a fast-forward'],
};

export function MergeBackChoice({
  mode,
  message,
  onMode,
  onMessage,
}: {
  mode: MergeMode;
  /** The squash's message; null while it is being drafted. */
  message: string | null;
  onMode: (mode: MergeMode) => void;
  onMessage: (message: string) => void;
}) {
  return (
    <div class="merge-back-choice" data-testid="merge-back-choice">
      {(Object.keys(LABELS) as MergeMode[]).map((m) => (
        <label key={m} class="small">
          <input
            type="radio"
            name="merge-back-mode"
            value={m}
            data-testid={`merge-mode-${m}`}
            checked={mode === m}
            onChange={() => onMode(m)}
          />{' '}
          <strong>{LABELS[m][0]}</strong> <span class="muted">({LABELS[m][1]})</span>
        </label>
      ))}
      {mode === 'squash' && (
        <textarea
          data-testid="merge-squash-message"
          rows={5}
          aria-label="The squashed commit’s message"
          placeholder="Drafting the message…"
          disabled={message === null}
          value={message ?? ''}
          onInput={(e) => onMessage((e.target as HTMLTextAreaElement).value)}
        />
      )}
    </div>
  );
}
