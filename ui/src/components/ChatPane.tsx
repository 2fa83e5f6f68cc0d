// An open session: header (rename, archive, dispose, the Changes and
// Customizations panels' buttons), the windowed transcript (older turns paged in with
// fetchTurns), the composer, confirmation shortcuts, and the session's
// Changes or Customizations panel beside the chat.
import { lazy, Suspense } from 'preact/compat';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { WorktreeInfo } from '../gen';
import { call, errorText, LINK_LOST, stream } from '../ipc';
import { toolChoices } from '../state/agent-tools';
import { type AgentInfo, folderName, folderPath, type SessionRow } from '../state/app-store';
import { type ChangeCounts, countsText } from '../state/changes';
import {
  allTurns,
  applyChatOp,
  type ChatOp,
  type ChatView,
  chatStatus,
  emptyChat,
  pendingConfirmation,
  type TurnView,
  visibleTurns,
} from '../state/chat-store';
import { acceptsShortcut, confirmationOptions, optionForKey } from '../state/composer';
import { currentLink, useLink } from '../state/connection';
import { agentName } from '../state/customizations';
import { type FrameFold, perFrame } from '../state/frame-batch';
import { usePhone } from '../state/phone';
import { type Anchor, anchorOf, restoredScrollTop, turnOffset } from '../state/scroll-anchor';
import { BranchState } from './BranchState';
import { ChangesPanel } from './ChangesPanel';
import { Composer } from './Composer';
import { ConfirmDialog } from './ConfirmDialog';
import { ContextMeter } from './ContextMeter';
import type { EditTarget } from './CustomizationEditor';
import { CustomizationsPanel } from './CustomizationsPanel';
import { Notice } from './Notice';
import { StartFailed } from './StartFailed';
import { Turn, type TurnActions } from './Turn';
import { type TurnFocus, useTurnFocus } from './turn-focus';
import { type CloseKind, WorktreeCloseDialog } from './WorktreeCloseDialog';

/** The editor (CodeMirror) loads on first use: it is most of the app's code. */
const CustomizationEditor = lazy(() =>
  import('./CustomizationEditor').then((m) => ({ default: m.CustomizationEditor })),
);

const PAGE = 30;
/** Whether the Customizations panel is open; kept when another session is opened. */
let panelWasOpen = false;

