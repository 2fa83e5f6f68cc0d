// The composer: send, or while a turn runs queue / steer; cancel; custom
// agent choice (the session's enabled agents; hidden when it has none),
// model choice, and the agent's own settings for the session (its mode —
// plan, accept edits, read-only… — and others such as reasoning effort); `@` mentions through the host's `completions`; the draft synced
// with chat/draftChanged so it survives switching sessions. While the
// agent starts it says so, and Send hands the message to the core, which
// holds it (listed here) and sends it once the session is ready; after a
// failed start it takes no messages (the chat pane shows why).
import { useEffect, useRef, useState } from 'preact/hooks';
import type { CompletionItemView } from '../gen/CompletionItemView';
import { call, errorText, LINK_LOST } from '../ipc';
import type { AgentInfo } from '../state/app-store';
import { type ChatView, isStarting, startFailed } from '../state/chat-store';
import { applyCompletion, mentionAt, moveInOrder } from '../state/composer';
import { currentLink } from '../state/connection';
import { agentChoices } from '../state/customizations';
import { completionNote, mentionAttachments, type PickedMention, rememberPick } from '../state/mentions';
import { addToOutbox, newEntryId } from '../state/outbox';
import { flushOutbox } from '../state/outbox-flush';
import { usePhone } from '../state/phone';
import { OutboxList } from './OutboxList';

