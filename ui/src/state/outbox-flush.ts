// Sends the browser's outbox (outbox.ts) when the link to the core is up:
// per session, in order, each entry once. The chat is opened first: its
// snapshot gives the chat's URI and says whether an entry handed over
// before the link dropped (no answer came) already arrived, which is then
// dropped instead of sent again; a running turn makes the entry queue
// behind it. An entry leaves the outbox when the core acknowledges it. A
// lost link stops the round (the next link starts another); a refusal
// keeps the entry with the reason, and the session's later entries wait
// behind it (their order is kept).
import { call, errorText, LINK_LOST, stream } from '../ipc';
import { applyChatOp, type ChatView, emptyChat } from './chat-store';
import { currentLink } from './connection';
import {
  alreadyDelivered,
  dropFromOutbox,
  type OutboxEntry,
  outboxSessions,
  readOutbox,
  updateInOutbox,
} from './outbox';

/** How long a chat's snapshot may take before the round gives up (it runs again on the next link). */
const SNAPSHOT_MS = 15000;

let running: Promise<void> | null = null;
let again = false;

/** Send what the outbox holds; a call while a round runs makes one more round after it. */
export function flushOutbox(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    do {
      again = false;
      for (const [host, session] of outboxSessions(localStorage)) {
        if (!(await flushSession(host, session))) return;
      }
    } while (again);
  })().finally(() => {
    running = null;
  });
  return running;
}

/** One session's entries; false when the link was lost. */
async function flushSession(host: string, session: string): Promise<boolean> {
  const entries = readOutbox(localStorage, host, session);
  if (entries.length === 0 || entries[0].error) return true;
  let opened: { chat: string; view: ChatView; close: () => void };
  try {
    opened = await openChat(host, session);
  } catch (e) {
    return errorText(e) !== LINK_LOST;
  }
  try {
    for (const e of entries) {
      if (e.error) break;
      const { view } = opened;
      const turns = [...view.turns, ...(view.active ? [view.active] : [])];
      if (e.tried && alreadyDelivered(e, turns, view.meta?.queued ?? [])) {
        dropFromOutbox(localStorage, host, session, e.id);
        continue;
      }
      updateInOutbox(localStorage, host, session, e.id, { tried: true });
      try {
        await send(opened.chat, e, !!view.active);
        dropFromOutbox(localStorage, host, session, e.id);
      } catch (err) {
        const why = errorText(err);
        if (why === LINK_LOST) return false;
        updateInOutbox(localStorage, host, session, e.id, { tried: false, error: why });
        break;
      }
    }
    return true;
  } finally {
    opened.close();
  }
}

function send(chat: string, e: OutboxEntry, turnRunning: boolean) {
  const { host, text } = e;
  if (e.kind === 'send' && !turnRunning) return call('chat.send', { host, chat, text });
  return call('chat.queue', { host, chat, text, kind: e.kind === 'steering' ? 'steering' : 'queued' });
}

/** Open a session's chat until its snapshot has arrived: its URI, the view (kept current) and the close. */
function openChat(host: string, session: string): Promise<{ chat: string; view: ChatView; close: () => void }> {
  return new Promise((resolve, reject) => {
    const out = { chat: '', view: emptyChat(), close: () => {} };
    let opened = false;
    const ready = () => {
      if (opened && out.view.meta) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    const timer = setTimeout(() => {
      out.close();
      reject(new Error('the chat did not open in time'));
    }, SNAPSHOT_MS);
    stream('chat.open', { host, session }, (op) => {
      out.view = applyChatOp(out.view, op);
      ready();
    }).then(
      (r) => {
        out.chat = r.chat;
        const epoch = currentLink().epoch;
        // A stream of a lost link ended with it (its id may be another's now).
        out.close = () => {
          if (currentLink().epoch === epoch) call('stream.close', { streamId: r.streamId }).catch(() => {});
        };
        opened = true;
        ready();
      },
      (e) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
