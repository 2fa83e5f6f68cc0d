// A notice or error not about one item: it has a close button, and (with
// `timeoutMs`) goes away by itself. None stays on screen for good.
import { useEffect } from 'preact/hooks';

export function Notice({
  text,
  error = false,
  timeoutMs,
  onClose,
  testid,
}: {
  text: string;
  error?: boolean;
  /** Close by itself after this long. */
  timeoutMs?: number;
  onClose: () => void;
  testid?: string;
}) {
  useEffect(() => {
    if (timeoutMs == null) return;
    const timer = setTimeout(onClose, timeoutMs);
    return () => clearTimeout(timer);
  }, [text, timeoutMs]);
  return (
    <div
      class={`${error ? 'error banner' : 'notice small'} dismissable`}
      role={error ? 'alert' : 'status'}
      data-testid={testid}
    >
      <span>{text}</span>
      <button type="button" class="icon-button notice-close" aria-label="Close" title="Close" onClick={onClose}>
        ×
      </button>
    </div>
  );
}
