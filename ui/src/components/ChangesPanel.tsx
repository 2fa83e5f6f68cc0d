// The session's Changes panel (beside the chat): every file the agent
// changed that nobody has kept or undone yet, from the host's session
// changeset (so it works the same for a remote host). Each file has +/−
// counts, a "viewed" checkbox, Keep and Undo; the selected file's diff shows
// each hunk with its own Keep and Undo. Undo all asks first. Keys: j / k
// next or previous file, n / p next or previous hunk, a / u Keep or Undo
// that hunk. A line number picks a line for a comment (shift: a range;
// c comments on the hunk the keyboard is on); comments collect as a review
// (ReviewComments) sent to the agent as one message. Every string from the
// host is rendered as text.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ChangesView } from '../gen/ChangesView';
import { call, errorText } from '../ipc';
import {
  type ChangeCounts,
  type ChangedFile,
  type FileDiffView,
  filesText,
  notDiffedText,
  statusLetter,
} from '../state/changes';
import { usePhone } from '../state/phone';
import { commentOn, lineNumbers, placeText, type ReviewComment, type Selection } from '../state/review';
import { CommentForm } from './CommentForm';
import { CommitForm } from './CommitForm';
import { ConfirmDialog } from './ConfirmDialog';
import { GitActions } from './GitActions';
import { Notice } from './Notice';
import { ReviewComments } from './ReviewComments';
import { ReviewDiff } from './ReviewDiff';

export interface ChangesPanelProps {
  host: string;
  session: string;
  /** A turn's changes instead of the session's pending ones. */
  turn: string | null;
  /** The session's chat, once opened ("Ask the agent" for a commit message). */
  chat?: string | null;
  /** A turn is running in that chat (what is asked of the agent is queued behind it). */
  running?: boolean;
  /** The session row's counts: a change there reloads the panel. */
  counts: ChangeCounts | null;
  onClose: () => void;
}

type Target = { file?: string; lines?: [number, number] };

