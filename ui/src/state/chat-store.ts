// The open chat as the UI holds it, updated by the core's chat-stream ops
// (snapshot, batch, meta, active, part, turnMeta, turnDone, older, start). These
// are view patches computed in Rust from reduced AHP state; no AHP reducer
// runs here. A streamed token replaces one part of the active turn and
// leaves every other turn object untouched.

import { type SessionStatus, statusLabel } from './app-store';

export interface MessageView {
  text: string;
  model?: string | null;
  attachments?: { label?: string | null; uri?: string | null }[];
}
export interface TurnView {
  id: string;
  active: boolean;
  startedAt?: string | null;
  duration?: number | null;
  message: MessageView;
  parts: any[];
  usage?: any;
  state?: string | null;
}
export interface PendingView {
  id: string;
  text: string;
}
export interface ChatMeta {
  resource: string;
  title: string;
  status: number;
  activity?: string | null;
  queued: PendingView[];
  steering?: PendingView | null;
  draft?: string | null;
  olderCursor?: string | null;
  activeTurnId?: string | null;
}
/** The session's start: `creating` until the agent is ready; messages sent meanwhile are held by the core. */
export interface StartView {
  lifecycle: 'creating' | 'ready' | 'failed';
  provider?: string | null;
  error?: string | null;
  held: PendingView[];
}
export interface ChatView {
  meta: ChatMeta | null;
  turns: TurnView[];
  active: TurnView | null;
  start: StartView | null;
  version: number;
}

export const emptyChat = (): ChatView => ({ meta: null, turns: [], active: null, start: null, version: 0 });

function applyOne(s: ChatView, op: any): ChatView {
  switch (op.op) {
    case 'snapshot':
      return {
        meta: op.meta,
        turns: op.turns,
        active: op.active ?? null,
        start: op.start ?? null,
        version: s.version + 1,
      };
    case 'start':
      return { ...s, start: op.start };
    case 'batch':
      return op.ops.reduce(applyOne, s);
    case 'meta':
      return { ...s, meta: op.meta };
    case 'active':
      return { ...s, active: op.turn ?? null };
    case 'part': {
      if (!s.active || s.active.id !== op.turnId) return s;
      const parts = s.active.parts.slice();
      parts[op.index] = op.part;
      return { ...s, active: { ...s.active, parts } };
    }
    case 'turnMeta':
      if (!s.active || s.active.id !== op.turnId) return s;
      return { ...s, active: { ...s.active, usage: op.usage } };
    case 'turnDone': {
      const turns = s.turns.filter((t) => t.id !== op.turn.id);
      turns.push(op.turn);
      const active = s.active?.id === op.turn.id ? null : s.active;
      return { ...s, turns, active };
    }
    case 'older':
      return { ...s, turns: [...op.turns, ...s.turns] };
    default:
      return s;
  }
}

export const applyChatOp = applyOne;

/** Every turn in display order, the running one last. */
export function allTurns(s: ChatView): TurnView[] {
  return s.active ? [...s.turns, s.active] : s.turns;
}

/** Windowed rendering: how many of the newest turns to mount. */
export function visibleTurns(turns: TurnView[], limit: number): { hidden: number; shown: TurnView[] } {
  const hidden = Math.max(0, turns.length - limit);
  return { hidden, shown: turns.slice(hidden) };
}

export const isRunning = (s: ChatView) => !!s.active;

/**
 * The chat header's status pill: the agent's start while it is not ready
 * (from the chat's `start` view, which may arrive before the row says
 * starting / failed), else the session row's status.
 */
export function chatStatus(rowStatus: SessionStatus, start: StartView | null): { key: string; label: string } {
  if (start?.lifecycle === 'creating') return { key: 'working', label: 'Starting' };
  if (start?.lifecycle === 'failed') return { key: 'error', label: 'Failed to start' };
  return { key: rowStatus, label: statusLabel[rowStatus] };
}

/**
 * The part of `turn` that offers Retry: its last error part, when that
 * error is resumable and `turn` is the chat's latest turn (retrying an
 * older turn would resume a conversation that has moved on). -1 if none.
 */
export function retryPartIndex(turn: TurnView, latest: boolean): number {
  if (!latest || turn.active) return -1;
  for (let i = turn.parts.length - 1; i >= 0; i--) {
    const p = turn.parts[i];
    if (p?.kind === 'error') return p.resumable ? i : -1;
  }
  return -1;
}

/** Whether the session's agent is still starting (Send holds the message). */
export const isStarting = (s: ChatView) => s.start?.lifecycle === 'creating';

/** Whether the session's agent failed to start (no turns; show why). */
export const startFailed = (s: ChatView) => s.start?.lifecycle === 'failed';

/** The tool call state inside a toolCall part. */
export const toolCallOf = (part: any) => part?.toolCall ?? null;

/** Plain text of a StringOrMarkdown. */
export function plain(v: any): string {
  if (v == null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'object' && typeof v.markdown === 'string') return v.markdown;
  return '';
}

/** The full input a tool call will run with, as text (JSON pretty-printed). */
export function toolInputText(tc: { input?: string | null; inputUri?: string | null }): string {
  const input = tc.input;
  if (input == null) return tc.inputUri ? `(input at ${tc.inputUri})` : '';
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

export function usageText(u: any): string {
  if (!u) return '';
  const parts = [] as string[];
  if (u.inputTokens != null) parts.push(`${u.inputTokens} in`);
  if (u.outputTokens != null) parts.push(`${u.outputTokens} out`);
  if (u.cacheReadTokens) parts.push(`${u.cacheReadTokens} cached`);
  if (u.model) parts.push(u.model);
  return parts.join(' · ');
}
