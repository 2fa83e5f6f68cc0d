// The chat header's context meter: how much of the agent's context window
// the session uses (a bar plus "42k / 200k"), from the newest usage the agent
// reported; nothing at all when it reported none.

import { type ChatView, contextUse, tokensText } from '../state/chat-store';

export function ContextMeter({ view }: { view: ChatView }) {
  const use = contextUse(view);
  if (!use) return null;
  const share = Math.min(1, use.used / use.size);
  const label = `${tokensText(use.used)} / ${tokensText(use.size)}`;
  return (
    <span
      class="context-meter"
      data-testid="context-meter"
      title={`Context: ${use.used} of ${use.size} tokens (${Math.round(share * 100)}%)`}
    >
      <meter
        class="context-bar"
        aria-label="Context used"
        data-testid="context-meter-bar"
        min={0}
        max={use.size}
        high={use.size * 0.8}
        value={use.used}
      />
      <span class="small muted" data-testid="context-meter-text">
        {label}
      </span>
    </span>
  );
}
