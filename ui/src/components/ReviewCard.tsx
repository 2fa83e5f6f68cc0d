// A review sent to the agent, as the transcript shows it: "Review · N
// comments", then each comment's file:lines and what was written; the
// quoted lines open under each (not the message's full text).
import { commentsText, placeText, type ReviewComment } from '../state/review';

export function ReviewCard({ comments }: { comments: ReviewComment[] }) {
  return (
    <details class="review-card" data-testid="review-card" open>
      <summary>Review · {commentsText(comments.length)}</summary>
      <ol>
        {comments.map((c) => (
          <li key={c.id} data-testid="review-card-comment">
            <details>
              <summary>
                <code>{placeText(c)}</code>
              </summary>
              <pre>{c.quote.join('\n')}</pre>
            </details>
            <p>{c.body}</p>
          </li>
        ))}
      </ol>
    </details>
  );
}
