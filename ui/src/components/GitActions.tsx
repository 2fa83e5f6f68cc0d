// The Changes panel's git actions beside Commit…, each the host's changeset
// operation run on the session's host: Push (the result, or git's reason),
// Open pull request… (PullRequestForm; the link once opened, or, when the
// host has no signed-in `gh`, the exact command to run there with a Copy
// button) and, for a session in a worktree of its own, Merge back (asked
// first; the result, or the conflicts with both sides, MergeConflicts:
// nothing is merged then).
import { useState } from 'preact/hooks';
import type { MergedBack, PullRequestOpened } from '../gen';
import { call, errorText } from '../ipc';
import { ConfirmDialog } from './ConfirmDialog';
import { MergeConflicts } from './MergeConflicts';
import { Notice } from './Notice';
import { PullRequestForm } from './PullRequestForm';

export interface GitActionsProps {
  host: string;
  session: string;
  /** The operations the session changeset offers. */
  operations: string[];
  /** The session works in a worktree of its own. */
  worktree: boolean;
  /** The session's chat (a merge conflict's request to the agent goes there). */
  chat: string | null;
}

export function GitActions(p: GitActionsProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const [opening, setOpening] = useState(false);
  const [pr, setPr] = useState<PullRequestOpened | null>(null);
  const [merging, setMerging] = useState(false);
  const [merged, setMerged] = useState<MergedBack | null>(null);
  const [copied, setCopied] = useState(false);
  const base = { host: p.host, session: p.session };
  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError('');
    setNote('');
    setPr(null);
    setMerged(null);
    try {
      await work();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const push = () =>
    act(async () => {
      const r = await call('changes.push', base);
      setNote(r.message || `Pushed ${r.branch ?? ''} to ${r.upstream ?? ''}.`);
    });
  const open = (title: string, body: string, into: string | null) =>
    act(async () => {
      setPr(await call('changes.pullRequest', { ...base, title, body, base: into }));
      setOpening(false);
    });
  const mergeBack = () =>
    act(async () => {
      setMerged(await call('changes.mergeBack', { ...base, mode: null }));
    });
  const copy = (text: string) =>
    navigator.clipboard.writeText(text).then(
      () => setCopied(true),
      (e) => setError(errorText(e)),
    );
  const offers = (id: string) => p.operations.includes(id);
  return (
    <div class="changes-git" data-testid="git-actions">
      <div class="row">
        {offers('push') && (
          <button type="button" disabled={busy} data-testid="push-button" onClick={push}>
            Push
          </button>
        )}
        {offers('pullRequest') && (
          <button type="button" disabled={busy} data-testid="pr-button" onClick={() => setOpening(true)}>
            Open pull request…
          </button>
        )}
        {p.worktree && offers('mergeBack') && (
          <button type="button" disabled={busy} data-testid="merge-back-button" onClick={() => setMerging(true)}>
            Merge back
          </button>
        )}
      </div>
      {merging && (
        <ConfirmDialog
          title="Merge back?"
          message="Merge this session's branch into the branch checked out in the folder it came from? A conflict changes nothing there."
          confirmLabel="Merge back"
          testid="merge-back-dialog"
          onCancel={() => setMerging(false)}
          onConfirm={() => {
            setMerging(false);
            mergeBack();
          }}
        />
      )}
      {opening && (
        <PullRequestForm
          host={p.host}
          session={p.session}
          busy={busy}
          onOpen={open}
          onCancel={() => setOpening(false)}
        />
      )}
      {busy && <p class="muted small">Working…</p>}
      {error && <Notice error text={error} onClose={() => setError('')} testid="git-error" />}
      {note && (
        <p class="muted small" data-testid="git-note">
          {note}
        </p>
      )}
      {pr?.kind === 'opened' && (
        <p class="small" data-testid="pr-opened">
          Pull request{' '}
          <a href={pr.link.url} target="_blank" rel="noreferrer noopener" data-testid="pr-link">
            #{pr.link.number}
          </a>{' '}
          ({pr.link.state.toLowerCase()}): {pr.link.url}
        </p>
      )}
      {pr?.kind === 'command' && (
        <div class="small" data-testid="pr-command">
          <p>{pr.reason}:</p>
          <pre>
            <code data-testid="pr-command-text">{pr.command}</code>
          </pre>
          <button type="button" data-testid="pr-command-copy" onClick={() => copy(pr.command)}>
            {copied ? 'Copied' : 'Copy'}
          </button>
        </div>
      )}
      {merged?.kind === 'merged' && (
        <p class="muted small" data-testid="merge-back-done">
          {merged.message || `Merged into ${merged.into ?? 'the original branch'}.`}
        </p>
      )}
      {merged?.kind === 'conflicts' && (
        <MergeConflicts
          host={p.host}
          chat={p.chat}
          message={merged.message}
          files={merged.files}
          ours={merged.ours}
          theirs={merged.theirs}
          details={merged.details}
        />
      )}
    </div>
  );
}
