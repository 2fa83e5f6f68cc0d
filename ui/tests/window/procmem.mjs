// Resident memory of the real app (or another WebKitGTK browser, such as
// MiniBrowser) and the WebKitGTK processes it starts, read from /proc
// (shared by ./idle-rss.mjs and ./bench.mjs): RSS (shared
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

/** The first process of `bin` that `pick(pid, ppid, cmdline)` accepts, and all its descendants. */
function tree(bin, pick) {
  const ppid = parents();
  const app = [...ppid].find(([p, pp]) => {
    try {
      const c = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      return c.startsWith(bin) && pick(p, pp, c);
    } catch {
      return false;
    }
  })?.[0];
  if (!app) throw new Error(`${bin}: process not found`);
  const out = [app];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of ppid) if (pp === out[i]) out.push(p);
  return out;
}
const kib = (text, key) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);

/** `{pid, name, rss, pss, cpu}` (MiB; cpu: ms of CPU time so far) of each process in the tree of `appBin` whose command line names `marker` (e.g. its temp HOME). */
export const memory = (appBin, marker) => rows(tree(appBin, (_p, _pp, c) => c.includes(marker)));

/** The same for the process of `bin` whose parent is `parent` (e.g. MiniBrowser started by WebKitWebDriver). */
export const childMemory = (bin, parent) => rows(tree(bin, (_p, pp) => pp === parent));

function rows(pids) {
  const rows = [];
  for (const pid of pids) {
    try {
      const name = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [utime, stime] = stat
        .slice(stat.lastIndexOf(')') + 2)
        .split(' ')
        .slice(11, 13)
        .map(Number);
      // CPU time so far (user + system), in ms (clock ticks of 10 ms).
      const cpu = (utime + stime) * 10;
      rows.push({ pid, name, rss: kib(status, 'VmRSS') / 1024, pss: kib(rollup, 'Pss') / 1024, cpu });
    } catch {
      /* gone */
    }
  }
  return rows;
}

/** The sum of `k` (`rss` or `pss`) over `rows`. */
export const total = (rows, k) => rows.reduce((a, r) => a + r[k], 0);
