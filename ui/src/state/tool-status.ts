// A tool call's status in words, for its badge: never the wire's raw
// token (`pending-confirmation`), on the desktop or on a phone.
import type { ToolCallStatus } from '../gen/ToolCallStatus';

const WORDS: Record<ToolCallStatus, string> = {
  streaming: 'preparing',
  'pending-confirmation': 'waiting for you',
  running: 'running',
  'auth-required': 'needs sign-in',
  'pending-result-confirmation': 'result waiting for you',
  completed: 'done',
  cancelled: 'cancelled',
  unknown: 'unknown',
};

/** The badge's words for `status` (a completed call that failed says so). */
export function toolStatusWords(status: ToolCallStatus, success: boolean | null): string {
  return status === 'completed' && !success ? 'failed' : WORDS[status];
}
