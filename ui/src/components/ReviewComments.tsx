// The review being written in the Changes panel: its comments (each file:
// lines and what was written, Edit and Delete), and "Send to agent", which
// sends them as one message (a new turn, or queued behind the running one).
// The core keeps them on disk until they are sent (`review.*`).
import { useState } from 'preact/hooks';
import { commentsText, placeText, type ReviewComment } from '../state/review';
import { CommentForm } from './CommentForm';

export interface ReviewCommentsProps {
  comments: ReviewComment[];
  busy: boolean;
  /** Replace the comments (an edit or a delete). */
  onChange: (comments: ReviewComment[]) => void;
  onSend: () => void;
  /** Show the diff of a comment's file. */
  onOpen: (c: ReviewComment) => void;
}

export function ReviewComments(p: ReviewCommentsProps) {
  const [editing, setEditing] = useState<string | null>(null);
  if (p.comments.length === 0) return null;
  return (
    <section class="review-list" data-testid="review" aria-label="Review">
      <div class="row">
        <strong data-testid="review-count">Review · {commentsText(p.comments.length)}</strong>
        <span class="spacer" />
        <button type="button" class="primary" disabled={p.busy} data-testid="review-send" onClick={p.onSend}>
          Send to agent
        </button>
      </div>
      <ul>
        {p.comments.map((c) =>
          editing === c.id ? (
            <li key={c.id} data-testid="review-comment">
              <CommentForm
                place={placeText(c)}
                initial={c.body}
                saveLabel="Save"
                testid="comment-edit"
                onCancel={() => setEditing(null)}
                onSave={(body) => {
                  setEditing(null);
                  p.onChange(p.comments.map((o) => (o.id === c.id ? { ...o, body } : o)));
                }}
              />
            </li>
          ) : (
            <li key={c.id} data-testid="review-comment">
              <div class="row small">
                <button type="button" class="link" data-testid="review-place" onClick={() => p.onOpen(c)}>
                  <code>{placeText(c)}</code>
                </button>
                <span class="spacer" />
                <button type="button" class="small" data-testid="review-edit" onClick={() => setEditing(c.id)}>
                  Edit
                </button>
                <button
                  type="button"
                  class="small"
                  data-testid="review-delete"
                  disabled={p.busy}
                  onClick={() => p.onChange(p.comments.filter((o) => o.id !== c.id))}
                >
                  Delete
                </button>
              </div>
              <p data-testid="review-body">{c.body}</p>
            </li>
          ),
        )}
      </ul>
    </section>
  );
}
