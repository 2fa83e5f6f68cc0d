// The Changes panel's git actions beside Commit…, each the host's changeset
// operation run on the session's host: Push (the result, or git's reason),
// Open pull request… (PullRequestForm; the link once opened, or, when the
// host has no signed-in `gh`, the exact command to run there with a Copy
// button) and, for a session in a worktree of its own, Merge back (asked
// first, with how: MergeBackChoice, the folder's last choice preselected and
// remembered in the settings; the result, or the conflicts with both sides,
// MergeConflicts: nothing is merged then).
import { useEffect, useState } from 'preact/hooks';
import type { MergedBack, PullRequestOpened } from '../gen';
import { call, errorText } from '../ipc';
import { lastMergeMode, type MergeMode, modeArg, withMergeMode } from '../state/merge-modes';
import { ConfirmDialog } from './ConfirmDialog';
import { MergeBackChoice } from './MergeBackChoice';
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
  /** A turn is running in that chat (the request to the agent is queued behind it). */
  running: boolean;
}

/** The Merge back dialog's choices: the repository folder (remembered against), how, a squash's message. */
interface Merging {
  folder: string | null;
  remembered: MergeMode;
  mode: MergeMode;
  message: string | null;
}

export function GitActions(p: GitActionsProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [note, setNote] = useState('');
  const [opening, setOpening] = useState(false);
  const [pr, setPr] = useState<PullRequestOpened | null>(null);
  const [merging, setMerging] = useState<Merging | null>(null);
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
  const askMerge = () =>
    act(async () => {
      const [worktree, view] = await Promise.all([call('session.worktree', base), call('settings.get', {})]);
      const folder = worktree?.repository ?? null;
      const remembered = lastMergeMode(view.settings, p.host, folder ?? undefined);
      setMerging({ folder, remembered, mode: remembered, message: null });
    });
  // A squash's message starts as the host's drafted commit message.
  const drafting = merging?.mode === 'squash' && merging.message === null;
  useEffect(() => {
    if (!drafting) return;
    call('changes.commitDraft', base).then(
      (drafted) => setMerging((m) => m && { ...m, message: m.message ?? drafted }),
      (e) => setMerging((m) => m && { ...m, message: m.message ?? `(no draft: ${errorText(e)})` }),
    );
  }, [drafting]);
  /** Remember the folder's choice when it changed. */
  const remember = async (m: Merging) => {
    if (!m.folder || m.mode === m.remembered) return;
    const view = await call('settings.get', {});
    await call('settings.save', withMergeMode(view.settings, p.host, m.folder, m.mode));
  };
  const mergeBack = (m: Merging) =>
    act(async () => {
      const message = m.mode === 'squash' ? m.message : null;
      setMerged(await call('changes.mergeBack', { ...base, mode: modeArg(m.mode), message }));
      await remember(m).catch(() => {});
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
          <button type="button" disabled={busy} data-testid="merge-back-button" onClick={askMerge}>
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
          confirmDisabled={merging.mode === 'squash' && !merging.message?.trim()}
          onCancel={() => setMerging(null)}
          onConfirm={() => {
            setMerging(null);
            mergeBack(merging);
          }}
        >
          <MergeBackChoice
            mode={merging.mode}
            message={merging.message}
            onMode={(mode) => setMerging({ ...merging, mode })}
            onMessage={(message) => setMerging({ ...merging, message })}
          />
        </ConfirmDialog>
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
          running={p.running}
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