export function ChatPane({
  row,
  agent,
  focus = null,
  onClosed,
  onOpen,
  onOpenRule,
}: {
  row: SessionRow;
  agent?: AgentInfo;
  /** Open at this turn (a search result), scrolled to it with the match highlighted. */
  focus?: TurnFocus | null;
  onClosed: () => void;
  onOpen?: (host: string, uri: string) => void;
  /** Open the host's Rules page at this rule. */
  onOpenRule?: (host: string, rule: string) => void;
}) {
  const [view, setView] = useState<ChatView>(emptyChat);
  const [chat, setChat] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const [renaming, setRenaming] = useState(false);
  const [disposing, setDisposing] = useState(false);
  /** Archiving or disposing a session in a worktree of its own: keep or remove it. */
  const [closing, setClosing] = useState<{ kind: CloseKind; worktree: WorktreeInfo } | null>(null);
  /** The customization file open in the editor. */
  const [editing, setEditing] = useState<EditTarget | null>(null);
  /** The turn a fork is being made from. */
  const [forking, setForking] = useState<string | null>(null);
  const [panelOpen, setPanelOpenState] = useState(panelWasOpen);
  const panelButton = useRef<HTMLButtonElement>(null);
  const setPanelOpen = (open: boolean) => {
    panelWasOpen = open;
    setPanelOpenState(open);
    if (open) setChangesOpenState(false);
    // Closing gives the focus back to the button that opened it.
    if (!open) requestAnimationFrame(() => panelButton.current?.focus());
  };
  const [changesOpen, setChangesOpenState] = useState(false);
  /** The turn the Changes panel shows, or null for the session's pending changes. */
  const [changesTurn, setChangesTurn] = useState<string | null>(null);
  const openChanges = (turn: string | null) => {
    setChangesTurn(turn);
    setChangesOpen(true);
  };
  const changesButton = useRef<HTMLButtonElement>(null);
  const setChangesOpen = (open: boolean) => {
    setChangesOpenState(open);
    if (open) {
      panelWasOpen = false;
      setPanelOpenState(false);
    } else requestAnimationFrame(() => changesButton.current?.focus());
  };
  const [error, setError] = useState('');
  /** On a phone the header's less used actions sit behind "⋯". */
  const phone = usePhone();
  const [more, setMore] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);
  const [noMore, setNoMore] = useState(false);
  const loadingOlder = useRef(false);
  const anchor = useRef<Anchor | null>(null);
  // Set when fetchOlder answered "no more": the anchor is dropped by the next
  // scroll of the reader's, unless a prepended page used it first.
  const dropAnchor = useRef(false);
  const ops = useRef<FrameFold<ChatView, ChatOp> | null>(null);
  const host = row.host;
  const closeSession = (kind: CloseKind) =>
    call('session.worktree', { host, session: row.uri }).then(
      (worktree) => {
        if (worktree) setClosing({ kind, worktree });
        else if (kind === 'dispose') setDisposing(true);
        else call('session.archive', { host, session: row.uri, archived: true }).catch((e) => setError(errorText(e)));
      },
      (e) => setError(errorText(e)),
    );

  const link = useLink();
  /** The session the chat was last opened for: opened again for the same one, it is a resync. */
  const openedFor = useRef('');
  // Opened again when the link to the core comes back: the last state stays
  // shown until the new snapshot (the stream's first op) replaces it.
  useEffect(() => {
    let streamId: number | null = null;
    let alive = true;
    const epoch = link.epoch;
    const resync = openedFor.current === `${host} ${row.uri}`;
    openedFor.current = `${host} ${row.uri}`;
    if (!resync) {
      setView(emptyChat());
      setLimit(PAGE);
      setNoMore(false);
      stick.current = true;
      anchor.current = null;
      dropAnchor.current = false;
    }
    const start = resync ? (ops.current?.state() ?? emptyChat()) : emptyChat();
    // Ops are folded as they arrive and rendered once per frame: a streamed delta is one op.
    const sink = perFrame<ChatView, ChatOp>(start, applyChatOp, (v) => alive && setView(v));
    ops.current = sink;
    stream('chat.open', { host, session: row.uri }, sink.push)
      .then((r) => {
        streamId = r.streamId;
        setChat(r.chat);
        if (!alive) call('stream.close', { streamId });
      })
      .catch((e) => errorText(e) !== LINK_LOST && setError(errorText(e)));
    return () => {
      alive = false;
      // A stream of a lost link ended with it (its id may be another's now).
      if (streamId != null && currentLink().epoch === epoch) call('stream.close', { streamId }).catch(() => {});
    };
  }, [host, row.uri, link.epoch]);

  // The open session is read: clear the marker whenever new activity sets it.
  // Keyed on modifiedAt too: the read flag our markRead cleared and the next
  // turn's unread can reach the row in one update (true, then true again),
  // and a marker keyed on `unread` alone then stayed on an open session.
  useEffect(() => {
    if (row.unread && document.visibilityState === 'visible')
      call('session.markRead', { host, session: row.uri, read: true }).catch(() => {});
  }, [row.unread, row.uri, row.modifiedAt]);

  /** The turns shown, for the actions (which outlive a render). */
  const turnsRef = useRef<TurnView[]>([]);
  const actions: TurnActions = useMemo(
    () => ({
      confirm: (turnId, tc, o) =>
        call('chat.confirm', {
          host,
          chat,
          turnId,
          toolCallId: tc.toolCallId,
          approved: o.kind !== 'deny',
          optionId: o.id || null,
        }).catch((e) => setError(errorText(e))),
      inputDraft: (requestId, questionId, answer) =>
        call('chat.inputAnswer', { host, chat, requestId, questionId, answer }).catch(() => {}),
      inputComplete: (requestId, response, answers) =>
        call('chat.inputComplete', { host, chat, requestId, response, answers: answers ?? null }).catch((e) =>
          setError(errorText(e)),
        ),
      retry: (turnId) => call('chat.retry', { host, chat, turnId }).catch((e) => setError(errorText(e))),
      signIn: {
        host,
        session: row.uri,
        hostName: row.hostLabel === 'This computer' ? 'this computer' : row.hostLabel,
      },
      resend: (turnId) => {
        const message = turnsRef.current.find((t) => t.id === turnId)?.message;
        if (message) call('chat.send', { host, chat, text: message.text }).catch((e) => setError(errorText(e)));
      },
      readTerminal: (uri, from) => call('terminal.read', { host, uri, from }),
      rules: {
        context: { host, session: row.uri, folder: row.folder },
        openRule: (rule) => onOpenRule?.(host, rule),
      },
      openChanges: (turnId) => openChanges(turnId),
      fork: (turnId) => {
        setForking(turnId);
        call('session.fork', { host, chat, turnId })
          .then(
            (r) => onOpen?.(host, r.session),
            (e) => setError(errorText(e)),
          )
          .finally(() => setForking(null));
      },
    }),
    [host, chat, onOpen, onOpenRule, row.uri, row.hostLabel, row.folder],
  );

  // Keyboard: answer the first pending confirmation (digits, y, n), unless
  // the key belongs to a field, a button or an open dialog.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target instanceof Element ? e.target : null;
      const origin = { target, ctrlKey: e.ctrlKey, altKey: e.altKey, metaKey: e.metaKey, repeat: e.repeat };
      if (e.defaultPrevented || !acceptsShortcut(origin, !!document.querySelector('[role=dialog]'))) return;
      const tc = pendingConfirmation(view.active);
      if (!view.active || !tc) return;
      const o = optionForKey(e.key, confirmationOptions(tc));
      if (o) {
        e.preventDefault();
        actions.confirm(view.active.id, tc, o);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [view.active, actions]);

  const status = chatStatus(row.status, view.start);
  // A custom agent's name for the transcript (turns re-render when the customizations change).
  const agentLabel = useCallback((uri: string) => agentName(view.customizations, uri), [view.customizations]);
  const turns = allTurns(view);
  turnsRef.current = turns;
  const focusedTurn = useTurnFocus({
    focus,
    host,
    chat,
    loaded: !!view.meta,
    turns: turnsRef,
    scroller,
    stick,
    loadingOlder,
    flush: () => ops.current?.flush(),
    setLimit,
    onMissing: setError,
  });
  // The session's tool calls, for an editor open on a hook or an agent's tools.
  const recorded = useMemo(() => (editing ? recordedTools(turns) : []), [editing, turns]);
  const { hidden, shown } = visibleTurns(turns, limit);

  // "3 files changed" under each shown turn that changed files: asked again
  // when the shown turns or the session's pending counts change.
  const [turnChanges, setTurnChanges] = useState<Record<string, ChangeCounts>>({});
  const doneIds = shown.filter((t) => !t.active).map((t) => t.id);
  const doneKey = `${doneIds.join(',')}|${countsText(row.changes)}`;
  useEffect(() => {
    if (doneIds.length === 0) return;
    let alive = true;
    call('changes.turnCounts', { host, session: row.uri, turns: doneIds }).then(
      (list) => alive && setTurnChanges(Object.fromEntries(list.map((t) => [t.turn, t.counts]))),
      () => {},
    );
    return () => {
      alive = false;
    };
  }, [host, row.uri, doneKey]);

  // Older turns prepended: keep the reader's place (WebKit has no
  // overflow-anchor), so the view does not land at the top and load again.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el || !anchor.current) return;
    const { turn, offset } = anchor.current;
    const top = restoredScrollTop(anchor.current, el.scrollTop, shown[0]?.id, turnOffset(el, turn));
    if (top == null) return;
    dropAnchor.current = false;
    el.scrollTop = top;
    anchor.current = null;
    // Turns near the view render after this and replace their estimated
    // heights (content-visibility): put the turn back each frame until it
    // stays put for two frames (at most ~half a second).
    let frames = 0,
      still = 0;
    const settle = () => {
      const now = restoredScrollTop({ turn, offset }, el.scrollTop, undefined, turnOffset(el, turn));
      const moved = now != null && Math.abs(now - el.scrollTop) >= 1;
      if (moved) el.scrollTop = now;
      still = moved ? 0 : still + 1;
      if (still < 2 && ++frames < 30) requestAnimationFrame(settle);
    };
    requestAnimationFrame(settle);
  });
  // Follow the bottom while streaming unless the user scrolled up.
  useEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  });
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (dropAnchor.current) {
      dropAnchor.current = false;
      anchor.current = null;
    }
    if (el.scrollTop < 80 && !anchor.current) {
      if (hidden > 0) {
        anchor.current = anchorOf(el, shown[0]?.id);
        setLimit((l) => l + PAGE);
      } else if (!noMore && !loadingOlder.current && chat) {
        loadingOlder.current = true;
        anchor.current = anchorOf(el, shown[0]?.id);
        call('chat.fetchOlder', { host, chat })
          // With no more, the last page may have been sent or there was
          // none; in the app a large page can arrive after the answer (Tauri
          // fetches channel messages over 8 KB separately). What came is
          // rendered now, with the new limit (before the reader's next
          // scroll): a page restores the place and clears the anchor; else
          // the reader's next scroll does.
          .then((r) => {
            ops.current?.flush();
            if (!r.more) {
              dropAnchor.current = true;
              setNoMore(true);
            }
            setLimit((l) => l + PAGE);
          })
          .catch(() => {
            anchor.current = null;
            setNoMore(true);
          })
          .finally(() => {
            loadingOlder.current = false;
          });
      }
    }
  }, [hidden, noMore, host, chat, shown[0]?.id]);

  const rename = async (e: Event) => {
    e.preventDefault();
    const title = (new FormData(e.target as HTMLFormElement).get('title') as string) ?? '';
    setRenaming(false);
    await call('session.rename', { host, session: row.uri, title }).catch((err) => setError(errorText(err)));
  };
  return (
    <section class="chat" aria-label="Chat">
      <header class="chat-head">
        {renaming ? (
          <form onSubmit={rename} class="rename">
            <input
              name="title"
              data-testid="rename-input"
              value={row.title}
              autoFocus
              onBlur={() => setRenaming(false)}
            />
          </form>
        ) : (
          <h1 data-testid="chat-title" onDblClick={() => setRenaming(true)} title="Double-click to rename">
            {row.title || 'Untitled session'}
          </h1>
        )}
        <span class={`status-pill ${status.key}`} data-testid="chat-status">
          {status.label}
        </span>
        <span class="muted small">
          {folderName(row.folder)} · {row.provider}
        </span>
        <BranchState git={row.git} />
        <span class="spacer" />
        <ContextMeter view={view} />
        <button
          type="button"
          ref={changesButton}
          aria-expanded={changesOpen}
          aria-controls="changes-panel"
          data-testid="changes-button"
          onClick={() => (changesOpen && changesTurn === null ? setChangesOpen(false) : openChanges(null))}
        >
          Changes{' '}
          {countsText(row.changes) && (
            <span class="small" data-testid="changes-button-counts">
              {countsText(row.changes)}
            </span>
          )}
        </button>
        {phone && (
          <button
            type="button"
            aria-expanded={more}
            aria-label="More actions"
            data-testid="chat-more"
            onClick={() => setMore(!more)}
          >
            ⋯
          </button>
        )}
        {(!phone || more) && (
          <span class="chat-actions">
            <button
              type="button"
              ref={panelButton}
              aria-expanded={panelOpen}
              aria-controls="customizations-panel"
              data-testid="customizations-button"
              onClick={() => setPanelOpen(!panelOpen)}
            >
              Customizations
            </button>
            <button type="button" onClick={() => setRenaming(true)}>
              Rename
            </button>
            <button
              type="button"
              data-testid="archive"
              onClick={() =>
                row.archived
                  ? call('session.archive', { host, session: row.uri, archived: false })
                  : closeSession('archive')
              }
            >
              {row.archived ? 'Unarchive' : 'Archive'}
            </button>
            <button type="button" class="danger" data-testid="dispose" onClick={() => closeSession('dispose')}>
              Dispose
            </button>
          </span>
        )}
      </header>
      {disposing && (
        <ConfirmDialog
          title="Dispose this session?"
          message="Its history is deleted on the host. This cannot be undone."
          confirmLabel="Dispose"
          testid="dispose-dialog"
          onCancel={() => setDisposing(false)}
          onConfirm={() => {
            setDisposing(false);
            call('session.dispose', { host, session: row.uri }).then(onClosed, (err) => setError(errorText(err)));
          }}
        />
      )}
      {closing && (
        <WorktreeCloseDialog
          host={host}
          session={row.uri}
          kind={closing.kind}
          worktree={closing.worktree}
          onCancel={() => setClosing(null)}
          onDone={() => {
            setClosing(null);
            if (closing.kind === 'dispose') onClosed();
          }}
        />
      )}
      <div class="chat-body">
        <div class="chat-main">
          {error && <Notice error text={error} onClose={() => setError('')} />}
          <div class="transcript" ref={scroller} onScroll={onScroll} data-testid="transcript">
            {view.meta?.forkedFrom && (
              <p class="fork-note small" data-testid="fork-note">
                Forked from another session at the turn “{forkTurnText(turns, view.meta.forkedFrom.turnId)}”. It works
                in <code>{folderPath(row.folder)}</code>, a copy of the folder as that turn left it; the original
                session and folder are not changed.
              </p>
            )}
            {(hidden > 0 || !noMore) && turns.length >= PAGE && (
              <p class="muted small center">Scroll up for older turns</p>
            )}
            {shown.map((t, i) => (
              <Turn
                key={t.id}
                turn={t}
                latest={i === shown.length - 1}
                actions={actions}
                agentLabel={agentLabel}
                changes={turnChanges[t.id] ?? null}
                forking={forking === t.id}
                focused={focusedTurn === t.id}
              />
            ))}
            {turns.length === 0 && view.meta && <p class="muted center">No messages yet. Say what you want done.</p>}
          </div>
          {view.start?.lifecycle === 'failed' && (
            <StartFailed row={row} agent={agent} start={view.start} onClosed={onClosed} onOpen={onOpen} />
          )}
          {chat && <Composer host={host} session={row.uri} chat={chat} view={view} agent={agent} />}
        </div>
        {changesOpen && (
          <ChangesPanel
            key={changesTurn ?? 'session'}
            host={host}
            session={row.uri}
            chat={chat}
            running={!!view.active}
            turn={changesTurn}
            counts={row.changes}
            onClose={() => setChangesOpen(false)}
          />
        )}
        {panelOpen && (
          <CustomizationsPanel
            host={host}
            session={row.uri}
            view={view.customizations}
            provider={row.provider}
            agentLabel={agent?.displayName || row.provider}
            onClose={() => setPanelOpen(false)}
            onEdit={setEditing}
          />
        )}
      </div>
      {editing && (
        <Suspense fallback={null}>
          <CustomizationEditor
            key={editing.uri}
            host={host}
            session={row.uri}
            target={editing}
            workspace={view.customizations?.workspace ?? null}
            onClose={() => setEditing(null)}
            onOpen={setEditing}
            suggestions={{
              model: (agent?.models ?? []).map((m) => ({ value: m.id, label: m.name })),
              tools: toolChoices(
                row.provider,
                recorded.map((t) => t.toolName),
              ),
            }}
            recorded={recorded}
          />
        </Suspense>
      )}
    </section>
  );
}

/** The session's tool calls, newest first, at most 20 (a hook's test bench). */
function recordedTools(turns: TurnView[]): Array<{ toolName: string; input: string | null }> {
  const out: Array<{ toolName: string; input: string | null }> = [];
  for (let i = turns.length - 1; i >= 0 && out.length < 20; i--) {
    for (const p of [...turns[i].parts].reverse()) {
      if (p.kind === 'toolCall' && out.length < 20)
        out.push({ toolName: p.toolCall.toolName || p.toolCall.displayName, input: p.toolCall.input });
    }
  }
  return out;
}

/** The first line of the forked turn's message (60 characters at most). */
function forkTurnText(turns: TurnView[], turnId: string): string {
  const line = turns.find((t) => t.id === turnId)?.message.text.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
