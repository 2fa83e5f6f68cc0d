// The theme Settings picks, resolved: "system" follows the system's
// light or dark preference. Pure; `theme-apply.ts` puts it on the page.
import type { Theme } from '../gen/Theme';

export type { Theme };

/** The light or dark look for `choice` when the system prefers dark (or not). */
export function resolveTheme(choice: Theme, systemDark: boolean): 'light' | 'dark' {
  if (choice === 'system') return systemDark ? 'dark' : 'light';
  return choice;
}
