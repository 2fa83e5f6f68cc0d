// Browser notifications for a page that is not the Tauri app (the app has
// its own, src-tauri/src/notifications.rs): once the person allowed them
// (asked on a click, never on load), each item that newly waits in the
// inbox (a confirmation or an input request) while the page is hidden shows
// one; clicking it brings the page forward on that session.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { InboxItem } from './app-store';

const inTauri = () => !!(globalThis as { __TAURI__?: unknown }).__TAURI__;

/** Whether this page can show browser notifications at all. */
export const browserNotifications = (): boolean => !inTauri() && typeof Notification !== 'undefined';

/** An inbox item's identity across updates. */
export const itemKey = (i: InboxItem): string => `${i.host} ${i.chat} ${i.toolCallId}`;

/** The items of `now` not in `seen`. */
export function newItems(seen: Set<string>, now: InboxItem[]): InboxItem[] {
  return now.filter((i) => !seen.has(itemKey(i)));
}

/** The permission (`default` until asked), and the ask (call it from a click). */
export function useNotifyPermission(): [NotificationPermission | null, () => void] {
  const [perm, setPerm] = useState(() => (browserNotifications() ? Notification.permission : null));
  const ask = () => {
    if (browserNotifications()) Notification.requestPermission().then(setPerm, () => {});
  };
  return [perm, ask];
}

/** Notify of every item that starts waiting while the page is hidden; `open` opens its session. */
export function useInboxNotifications(inbox: InboxItem[], open: (host: string, session: string) => void): void {
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    const fresh = seen.current ? newItems(seen.current, inbox) : [];
    seen.current = new Set(inbox.map(itemKey));
    if (!browserNotifications() || Notification.permission !== 'granted' || !document.hidden) return;
    for (const i of fresh) {
      const n = new Notification(i.confirmation ? `Allow? ${i.title}` : `Question: ${i.title}`, {
        body: `${i.chatTitle || 'Untitled session'} needs you`,
        tag: itemKey(i),
      });
      n.onclick = () => {
        window.focus();
        open(i.host, i.session);
        n.close();
      };
    }
  }, [inbox]);
}
