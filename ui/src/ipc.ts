// One way to reach the Rust core from the UI: Tauri IPC inside the app
// (`core_call` / `core_stream` with a Channel), a WebSocket bridge
// (`hangar-desktop-bridge`, `/ipc`) in a plain browser.

type Json = any;
export type EventHandler = (event: Json) => void;

interface Transport {
  call(cmd: string, args: Json): Promise<Json>;
  stream(cmd: string, args: Json, onEvent: EventHandler): Promise<Json>;
}

function tauriTransport(t: any): Transport {
  return {
    call: (cmd, args) => t.core.invoke('core_call', { cmd, args: args ?? {} }),
    stream: (cmd, args, onEvent) => {
      const channel = new t.core.Channel();
      channel.onmessage = onEvent;
      return t.core.invoke('core_stream', { cmd, args: args ?? {}, onEvent: channel });
    },
  };
}

function bridgeTransport(): Transport {
  let seq = 0;
  const pending = new Map<number, { res: (v: Json) => void; rej: (e: Error) => void }>();
  const streams = new Map<number, EventHandler>();
  let socket: Promise<WebSocket> | null = null;
  const open = () => {
    socket ??= new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://${location.host}/ipc`);
      ws.onopen = () => resolve(ws);
      ws.onerror = () => reject(new Error('bridge unreachable'));
      ws.onmessage = (ev) => {
        const m = JSON.parse(ev.data);
        if ('stream' in m) {
          streams.get(m.stream)?.(m.event);
          return;
        }
        const p = pending.get(m.id);
        pending.delete(m.id);
        if (p) 'err' in m ? p.rej(new Error(m.err)) : p.res(m.ok);
      };
    });
    return socket;
  };
  const send = async (cmd: string, args: Json, onEvent?: EventHandler) => {
    const ws = await open();
    const id = ++seq;
    if (onEvent) streams.set(id, onEvent);
    return new Promise<Json>((res, rej) => {
      pending.set(id, { res, rej });
      ws.send(JSON.stringify({ id, cmd, args: args ?? {}, stream: !!onEvent }));
    });
  };
  return { call: (cmd, args) => send(cmd, args), stream: (cmd, args, onEvent) => send(cmd, args, onEvent) };
}

const transport: Transport = (globalThis as any).__TAURI__
  ? tauriTransport((globalThis as any).__TAURI__)
  : bridgeTransport();

export const call = (cmd: string, args: Json = {}) => transport.call(cmd, args);
export const stream = (cmd: string, args: Json, onEvent: EventHandler) => transport.stream(cmd, args, onEvent);
