// Resident memory of the real app and the WebKitGTK processes it starts,
// read from /proc (shared by ./idle-rss.mjs and ./bench.mjs): RSS (shared
// pages counted in every process) and PSS (shared pages split between the
// processes that map them; the fairer total).
import { readdirSync, readFileSync } from 'node:fs';

/** pid → parent pid, for every process. */
function parents() {
  const out = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      out.set(Number(p), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone */
    }
  }
  return out;
}

/** The process of `appBin` whose command line names `marker` (e.g. its temp HOME), and all its descendants. */
function appTree(appBin, marker) {
  const ppid = parents();
  const app = [...ppid.keys()].find((p) => {
    try {
      const c = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return c.startsWith(appBin) && c.includes(marker);
    } catch {
      return false;
    }
  });
  if (!app) throw new Error('app process not found');
  const tree = [app];
  for (let i = 0; i < tree.length; i++) for (const [p, pp] of ppid) if (pp === tree[i]) tree.push(p);
  return tree;
}
const kib = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/** `{pid, name, rss, pss}` (MiB) of each process in that tree. */
export function memory(appBin, marker) {
  const rows = [];
  for (const pid of appTree(appBin, marker)) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rows.push({ pid, name, rss: kib(status, 'VmRSS') / 1024, pss: kib(rollup, 'Pss') / 1024 });
    } catch {
      /* gone */
    }
  }
  return rows;
}

/** The sum of `k` (`rss` or `pss`) over `rows`. */
export const total = (rows, k) => rows.reduce((a, r) => a + r[k], 0);
