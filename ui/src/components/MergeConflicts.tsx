// A merge back that would conflict, shown as conflicts: per file, each
// conflicting block with both sides (ours: the folder's branch; theirs:
// this session's branch), read-only, like a merge editor's two panes; and
// what to do next: ask the agent to merge the folder's branch into its
// worktree and resolve it (one click: that request goes to the chat as a
// turn, or is queued behind the running one, as the Composer queues), or
// do it by hand. Nothing was
// merged; Merge back again once the branch has the folder's commits.
import { useState } from 'preact/hooks';
import type { ConflictFile, ConflictHunk } from '../gen';
import { call, errorText } from '../ipc';

/** The request "Ask the agent to merge" sends. */
export function mergeRequest(ours: string, theirs: string, files: string[]): string {
  return `Merging this session's branch ${theirs} back into ${ours} conflicts in ${files.join(', ')}. Merge ${ours} into ${theirs} here with git (\`git merge ${ours}\`), resolve the conflicts keeping what both sides meant, run the checks, and commit the merge.`;
}

function Side({ label, lines, testid }: { label: string; lines: string[]; testid: string }) {
  return (
    <div class="conflict-side" data-testid={testid}>
      <div class="conflict-side-label small muted">{label}</div>
      <pre>{lines.length ? lines.join('\n') : '(nothing)'}</pre>
    </div>
  );
}

function Hunk({ hunk, ours, theirs }: { hunk: ConflictHunk; ours: string; theirs: string }) {
  return (
    <div class="conflict-hunk" data-testid="conflict-hunk" data-line={hunk.line}>
      <div class="small muted">
        Line {hunk.line}
        {hunk.truncated ? ' (cut short)' : ''}
      </div>
      <div class="conflict-sides">
        <Side label={`${ours} (the folder's branch)`} lines={hunk.ours} testid="conflict-ours" />
        <Side label={`${theirs} (this session)`} lines={hunk.theirs} testid="conflict-theirs" />
      </div>
      {hunk.base && <Side label="Common ancestor" lines={hunk.base} testid="conflict-base" />}
    </div>
  );
}

export function MergeConflicts({
  host,
  chat,
  running,
  message,
  files,
  ours,
  theirs,
  details,
}: {
  host: string;
  /** The session's chat, for the request to the agent. */
  chat: string | null;
  /** A turn is running there: the request is queued behind it. */
  running: boolean;
  message: string;
  files: string[];
  ours: string | null;
  theirs: string | null;
  details: ConflictFile[];
}) {
  const [asked, setAsked] = useState('');
  const into = ours ?? 'the folder’s branch';
  const from = theirs ?? 'this session’s branch';
  const ask = async () => {
    if (!chat) return;
    const text = mergeRequest(into, from, files);
    try {
      if (running) {
        await call('chat.queue', { host, chat, text, kind: 'queued' });
        setAsked('Queued behind the running turn: the agent merges once that turn ends. Then Merge back again.');
      } else {
        await call('chat.send', { host, chat, text });
        setAsked('Asked the agent: follow it in the chat, then Merge back again.');
      }
    } catch (e) {
      setAsked(errorText(e));
    }
  };
  const shown = new Map(details.map((d) => [d.path, d]));
  return (
    <div class="small merge-conflicts" data-testid="merge-back-conflicts">
      <p class="error">{message}</p>
      <p class="muted">Nothing was merged. These files conflict:</p>
      {files.map((f) => {
        const d = shown.get(f);
        return (
          <section key={f} class="conflict-file" data-testid="conflict-file" data-path={f}>
            <code class="conflict-path">{f}</code>
            {d?.hunks.length ? (
              d.hunks.map((h) => <Hunk key={h.line} hunk={h} ours={into} theirs={from} />)
            ) : (
              <p class="muted">No text to show: deleted on one side, binary, or not described by the host.</p>
            )}
          </section>
        );
      })}
      <div class="conflict-next">
        <p>What next:</p>
        <div class="row">
          <button type="button" disabled={!chat} data-testid="conflict-ask-agent" onClick={ask}>
            Ask the agent to merge {into} into its branch
          </button>
        </div>
        {asked && (
          <p class="muted" data-testid="conflict-asked">
            {asked}
          </p>
        )}
        <p class="muted">
          Or by hand: in the session's worktree run <code>git merge {into}</code>, resolve the files, commit, then Merge
          back again.
        </p>
      </div>
    </div>
  );
}