export function Composer({
  host,
  session,
  chat,
  view,
  agent,
}: {
  host: string;
  session: string;
  chat: string;
  view: ChatView;
  agent?: AgentInfo;
}) {
  const [text, setText] = useState(view.meta?.draft ?? '');
  const [model, setModel] = useState('');
  const [customAgent, setCustomAgent] = useState('');
  const [items, setItems] = useState<CompletionItemView[]>([]);
  const [picked, setPicked] = useState<PickedMention[]>([]);
  const [error, setError] = useState('');
  const area = useRef<HTMLTextAreaElement>(null);
  const draftTimer = useRef<number | undefined>(undefined);
  // Completions answered out of order (one request per keystroke) must not
  // replace the list for the text typed since: only the newest counts.
  const completionSeq = useRef(0);
  const running = !!view.active;
  const phone = usePhone();
  const queued = view.meta?.queued ?? [];
  const starting = isStarting(view);
  const failed = startFailed(view);
  const held = view.start?.held ?? [];
  const unsent = view.start?.unsent ?? [];
  const settings = view.start?.settings ?? [];
  const agentName = agent?.displayName || view.start?.provider || 'the agent';
  const agents = agentChoices(view.customizations);
  // A choice that was turned off or removed is dropped, not sent.
  const chosenAgent = agents.some((a) => a.uri === customAgent) ? customAgent : '';

  // A draft changed by another client (or loaded with the chat) shows up here.
  useEffect(() => {
    const d = view.meta?.draft ?? '';
    if (document.activeElement !== area.current) setText(d);
  }, [view.meta?.draft, chat]);

  // Picked mentions belong to the chat they were typed in.
  useEffect(() => setPicked([]), [chat]);

  const syncDraft = (t: string) => {
    window.clearTimeout(draftTimer.current);
    draftTimer.current = window.setTimeout(() => call('chat.draft', { host, chat, text: t }).catch(() => {}), 400);
  };
  // The messages this composer has sent, chained (see `submit`).
  const sending = useRef<Promise<unknown>>(Promise.resolve());
  // A command's failure shows next to the buttons.
  const run = async (sent: Promise<unknown>) => {
    setError('');
    try {
      await sent;
    } catch (e) {
      setError(errorText(e));
    }
  };
  const submit = async (kind: 'send' | 'queued' | 'steering') => {
    const t = text.trim();
    if (!t || failed) return;
    const attachments = mentionAttachments(t, picked);
    setText('');
    setItems([]);
    setPicked([]);
    window.clearTimeout(draftTimer.current);
    const chosen = { model: model || null, agent: chosenAgent || null, attachments };
    // The link to the core is down (a browser on a bad network): the
    // message waits in the browser's outbox and goes when it is back.
    const keep = (tried: boolean) => {
      const last = view.active?.id ?? view.turns.at(-1)?.id ?? null;
      addToOutbox(localStorage, { id: newEntryId(), host, session, text: t, kind, afterTurn: last, tried });
    };
    if (!currentLink().up) {
      keep(false);
      return;
    }
    setError('');
    // One after another, in the order they were typed: the core runs each
    // call on a task of its own, so two in flight could reach the host in
    // either order (three quick "Queue"s came out A, C, B under load).
    const sent = sending.current.then(
      (): Promise<unknown> =>
        kind === 'send'
          ? call('chat.send', { host, chat, text: t, ...chosen })
          : call('chat.queue', { host, chat, text: t, kind, ...chosen }),
    );
    sending.current = sent.catch(() => {});
    try {
      await sent;
    } catch (e) {
      // Lost on the way: it may have arrived; the outbox finds out before sending it again.
      if (errorText(e) === LINK_LOST) keep(true);
      else setError(errorText(e));
      return;
    }
    call('chat.draft', { host, chat, text: null }).catch(() => {});
  };
  const onInput = async (e: Event) => {
    const el = e.target as HTMLTextAreaElement;
    setText(el.value);
    syncDraft(el.value);
    const seq = ++completionSeq.current;
    const m = mentionAt(el.value, el.selectionStart ?? el.value.length);
    if (!m) {
      setItems([]);
      return;
    }
    try {
      const r = await call('chat.completions', {
        host,
        chat,
        text: el.value,
        offset: el.selectionStart ?? el.value.length,
      });
      if (seq === completionSeq.current) setItems(r.items.slice(0, 8));
    } catch {
      if (seq === completionSeq.current) setItems([]);
    }
  };
  const pick = (item: CompletionItemView) => {
    const el = area.current;
    const caret = el?.selectionStart ?? text.length;
    const next = applyCompletion(text, caret, item);
    completionSeq.current++;
    setText(next.text);
    setItems([]);
    setPicked((p) => rememberPick(p, item));
    syncDraft(next.text);
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(next.caret, next.caret);
    });
  };
  const onKey = (e: KeyboardEvent) => {
    // On a phone Enter is a new line (the on-screen keyboard has no Shift+Enter); Send sends.
    if (e.key === 'Enter' && !e.shiftKey && !phone) {
      e.preventDefault();
      if (items.length) pick(items[0]);
      else submit(running ? 'queued' : 'send');
    }
    if (e.key === 'Escape' && items.length) setItems([]);
  };
  const order = queued.map((q) => q.id);
  const placeholder = failed
    ? view.start?.signIn
      ? `Sign in to ${agentName} above to start this chat`
      : `${agentName} did not start; this chat takes no messages`
    : starting
      ? `Starting ${agentName}… a message sent now goes out once it is ready`
      : running
        ? phone
          ? 'Queue a follow-up or steer the running turn…'
          : 'Queue a follow-up (Enter) or steer the running turn…'
        : phone
          ? 'Message the agent (@ for a file, / for commands)'
          : 'Message the agent (Enter to send, @ to mention a file, / for commands)';
  return (
    <div class="composer">
      {starting && (
        <p class="starting small" data-testid="starting">
          Starting {agentName}…
        </p>
      )}
      <OutboxList host={host} session={session} onRetry={flushOutbox} />
      {unsent.length > 0 && (
        <ul class="queue" data-testid="unsent">
          {unsent.map((m) => (
            <li key={m.id} data-testid="unsent-message">
              <span class="q-text">{m.text}</span>
              <span class="muted small">not sent yet: kept until the host is back</span>
            </li>
          ))}
        </ul>
      )}
      {held.length > 0 && (
        <ul class="queue" data-testid="held">
          {held.map((m) => (
            <li key={m.id} data-testid="held-message">
              <span class="q-text">{m.text}</span>
              {starting && <span class="muted small">sends when ready</span>}
            </li>
          ))}
        </ul>
      )}
      {(queued.length > 0 || view.meta?.steering) && (
        <ul class="queue" data-testid="queue">
          {view.meta?.steering && (
            <li class="steer" data-testid="steering">
              Steering: {view.meta.steering.text}
            </li>
          )}
          {queued.map((q, i) => (
            <li key={q.id} data-testid="queued-message">
              <span class="q-text">{q.text}</span>
              <button
                type="button"
                title="Move up"
                disabled={i === 0}
                onClick={() => run(call('chat.reorderQueued', { host, chat, order: moveInOrder(order, q.id, -1) }))}
              >
                ↑
              </button>
              <button
                type="button"
                title="Move down"
                disabled={i === queued.length - 1}
                onClick={() => run(call('chat.reorderQueued', { host, chat, order: moveInOrder(order, q.id, 1) }))}
              >
                ↓
              </button>
              <button
                type="button"
                title="Remove"
                onClick={() => run(call('chat.removeQueued', { host, chat, id: q.id, kind: 'queued' }))}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
      {items.length > 0 && (
        <ul class="mentions" role="listbox" data-testid="mentions">
          {items.map((it) => (
            <li>
              <button type="button" onClick={() => pick(it)}>
                {it.insertText}
                {completionNote(it.attachment) && <span class="note">{completionNote(it.attachment)}</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
      <textarea
        ref={area}
        data-testid="composer-input"
        rows={3}
        value={text}
        onInput={onInput}
        onKeyDown={onKey}
        disabled={failed}
        placeholder={placeholder}
      />
      <div class="composer-actions">
        {agents.length > 0 && (
          <select
            value={chosenAgent}
            onChange={(e) => setCustomAgent((e.target as HTMLSelectElement).value)}
            title="Custom agent for the next messages"
            aria-label="Custom agent"
            data-testid="agent-select"
          >
            <option value="">No custom agent</option>
            {agents.map((a) => (
              <option value={a.uri} title={a.description ?? ''}>
                {a.name}
              </option>
            ))}
          </select>
        )}
        {agent && agent.models.length > 0 && (
          <select
            value={model}
            onChange={(e) => setModel((e.target as HTMLSelectElement).value)}
            title="Model"
            data-testid="model-select"
          >
            <option value="">Default model</option>
            {agent.models.map((m) => (
              <option value={m.id}>{m.name || m.id}</option>
            ))}
          </select>
        )}
        {settings.map((st) => (
          <select
            value={st.value ?? ''}
            onChange={(e) =>
              run(call('session.setting', { host, session, key: st.key, value: (e.target as HTMLSelectElement).value }))
            }
            title={st.description ?? st.title}
            aria-label={st.title}
            data-testid={`setting-${st.key}`}
          >
            {st.options.map((o) => (
              <option value={o.value} title={o.description ?? ''}>
                {`${st.title}: ${o.label}`}
              </option>
            ))}
          </select>
        ))}
        <span class="spacer" />
        {error && (
          <span class="error small" role="alert">
            {error}
          </span>
        )}
        {running ? (
          <>
            <button type="button" data-testid="steer" onClick={() => submit('steering')}>
              Steer
            </button>
            <button type="button" class="primary" data-testid="queue-button" onClick={() => submit('queued')}>
              Queue
            </button>
            <button
              type="button"
              class="danger"
              data-testid="cancel-turn"
              onClick={() => run(call('chat.cancel', { host, chat }))}
            >
              Cancel turn
            </button>
          </>
        ) : (
          <button type="button" class="primary" data-testid="send" disabled={failed} onClick={() => submit('send')}>
            Send
          </button>
        )}
      </div>
    </div>
  );
}
