// One way to reach the Rust core from the UI: Tauri IPC inside the app
// (`core_call` / `core_stream` with a Channel), a WebSocket bridge
// (`hangar-desktop-bridge`, `/ipc`) in a plain browser. `call` and `stream`
// are typed by command name from the types generated from the Rust
// protocol (src/gen, `cargo test -p hangar-desktop --lib export_bindings`).

import type { Command } from './gen/Command';
import type { CommandEvents } from './gen/CommandEvents';
import type { CommandResults } from './gen/CommandResults';
import { setLinkUp } from './state/connection';
import { ipcClosed, ipcProtocols, isSignedOut } from './web/device_token';

/** What a call fails with when the socket to the core is down or drops before the answer. */
export const LINK_LOST = 'the connection to Hangar was lost';

/** Every command's wire name. */
export type CommandName = Command['cmd'];
/** The arguments of command `K`. */
export type ArgsOf<K extends CommandName> = Extract<Command, { cmd: K }>['args'];
/** The result of command `K`. */
export type ResultOf<K extends CommandName> = CommandResults[K];
/** The events of the stream command `K` opens. */
export type EventOf<K extends CommandName> = CommandEvents[K];
/** The commands that open a stream. */
export type StreamName = { [K in CommandName]: EventOf<K> extends never ? never : K }[CommandName];

/** What the transports move: JSON, typed at `call` / `stream`. */
type Wire = unknown;
type WireHandler = (event: Wire) => void;

interface Transport {
  call(cmd: string, args: Wire): Promise<Wire>;
  stream(cmd: string, args: Wire, onEvent: WireHandler): Promise<Wire>;
}

/** The part of `window.__TAURI__` this file uses. */
interface TauriChannel {
  onmessage: WireHandler;
}
interface TauriGlobal {
  core: {
    invoke(cmd: string, args: Record<string, unknown>): Promise<Wire>;
    Channel: new () => TauriChannel;
  };
}

function tauriTransport(t: TauriGlobal): Transport {
  return {
    call: (cmd, args) => t.core.invoke('core_call', { cmd, args: args ?? {} }),
    stream: (cmd, args, onEvent) => {
      // The app sends a stream's events of one frame as one message, a
      // list (src-tauri/src/stream_batch.rs); each is handled in order.
      const channel = new t.core.Channel();
      channel.onmessage = (events) => {
        for (const event of events as Wire[]) onEvent(event);
      };
      return t.core.invoke('core_stream', { cmd, args: args ?? {}, onEvent: channel });
    },
  };
}

/** A bridge frame: a reply (`ok` or `err`) or a stream's event. */
type Frame = { id: number; ok?: Wire; err?: string } | { stream: number; event: Wire };

/** How soon a lost socket is tried again, at first and at most. */
const RETRY_MS = [500, 5000];

function bridgeTransport(): Transport {
  let seq = 0;
  const pending = new Map<number, { res: (v: Wire) => void; rej: (e: Error) => void }>();
  const streams = new Map<number, WireHandler>();
  let socket: Promise<WebSocket> | null = null;
  let retryMs = RETRY_MS[0];
  // A lost socket: every call waiting for an answer fails (its answer will
  // not come), streams end (their views open them again on the next link,
  // see state/connection.ts), and the socket is tried again until it opens.
  // A signed-out page is not retried: the next call, once paired again, opens it.
  const lost = () => {
    socket = null;
    for (const p of pending.values()) p.rej(new Error(LINK_LOST));
    pending.clear();
    streams.clear();
    setLinkUp(false);
    if (isSignedOut()) return;
    setTimeout(() => open().catch(() => {}), retryMs);
    retryMs = Math.min(retryMs * 2, RETRY_MS[1]);
  };
  const open = () => {
    if (isSignedOut()) return Promise.reject(new Error(LINK_LOST));
    socket ??= new Promise((resolve, reject) => {
      // Served by `hangar serve --web` over TLS: wss, and the device
      // token as a subprotocol (web/device_token.ts); the bridge: ws.
      const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
      const ws = new WebSocket(`${scheme}://${location.host}/ipc`, ipcProtocols());
      ws.onopen = () => {
        retryMs = RETRY_MS[0];
        setLinkUp(true);
        resolve(ws);
      };
      ws.onerror = () => reject(new Error(LINK_LOST));
      ws.onclose = (ev) => {
        // A revoked device is signed out (the pairing screen), then the
        // link is lost like any other.
        ipcClosed(ev.code);
        lost();
      };
      ws.onmessage = (ev) => {
        const m: Frame = JSON.parse(ev.data);
        if ('stream' in m) {
          streams.get(m.stream)?.(m.event);
          return;
        }
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (!p) return;
        if (m.err !== undefined) p.rej(new Error(m.err));
        else p.res(m.ok);
      };
    });
    return socket;
  };
  const send = async (cmd: string, args: Wire, onEvent?: WireHandler) => {
    const ws = await open();
    if (ws.readyState !== WebSocket.OPEN) throw new Error(LINK_LOST);
    const id = ++seq;
    if (onEvent) streams.set(id, onEvent);
    return new Promise<Wire>((res, rej) => {
      pending.set(id, { res, rej });
      ws.send(JSON.stringify({ id, cmd, args: args ?? {}, stream: !!onEvent }));
    });
  };
  return { call: (cmd, args) => send(cmd, args), stream: (cmd, args, onEvent) => send(cmd, args, onEvent) };
}

const tauri = (globalThis as { __TAURI__?: TauriGlobal }).__TAURI__;
const transport: Transport = tauri ? tauriTransport(tauri) : bridgeTransport();

/** Run command `cmd`; the core's answer, or its error. */
export const call = <K extends CommandName>(cmd: K, args: ArgsOf<K>): Promise<ResultOf<K>> =>
  transport.call(cmd, args) as Promise<ResultOf<K>>;

/** Run a command that opens a stream: `onEvent` receives its events. */
export const stream = <K extends StreamName>(
  cmd: K,
  args: ArgsOf<K>,
  onEvent: (event: EventOf<K>) => void,
): Promise<ResultOf<K>> => transport.stream(cmd, args, onEvent as WireHandler) as Promise<ResultOf<K>>;

/** The message of whatever a command (or anything else) rejected with. */
export function errorText(e: unknown): string {
  const text =
    e instanceof Error
      ? e.message
      : typeof e === 'object' && e !== null && 'message' in e
        ? String(e.message)
        : String(e);
  // A host's refusal reads as its reason, without the JSON-RPC code.
  return text.replace(/^rpc error -?\d+: /, '');
}
