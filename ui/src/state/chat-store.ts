// The open chat as the UI holds it, updated by the core's chat-stream ops
// (snapshot, batch, meta, active, part, partAppend, turnMeta, turnDone,
// older, start, customizations). These are view patches computed in Rust from reduced AHP
// state; no AHP reducer runs here. A streamed token replaces one part of the
// active turn, or (partAppend) the last blocks of a markdown part, and
// leaves every other turn object untouched.

import type { ChatMeta } from '../gen/ChatMeta';
import type { ChatOp } from '../gen/ChatOp';
import type { CustomizationsView } from '../gen/CustomizationsView';
import type { PartView } from '../gen/PartView';
import type { StartView } from '../gen/StartView';
import type { ToolCallView } from '../gen/ToolCallView';
import type { TurnView } from '../gen/TurnView';
import type { UsageView } from '../gen/UsageView';
import { type SessionStatus, statusLabel } from './app-store';

export type { ChatMeta, ChatOp, PartView, StartView, ToolCallView, TurnView, UsageView };

/** The open chat: what the chat stream's ops built. */
export interface ChatView {
  meta: ChatMeta | null;
  turns: TurnView[];
  active: TurnView | null;
  start: StartView | null;
  /** The session's customizations (`null` until the snapshot). */
  customizations: CustomizationsView | null;
  version: number;
}

export const emptyChat = (): ChatView => ({
  meta: null,
  turns: [],
  active: null,
  start: null,
  customizations: null,
  version: 0,
});

function applyOne(s: ChatView, op: ChatOp): ChatView {
  switch (op.op) {
    case 'snapshot':
      return {
        meta: op.meta,
        turns: op.turns,
        active: op.active ?? null,
        start: op.start ?? null,
        customizations: op.customizations ?? null,
        version: s.version + 1,
      };
    case 'start':
      return { ...s, start: op.start };
    case 'customizations':
      return { ...s, customizations: op.view };
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
    case 'partAppend': {
      const part = s.active?.id === op.turnId ? s.active.parts[op.index] : undefined;
      if (!s.active || !part || (part.kind !== 'markdown' && part.kind !== 'reasoning')) return s;
      const parts = s.active.parts.slice();
      parts[op.index] = { ...part, blocks: appendBlocks(part.blocks, op.keep, op.blocks) };
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
  }
}

export const applyChatOp = applyOne;

/**
 * A markdown part's blocks after a `partAppend`: the first `keep` stay (the
 * same strings, so their DOM is left alone), `tail` follows.
 */
export function appendBlocks(blocks: string[], keep: number, tail: string[]): string[] {
  return blocks.slice(0, keep).concat(tail);
}

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
  if (start?.lifecycle === 'failed' && start.signIn) return { key: 'needs-input', label: 'Sign-in needed' };
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

/** The running turn's first tool call waiting for confirmation, if any. */
export function pendingConfirmation(turn: TurnView | null): ToolCallView | null {
  for (const p of turn?.parts ?? []) {
    if (p.kind === 'toolCall' && p.toolCall.status === 'pending-confirmation') return p.toolCall;
  }
  return null;
}

/** Whether the session's agent is still starting (Send holds the message). */
export const isStarting = (s: ChatView) => s.start?.lifecycle === 'creating';

/** Whether the session's agent failed to start (no turns; show why). */
export const startFailed = (s: ChatView) => s.start?.lifecycle === 'failed';

/** The full input a tool call will run with, as text (JSON pretty-printed). */
export function toolInputText(tc: Pick<ToolCallView, 'input' | 'inputUri'>): string {
  const input = tc.input;
  if (input == null) return tc.inputUri ? `(input at ${tc.inputUri})` : '';
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

export function usageText(u: UsageView | null): string {
  if (!u) return '';
  const parts = [] as string[];
  if (u.inputTokens != null) parts.push(`${u.inputTokens} in`);
  if (u.outputTokens != null) parts.push(`${u.outputTokens} out`);
  if (u.cacheReadTokens) parts.push(`${u.cacheReadTokens} cached`);
  if (u.cost) parts.push(`${costText(u.cost.amount, u.cost.currency)} so far`);
  if (u.model) parts.push(u.model);
  return parts.join(' · ');
}

/** An amount of money as the agent reported it (`$0.0123`, `0.50 EUR`). */
export function costText(amount: number, currency: string): string {
  const digits = amount !== 0 && Math.abs(amount) < 0.1 ? 4 : 2;
  return currency === 'USD' ? `$${amount.toFixed(digits)}` : `${amount.toFixed(digits)} ${currency}`;
}

/** A token count in short (`950`, `42k`, `1.2M`). */
export function tokensText(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The chat's context use: the newest usage (the running turn's, else the
 * latest turn's) that has both `contextUsed` and `contextSize`; `null` when
 * the agent never reported one. */
export function contextUse(s: ChatView): { used: number; size: number } | null {
  for (const t of [s.active, ...s.turns.slice().reverse()]) {
    const u = t?.usage;
    if (u?.contextUsed != null && u.contextSize != null && u.contextSize > 0) {
      return { used: u.contextUsed, size: u.contextSize };
    }
  }
  return null;
}