export function ChangesPanel(p: ChangesPanelProps) {
  const [view, setView] = useState<ChangesView | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [diff, setDiff] = useState<FileDiffView | null>(null);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirmAll, setConfirmAll] = useState(false);
  const [split, setSplit] = useState(false);
  /** On a phone: unified only, long lines wrapped (no side by side, no sideways scrolling). */
  const phone = usePhone();
  /** The record of the last Undo (a turn id): Undo of it redoes; `again`
   * when that Undo was itself a Redo (undoing it undoes once more). */
  const [redo, setRedo] = useState<{ turn: string; again: boolean } | null>(null);
  /** Redo the last Undo: undo its record. */
  const runRedo = (record: string) => run('reject', {}, record);
  /** The hunk the keyboard is on (n / p), or -1. */
  const [hunkAt, setHunkAt] = useState(-1);
  /** The file whose diff shows every unchanged line (a gap of it was clicked). */
  const [wholeFile, setWholeFile] = useState<string | null>(null);
  /** The review being written, as the core keeps it. */
  const [comments, setComments] = useState<ReviewComment[]>([]);
  /** The lines picked for a comment, in the selected file's diff. */
  const [pick, setPick] = useState<Selection | null>(null);
  const [writing, setWriting] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const diffBox = useRef<HTMLDivElement>(null);
  const base = { host: p.host, session: p.session, turn: p.turn };

  const load = useCallback(async () => {
    try {
      const v = await call('changes.list', base);
      setView(v);
      setError('');
      setSelected((s) => (s && v.files.some((f) => f.id === s) ? s : (v.files[0]?.id ?? null)));
    } catch (e) {
      setError(errorText(e));
    }
  }, [p.host, p.session]);

  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    call('review.get', { host: p.host, session: p.session }).then(setComments, (e) => setError(errorText(e)));
  }, [p.host, p.session]);
  const saveComments = (next: ReviewComment[]) =>
    call('review.save', { host: p.host, session: p.session, comments: next }).then(setComments, (e) =>
      setError(errorText(e)),
    );
  const sendReview = async () => {
    setBusy(true);
    setError('');
    try {
      const r = await call('review.send', { host: p.host, session: p.session });
      setComments([]);
      setNote(
        `Sent ${r.comments === 1 ? '1 comment' : `${r.comments} comments`} to the agent${r.queued ? ', queued behind the running turn' : ''}.`,
      );
      setRedo(null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  // The row's counts change when a turn ends or an operation ran (here or
  // in another client): reload.
  const countsKey = p.counts ? `${p.counts.files}/${p.counts.added}/${p.counts.removed}` : '';
  useEffect(() => {
    load();
  }, [load, countsKey]);
  const selectedFile = view?.files.find((f) => f.id === selected) ?? null;
  useEffect(() => {
    setHunkAt(-1);
    setPick(null);
    setWriting(false);
  }, [selected]);
  const whole = wholeFile !== null && wholeFile === selected;
  const fileKey = selectedFile ? `${selectedFile.id}/${selectedFile.added}/${selectedFile.removed}` : '';
  useEffect(() => {
    setDiff(null);
    if (!selected) return;
    let alive = true;
    call('changes.diff', { ...base, file: selected, whole }).then(
      (d) => alive && setDiff(d),
      (e) => alive && setError(errorText(e)),
    );
    return () => {
      alive = false;
    };
  }, [fileKey, whole]);

  const [committing, setCommitting] = useState(false);
  /** The last commit's id. */
  const [commitId, setCommitId] = useState('');
  const run = async (operation: 'accept' | 'reject' | 'commit', target: Target, turn = p.turn, message?: string) => {
    setBusy(true);
    setError('');
    try {
      const r = await call('changes.invoke', {
        ...base,
        turn,
        operation,
        file: target.file ?? null,
        lines: target.lines ?? null,
        message: message ?? null,
      });
      setNote(r.message);
      setCommitId(r.commit ?? '');
      if (r.commit) setCommitting(false);
      setRedo(r.redo ? { turn: r.redo, again: turn !== p.turn } : null);
      await load();
      if (selected) setDiff(await call('changes.diff', { ...base, file: selected, whole }).catch(() => null));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const review = (f: ChangedFile, reviewed: boolean) =>
    call('changes.review', { host: p.host, session: p.session, files: [f.id], reviewed })
      .then(load)
      .catch((e) => setError(errorText(e)));

  const numbers = useMemo(() => (diff ? lineNumbers(diff) : []), [diff]);
  // A new diff (reloaded, or a gap expanded) numbers its lines anew.
  useEffect(() => setPick(null), [diff]);
  /** A line number was clicked: pick it, or extend the pick to it. */
  const onPick = (at: number, extend: boolean) => {
    setPick(extend && pick ? { from: pick.from, to: at } : { from: at, to: at });
    setWriting(true);
  };
  const addComment = (body: string) => {
    if (!diff || !pick || !selectedFile) return;
    const c = commentOn(diff, numbers, pick, selectedFile, body, crypto.randomUUID());
    setPick(null);
    setWriting(false);
    saveComments([...comments, c]);
  };

  const onKey = (e: KeyboardEvent) => {
    const target = e.target as HTMLElement;
    if (target.tagName === 'TEXTAREA') return;
    if (target.tagName === 'INPUT' && (target as HTMLInputElement).type === 'text') return;
    if (e.key === 'Escape' && !e.defaultPrevented) {
      e.preventDefault();
      p.onClose();
      return;
    }
    const files = view?.files ?? [];
    const at = files.findIndex((f) => f.id === selected);
    if (e.key === 'j' || e.key === 'k') {
      const next = files[Math.min(files.length - 1, Math.max(0, at + (e.key === 'j' ? 1 : -1)))];
      if (next) setSelected(next.id);
      e.preventDefault();
    } else if (e.key === 'n' || e.key === 'p') {
      const count = diff?.hunks.length ?? 0;
      if (count > 0) setHunkAt(Math.min(count - 1, Math.max(0, hunkAt + (e.key === 'n' ? 1 : -1))));
      e.preventDefault();
    } else if (e.key === 'c') {
      // Comment on the hunk the keyboard is on (or on the picked lines).
      const hunk = diff?.hunks[hunkAt];
      if (!pick && hunk) setPick({ from: hunk.start, to: hunk.end - 1 });
      if (pick || hunk) {
        setWriting(true);
        e.preventDefault();
      }
    } else if (e.key === 'a' || e.key === 'u') {
      // Keep (a) or Undo (u) the hunk the keyboard is on.
      const hunk = diff?.hunks[hunkAt];
      if (hunk && selectedFile && !busy && (e.key === 'u' || view?.acceptLines)) {
        run(e.key === 'a' ? 'accept' : 'reject', { file: selectedFile.id, lines: [hunk.firstLine, hunk.lastLine] });
        e.preventDefault();
      }
    }
  };

  const files = view?.files ?? [];
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  return (
    <aside
      id="changes-panel"
      class="cust-panel changes-panel"
      aria-labelledby="changes-title"
      data-testid="changes-panel"
      onKeyDown={onKey}
    >
      <header class="cust-head">
        <h2 id="changes-title" tabIndex={-1} ref={heading}>
          {p.turn ? 'Changes in this turn' : 'Changes'}
        </h2>
        <span class="spacer" />
        <button
          type="button"
          disabled={busy || files.length === 0}
          data-testid="keep-all"
          onClick={() => run('accept', {})}
        >
          Keep all
        </button>
        {!p.turn && (
          <button
            type="button"
            disabled={busy}
            data-testid="commit-button"
            title="Commit what you kept"
            onClick={() => setCommitting(true)}
          >
            Commit…
          </button>
        )}
        <button
          type="button"
          class="danger"
          disabled={busy || files.length === 0}
          data-testid="undo-all"
          onClick={() => setConfirmAll(true)}
        >
          {p.turn ? 'Rewind turn' : 'Undo all'}
        </button>
        <button type="button" onClick={p.onClose} aria-label="Close changes" title="Close (Escape)">
          ✕
        </button>
      </header>
      <p class="muted small changes-counts" data-testid="changes-counts">
        {filesText(files.length)} <span class="add">+{added}</span> <span class="del">−{removed}</span>
      </p>
      {confirmAll && (
        <ConfirmDialog
          title={p.turn ? 'Rewind this turn?' : 'Undo every change?'}
          message={`${restoreList(files)} go back to how they were before ${p.turn ? 'this turn' : 'the agent changed them'}. Edits made since are kept where they do not overlap; if they do, nothing is changed.`}
          confirmLabel={p.turn ? 'Rewind' : 'Undo all'}
          testid="undo-all-dialog"
          onCancel={() => setConfirmAll(false)}
          onConfirm={() => {
            setConfirmAll(false);
            run('reject', {});
          }}
        />
      )}
      {!p.turn && view && (
        <GitActions
          host={p.host}
          session={p.session}
          operations={view.operations}
          worktree={view.worktree}
          chat={p.chat ?? null}
          running={!!p.running}
        />
      )}
      {committing && (
        <CommitForm
          host={p.host}
          session={p.session}
          chat={p.chat ?? null}
          busy={busy}
          onCommit={(message) => run('commit', {}, null, message)}
          onCancel={() => setCommitting(false)}
        />
      )}
      {error && <Notice error text={error} onClose={() => setError('')} testid="changes-error" />}
      {note && !error && (
        <p class="muted small" data-testid="changes-note">
          {note}{' '}
          {commitId && (
            <code data-testid="commit-id" title={commitId}>
              {commitId.slice(0, 12)}
            </code>
          )}
          {redo && (
            <button
              type="button"
              class="link"
              data-testid="changes-redo"
              disabled={busy}
              onClick={() => runRedo(redo.turn)}
            >
              {redo.again ? 'Undo again' : 'Redo'}
            </button>
          )}
        </p>
      )}
      <ReviewComments
        comments={comments}
        busy={busy}
        onChange={saveComments}
        onSend={sendReview}
        onOpen={(c) => setSelected(c.file)}
      />
      {!view ? (
        <p class="muted small cust-intro">Loading…</p>
      ) : view.error ? (
        <p class="error small" data-testid="changes-untracked">
          {view.error}
        </p>
      ) : files.length === 0 ? (
        <p class="muted small cust-intro" data-testid="changes-empty">
          {p.turn
            ? 'This turn changed no files.'
            : 'Nothing to review: every change the agent made has been kept or undone. New changes appear here when a turn ends.'}
        </p>
      ) : (
        <ul class="change-files" aria-label="Changed files">
          {files.map((f) => (
            <li
              key={f.id}
              class={`change-file ${f.id === selected ? 'selected' : ''}`}
              data-testid="change-file"
              data-path={f.path}
            >
              {view.canReview && (
                <input
                  type="checkbox"
                  checked={f.reviewed}
                  title="Viewed"
                  aria-label={`Viewed ${f.path}`}
                  data-testid="viewed"
                  onChange={(e) => review(f, (e.target as HTMLInputElement).checked)}
                />
              )}
              <button type="button" class="change-name" onClick={() => setSelected(f.id)} title={f.path}>
                <span class={`change-status ${f.status}`}>{statusLetter(f)}</span> {f.path}
              </button>
              <span class="small">
                <span class="add">+{f.added ?? 0}</span> <span class="del">−{f.removed ?? 0}</span>
              </span>
              <button
                type="button"
                disabled={busy}
                data-testid="file-keep"
                onClick={() => run('accept', { file: f.id })}
              >
                Keep
              </button>
              <button
                type="button"
                disabled={busy}
                data-testid="file-undo"
                onClick={() => run('reject', { file: f.id })}
              >
                Undo
              </button>
            </li>
          ))}
        </ul>
      )}
      {selectedFile && (
        <div class="change-diff" ref={diffBox} data-testid="change-diff">
          <div class="diff-head">
            <code>{selectedFile.path}</code>
            <span class="add">+{selectedFile.added ?? 0}</span> <span class="del">−{selectedFile.removed ?? 0}</span>
            <span class="spacer" />
            {!phone && <span class="muted small">j / k files · n / p hunks · a keep · u undo · c comment</span>}
            {!phone && (
              <button
                type="button"
                class="small"
                aria-pressed={split}
                data-testid="split-toggle"
                onClick={() => setSplit(!split)}
              >
                {split ? 'Unified' : 'Side by side'}
              </button>
            )}
          </div>
          {writing && pick && diff && (
            <CommentForm
              place={placeText(commentOn(diff, numbers, pick, selectedFile, '', ''))}
              saveLabel="Add comment"
              onSave={addComment}
              onCancel={() => {
                setWriting(false);
                setPick(null);
              }}
            />
          )}
          {notDiffedText(selectedFile) ? (
            <p class="muted small">{notDiffedText(selectedFile)}</p>
          ) : !diff ? (
            <p class="muted small">Loading the diff…</p>
          ) : (
            <ReviewDiff
              diff={diff}
              path={selectedFile.path}
              split={split && !phone}
              wrap={phone}
              busy={busy}
              acceptLines={!!view?.acceptLines}
              current={hunkAt}
              onExpand={() => setWholeFile(selectedFile.id)}
              numbers={numbers}
              selection={pick}
              onPick={onPick}
              onHunk={(operation, hunk) =>
                run(operation, { file: selectedFile.id, lines: [hunk.firstLine, hunk.lastLine] })
              }
            />
          )}
          {diff?.diff.truncated && <p class="muted small">Diff cut at 100,000 lines.</p>}
        </div>
      )}
    </aside>
  );
}

/** The files an Undo all / Rewind restores, named (the first ten). */
function restoreList(files: ChangedFile[]): string {
  const names = files.slice(0, 10).map((f) => f.path);
  const more = files.length > 10 ? ` and ${files.length - 10} more` : '';
  return `${names.join(', ')}${more}`;
}
