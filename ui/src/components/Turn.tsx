// One turn: the user's message, then each response part. memo() keeps a
// finished turn from re-rendering while another one streams.
import { memo } from 'preact/compat';
import { type ChangeCounts, filesText } from '../state/changes';
import { type PartView, retryPartIndex, type ToolCallView, type TurnView, usageText } from '../state/chat-store';
import type { OptionView } from '../state/composer';
import type { Answers, AnswerView, InputRequestPart } from '../state/input-form';
import { InputRequestForm } from './InputRequestForm';
import { PaperclipIcon } from './icons';
import { Markdown } from './Markdown';
import { ReviewCard } from './ReviewCard';
import { SignIn } from './SignIn';
import type { ReadTerminal } from './TerminalOutput';
import { ToolCall, type ToolCallRules } from './ToolCall';

export interface TurnActions {
  confirm: (turnId: string, tc: ToolCallView, o: OptionView) => void;
  inputDraft: (requestId: string, questionId: string, answer: AnswerView | null) => void;
  inputComplete: (requestId: string, response: NonNullable<InputRequestPart['response']>, answers?: Answers) => void;
  retry: (turnId: string) => void;
  /** A tool call's terminal output after byte `from`. */
  readTerminal: ReadTerminal;
  /** Open the Changes panel on this turn's changes. */
  openChanges: (turnId: string) => void;
  /** Fork the chat at this (completed) turn into a new session. */
  fork: (turnId: string) => void;
  /** Where a sign-in the latest turn asks for happens. */
  signIn: { host: string; session: string; hostName: string };
  /** Send this turn's message again (its agent was just signed in). */
  resend: (turnId: string) => void;
  /** Approval rules: the session's scopes, and the Rules page. */
  rules: ToolCallRules;
}

function Part({
  part,
  turnId,
  live,
  retry,
  latest,
  actions,
}: {
  part: PartView | undefined;
  turnId: string;
  live: boolean;
  retry: boolean;
  /** The part is in the chat's latest turn. */
  latest: boolean;
  actions: TurnActions;
}) {
  if (!part) return null;
  switch (part.kind) {
    case 'markdown':
      return <Markdown blocks={part.blocks} className="assistant" streaming={live} />;
    case 'reasoning':
      return (
        <details class="reasoning">
          <summary>Thinking</summary>
          <Markdown blocks={part.blocks} streaming={live} />
        </details>
      );
    case 'toolCall':
      return (
        <ToolCall
          part={part}
          onConfirm={(tc, o) => actions.confirm(turnId, tc, o)}
          readTerminal={actions.readTerminal}
          rules={actions.rules}
        />
      );
    case 'inputRequest':
      return (
        <InputRequestForm part={part} live={live} onDraft={actions.inputDraft} onComplete={actions.inputComplete} />
      );
    case 'error':
      return (
        <div class="turn-error" role="alert" data-testid="turn-error">
          <span>
            <strong>{part.signIn ? 'Sign-in needed' : part.error.errorType || 'Error'}</strong>: {part.error.message}
          </span>
          {retry && (
            <button type="button" data-testid="retry" onClick={() => actions.retry(turnId)}>
              Retry
            </button>
          )}
          {part.signIn && latest && (
            <div class="turn-sign-in">
              <p class="small">Sign in, and your message is sent again.</p>
              <SignIn {...actions.signIn} signIn={part.signIn} onSignedIn={() => actions.resend(turnId)} />
            </div>
          )}
        </div>
      );
    case 'systemNotification':
      return <p class="muted small">{part.content}</p>;
    case 'contentRef':
      return (
        <p class="small">
          <PaperclipIcon /> <code>{part.uri}</code>
        </p>
      );
    default:
      return null;
  }
}

/** A part's key: its id, its tool call's id, else its place. */
function partKey(p: PartView, i: number): string | number {
  if (p.kind === 'markdown' || p.kind === 'reasoning') return p.id;
  if (p.kind === 'toolCall') return p.toolCall.toolCallId;
  return i;
}

export const Turn = memo(function Turn({
  turn,
  latest,
  actions,
  agentLabel,
  changes,
  forking = false,
  focused = false,
}: {
  turn: TurnView;
  latest: boolean;
  actions: TurnActions;
  /** A fork from this turn is being made. */
  forking?: boolean;
  /** A search result opened the chat at this turn. */
  focused?: boolean;
  /** The files this turn changed, when it changed any. */
  changes?: ChangeCounts | null;
  /** A custom agent's name, from its URI. */
  agentLabel?: (uri: string) => string;
}) {
  const retryAt = retryPartIndex(turn, latest);
  return (
    <article
      class={`turn ${turn.active ? 'active' : ''} ${turn.state ?? ''} ${focused ? 'search-focus' : ''}`}
      data-testid="turn"
      data-turn={turn.id}
      data-search-focus={focused ? 'true' : undefined}
    >
      <div class="user-msg">
        {turn.message.agent && (
          <span class="msg-agent small" data-testid="message-agent" title={turn.message.agent}>
            to {agentLabel ? agentLabel(turn.message.agent) : turn.message.agent}
          </span>
        )}
        {turn.message.review ? <ReviewCard comments={turn.message.review} /> : turn.message.text}
        {!turn.message.review && (turn.message.attachments?.length ?? 0) > 0 && (
          <div class="msg-attachments small muted">
            {(turn.message.attachments ?? []).map((a) => (
              <span data-testid="message-attachment" title={a.uri ?? ''}>
                <PaperclipIcon /> {a.label || a.uri}
              </span>
            ))}
          </div>
        )}
      </div>
      <div class="response">
        {turn.parts.map((p, i) => (
          <Part
            key={partKey(p, i)}
            part={p}
            turnId={turn.id}
            live={!!turn.active}
            retry={i === retryAt}
            latest={latest}
            actions={actions}
          />
        ))}
        {turn.active && turn.parts.length === 0 && <p class="muted small typing">Working…</p>}
      </div>
      <footer class="turn-foot small muted">
        {turn.state && turn.state !== 'complete' && <span class={`badge ${turn.state}`}>{turn.state}</span>}
        {turn.usage && <span data-testid="turn-usage">{usageText(turn.usage)}</span>}
        {changes && changes.files > 0 && (
          <button
            type="button"
            class="link turn-changes"
            data-testid="turn-changes"
            onClick={() => actions.openChanges(turn.id)}
          >
            {filesText(changes.files)} changed <span class="add">+{changes.added}</span>{' '}
            <span class="del">−{changes.removed}</span>
          </button>
        )}
        {!turn.active && (
          <button
            type="button"
            class="link turn-fork"
            data-testid="turn-fork"
            disabled={forking}
            title="A new session with this conversation up to here, in a copy of the folder as this turn left it. This session and its folder are not changed."
            onClick={() => actions.fork(turn.id)}
          >
            {forking ? 'Forking…' : 'Fork from here'}
          </button>
        )}
      </footer>
    </article>
  );
});
