// Icons the app ships as inline SVG (stroked in the text colour), so they
// do not depend on an emoji font: WebKitGTK on a Debian without one drew
// the folder picker's emoji as empty boxes.
import type { ComponentChildren } from 'preact';

function Icon({ children, label }: { children: ComponentChildren; label?: string }) {
  return (
    <svg
      class="icon"
      viewBox="0 0 24 24"
      width="16"
      height="16"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : 'true'}
      focusable="false"
    >
      {children}
    </svg>
  );
}

/** A closed folder. */
export function FolderIcon() {
  return (
    <Icon>
      <path d="M3 6.5A1.5 1.5 0 0 1 4.5 5H9l2 2.5h8.5A1.5 1.5 0 0 1 21 9v9.5a1.5 1.5 0 0 1-1.5 1.5h-15A1.5 1.5 0 0 1 3 18.5z" />
    </Icon>
  );
}

/** Up to the parent folder: an arrow up. */
export function UpIcon() {
  return (
    <Icon>
      <path d="M12 19V5" />
      <path d="M5 12l7-7 7 7" />
    </Icon>
  );
}

/** Something attached to a message: a paperclip (was the 📎 emoji, an empty box in WebKitGTK without an emoji font). */
export function PaperclipIcon() {
  return (
    <Icon>
      <path d="M21 11.5l-8.6 8.6a5 5 0 0 1-7.1-7.1l8.6-8.6a3.3 3.3 0 0 1 4.7 4.7l-8.6 8.6a1.7 1.7 0 0 1-2.4-2.4l7.9-7.9" />
    </Icon>
  );
}

/** A menu of more actions: three dots in a row. */
export function MoreIcon() {
  return (
    <Icon>
      <circle cx="5" cy="12" r="1" />
      <circle cx="12" cy="12" r="1" />
      <circle cx="19" cy="12" r="1" />
    </Icon>
  );
}
