// The session header's branch state, from the session row's `git` (the
// host's `_meta["hangar/git"]`): "hangar/fix ↑2 ↓0", and the pull request
// opened from the session with its state.
import type { GitState } from '../gen';

export function BranchState({ git }: { git: GitState | null }) {
  if (!git) return null;
  const counted = git.against ? ` ↑${git.ahead} ↓${git.behind}` : '';
  const title = git.against
    ? `${git.ahead} commit(s) ahead of ${git.against}, ${git.behind} behind`
    : 'No upstream to compare with';
  const pr = git.pullRequest;
  return (
    <span class="muted small branch-state">
      <code data-testid="chat-branch" data-ahead={git.ahead} data-behind={git.behind} title={title}>
        {git.branch ?? 'detached HEAD'}
        {counted}
      </code>
      {pr && (
        <>
          {' '}
          <a href={pr.url} target="_blank" rel="noreferrer noopener" data-testid="chat-pr" title={pr.url}>
            #{pr.number} {pr.state.toLowerCase()}
          </a>
        </>
      )}
    </span>
  );
}
