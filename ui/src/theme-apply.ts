// Puts the theme on the page: `html[data-theme]` (light or dark), which
// styles.css reads; with "system" it follows prefers-color-scheme as it
// changes.
import { resolveTheme, type Theme } from './state/theme';

let chosen: Theme = 'system';
const systemDark = window.matchMedia('(prefers-color-scheme: dark)');

function paint() {
  document.documentElement.dataset.theme = resolveTheme(chosen, systemDark.matches);
}

systemDark.addEventListener('change', paint);

/** Use `theme` from now on. */
export function applyTheme(theme: Theme) {
  chosen = theme;
  paint();
}
