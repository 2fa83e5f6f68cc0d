// The search palette (Ctrl+K / Cmd+K, or the sidebar's search box): type,
// and every connected host is searched at once (`search`, debounced);
// results show host, session title, the snippet with its matches marked,
// and when. Arrow keys move, Enter opens the session at that turn, Escape
// closes. Hosts that did not answer say so under the results. Snippets are
// peer text: the marks become <mark>, everything else is rendered as text.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { call, errorText } from '../ipc';
import {
  appendPage,
  emptyText,
  hitKey,
  moveSelection,
  relativeTime,
  SEARCH_DEBOUNCE_MS,
  type SearchHit,
  type SearchResults,
  silentHosts,
  snippetParts,
} from '../state/search';

/** What the palette shows for the query last answered. */
interface Shown {
  query: string;
  items: SearchHit[];
  hosts: SearchResults['hosts'];
  cursors: Record<string, string>;
}

function Snippet({ text }: { text: string }) {
  return (
    <span class="search-snippet" data-testid="search-snippet">
      {snippetParts(text).map((p, i) => (p.mark ? <mark key={i}>{p.text}</mark> : p.text))}
    </span>
  );
}

export function SearchPalette({
  initial,
  onOpen,
  onClose,
}: {
  /** Text to start with (typed into the sidebar's box). */
  initial: string;
  onOpen: (hit: SearchHit) => void;
  onClose: () => void;
}) {
  const [query, setQuery] = useState(initial);
  const [shown, setShown] = useState<Shown | null>(null);
  const [selected, setSelected] = useState(0);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  /** Answers to an older query than the latest are dropped. */
  const seq = useRef(0);

  useLayoutEffect(() => {
    const el = input.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);

  useEffect(() => {
    const q = query.trim();
    const mine = ++seq.current;
    if (!q) {
      setShown(null);
      setBusy(false);
      setError('');
      return;
    }
    setBusy(true);
    const timer = setTimeout(() => {
      call('search', { query: q, limit: null, archived: null, cursors: null }).then(
        (r) => {
          if (seq.current !== mine) return;
          setShown({ query: q, items: r.items, hosts: r.hosts, cursors: r.cursors });
          setSelected(0);
          setError('');
          setBusy(false);
        },
        (e) => {
          if (seq.current !== mine) return;
          setShown(null);
          setError(errorText(e));
          setBusy(false);
        },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  // Keep the selected result in view.
  useEffect(() => {
    list.current?.querySelector('[aria-selected=true]')?.scrollIntoView({ block: 'nearest' });
  }, [selected, shown]);

  const more = () => {
    if (!shown) return;
    const mine = seq.current;
    call('search', { query: shown.query, limit: null, archived: null, cursors: shown.cursors }).then(
      (r) => {
        if (seq.current !== mine) return;
        setShown({ ...shown, items: appendPage(shown.items, r.items), cursors: r.cursors });
      },
      (e) => setError(errorText(e)),
    );
  };

  const items = shown?.items ?? [];
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setSelected((i) => moveSelection(i, e.key === 'ArrowDown' ? 1 : -1, items.length));
    } else if (e.key === 'Enter') {
      e.preventDefault();
      const hit = items[selected];
      if (hit) onOpen(hit);
    }
  };
  const silent = shown ? silentHosts(shown.hosts) : [];
  const now = Date.now();
  return (
    <div class="modal-backdrop search-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        class="modal search-palette"
        role="dialog"
        aria-modal="true"
        aria-label="Search"
        data-testid="search-palette"
        // Escape closes from anywhere in the palette (e.g. "More results").
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            onClose();
          }
        }}
      >
        <input
          ref={input}
          class="search-input"
          data-testid="search-input"
          type="search"
          placeholder="Search every session on every host…"
          aria-label="Search"
          aria-controls="search-results"
          aria-activedescendant={items[selected] ? `search-hit-${selected}` : undefined}
          value={query}
          onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          onKeyDown={onKey}
        />
        <p class="search-state small muted" data-testid="search-state" aria-live="polite">
          {busy
            ? 'Searching…'
            : !query.trim()
              ? 'Type to search titles, messages, answers, tool calls and changed files on every connected host.'
              : shown && items.length > 0
                ? `${items.length} result${items.length === 1 ? '' : 's'}`
                : shown
                  ? 'No results'
                  : ''}
        </p>
        {error && (
          <p class="search-error small" role="alert" data-testid="search-error">
            {error}
          </p>
        )}
        <ul class="search-results" id="search-results" role="listbox" ref={list} data-testid="search-results">
          {items.map((h, i) => (
            <li
              key={hitKey(h)}
              id={`search-hit-${i}`}
              role="option"
              tabIndex={-1}
              aria-selected={i === selected}
              class={`search-hit ${i === selected ? 'selected' : ''}`}
              data-testid="search-hit"
              data-host={h.host}
              data-session={h.session}
              data-turn={h.turnId ?? ''}
              onMouseMove={() => i !== selected && setSelected(i)}
              onClick={() => onOpen(h)}
            >
              <span class="search-hit-head">
                <span class="search-hit-title">{h.title || 'Untitled session'}</span>
                <span class="search-hit-meta small muted">
                  <span data-testid="search-hit-host">{h.hostLabel}</span> · {h.turnId ? '' : 'title matched · '}
                  <time dateTime={h.at} title={h.at}>
                    {relativeTime(h.at, now)}
                  </time>
                </span>
              </span>
              <Snippet text={h.snippet} />
            </li>
          ))}
        </ul>
        {shown && items.length === 0 && !busy && (
          <p class="search-empty muted" data-testid="search-empty">
            {emptyText(shown.query, shown.hosts)}
          </p>
        )}
        {shown && Object.keys(shown.cursors).length > 0 && (
          <button type="button" class="search-more" data-testid="search-more" onClick={more}>
            More results
          </button>
        )}
        {silent.map((s) => (
          <p key={s.host} class="search-silent small" data-testid="search-silent-host" data-host={s.host}>
            {s.text}
          </p>
        ))}
        <p class="search-keys small muted">↑ ↓ to move · Enter to open at that turn · Esc to close</p>
      </div>
    </div>
  );
}
