// Archiving or disposing a session that works in a git worktree of its
// own: keep the worktree (and its branch), or remove it. The host refuses
// a removal that would lose uncommitted edits or commits whose changes
// the branch it was made from lacks (a squash-merged branch has none, and
// goes with its worktree); the dialog then shows the host's reason
// (which names the files or counts the commits) and offers "Remove anyway"
// (force: the worktree goes, its branch is kept so the commits stay
// reachable). Nothing happens until the person picks.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { WorktreeInfo, WorktreeRemoval } from '../gen';
import { call, errorText } from '../ipc';

export type CloseKind = 'archive' | 'dispose';

export function WorktreeCloseDialog({
  host,
  session,
  kind,
  worktree,
  onDone,
  onCancel,
}: {
  host: string;
  session: string;
  kind: CloseKind;
  worktree: WorktreeInfo;
  /** The session was archived or disposed. */
  onDone: () => void;
  onCancel: () => void;
}) {
  const [remove, setRemove] = useState(false);
  const [busy, setBusy] = useState(false);
  /** The host's reason for refusing the removal. */
  const [refusal, setRefusal] = useState('');
  const cancel = useRef<HTMLButtonElement>(null);
  useLayoutEffect(() => {
    cancel.current?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        onCancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onCancel]);

  const close = async (removal: WorktreeRemoval | undefined) => {
    setBusy(true);
    setRefusal('');
    try {
      if (kind === 'archive') await call('session.archive', { host, session, archived: true, worktree: removal });
      else await call('session.dispose', { host, session, worktree: removal });
      onDone();
    } catch (e) {
      // The host's words, without its hint to API clients (the button below is that).
      setRefusal(errorText(e).replace(/; pass "force": true.*$/, '.'));
    } finally {
      setBusy(false);
    }
  };
  const verb = kind === 'archive' ? 'Archive' : 'Dispose';
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onCancel()}>
      <div
        class="modal confirm-dialog worktree-close"
        role="dialog"
        aria-modal="true"
        aria-label={`${verb} this session?`}
        data-testid="worktree-close-dialog"
      >
        <h2>{verb} this session?</h2>
        {kind === 'dispose' && <p>Its history is deleted on the host. This cannot be undone.</p>}
        <p>
          It works in a worktree of its own on branch <code>{worktree.branch}</code> (made from{' '}
          <code>{worktree.base}</code>) at <code data-testid="worktree-close-path">{worktree.path}</code>.
        </p>
        <fieldset class="worktree-close-choice" disabled={busy}>
          <label>
            <input
              type="radio"
              name="worktree-close"
              data-testid="worktree-keep"
              checked={!remove}
              onChange={() => setRemove(false)}
            />{' '}
            Keep the worktree and its branch
          </label>
          <label>
            <input
              type="radio"
              name="worktree-close"
              data-testid="worktree-remove"
              checked={remove}
              onChange={() => setRemove(true)}
            />{' '}
            Remove the worktree (and its branch, when every change on it is in <code>{worktree.base}</code>: merged,
            squash-merged or cherry-picked)
          </label>
        </fieldset>
        {refusal && (
          <div class="worktree-close-refusal" role="alert" data-testid="worktree-refusal">
            <p>The host did not remove it: {refusal}</p>
            <p>
              <em>Remove anyway</em> deletes the worktree's folder with any uncommitted edits; its branch is kept, so
              its commits stay reachable.
            </p>
          </div>
        )}
        <div class="modal-actions">
          <button type="button" ref={cancel} onClick={onCancel} data-testid="confirm-dialog-cancel">
            Cancel
          </button>
          {refusal && remove ? (
            <button
              type="button"
              class="danger"
              disabled={busy}
              onClick={() => close({ force: true })}
              data-testid="worktree-force"
            >
              Remove anyway
            </button>
          ) : (
            <button
              type="button"
              class={kind === 'dispose' || remove ? 'danger' : undefined}
              disabled={busy}
              onClick={() => close(remove ? { force: false } : undefined)}
              data-testid="confirm-dialog-ok"
            >
              {verb}
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
