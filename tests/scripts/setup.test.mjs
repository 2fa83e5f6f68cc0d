// scripts/setup.sh and scripts/run.sh as a newcomer meets them on a fresh
// Debian 12: a Node.js too old for the UI build, no root and no sudo, a
// headless machine, and `--help` before anything is built. Each case runs the
// real script with stand-ins for `node`, `id`, `dpkg` or `cargo` first on PATH
// (and `sudo` left out of it), so nothing is installed or built.
// Run: node --test tests/scripts/

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(join(tmpdir(), 'hangar-setup-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

// Every program of /usr/bin and /bin but sudo, linked into one folder: the
// PATH of a machine without sudo.
const system = join(work, 'system');
mkdirSync(system);
for (const dir of ['/usr/local/bin', '/usr/bin', '/bin']) {
  for (const name of readdirSync(dir)) {
    if (name === 'sudo') continue;
    try {
      symlinkSync(join(dir, name), join(system, name));
    } catch {
      /* the same name in an earlier folder wins, as on PATH */
    }
  }
}
const cargoHome = process.env.CARGO_HOME ?? join(process.env.HOME ?? '/root', '.cargo');

let n = 0;
/** A folder of stand-in programs: `{ name: shell body }`. */
function standIns(programs) {
  const dir = join(work, `bin-${n++}`);
  mkdirSync(dir);
  for (const [name, body] of Object.entries(programs)) {
    writeFileSync(join(dir, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(dir, name), 0o755);
  }
  return dir;
}

function run(script, args, programs) {
  const path = [standIns(programs), join(cargoHome, 'bin'), system].join(':');
  return spawnSync('bash', [join(root, 'scripts', script), ...args], {
    cwd: root,
    env: { HOME: process.env.HOME ?? '/root', PATH: path },
    encoding: 'utf8',
    timeout: 60000,
  });
}

const node = (version) => ({ node: `[ "$1" = --version ] && echo ${version} && exit 0; exit 1` });

for (const old of ['v18.19.0', 'v20.18.3', 'v21.7.3', 'v22.11.0']) {
  test(`setup stops before any build on Node.js ${old}, naming the version found, the one needed and how to get it`, () => {
    const r = run('setup.sh', [], node(old));
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`found ${old.replaceAll('.', '\\.')}`));
    assert.match(r.stderr, /needs Node\.js 20\.19 or newer/);
    assert.match(r.stderr, /install Node\.js 20 or 22/);
    assert.equal(r.stderr.trim().split('\n').length, 1, `one sentence: ${r.stderr}`);
  });
}

for (const good of ['v20.19.0', 'v22.12.0', 'v24.1.0']) {
  test(`setup takes Node.js ${good}`, () => {
    const r = run('setup.sh', [], node(good));
    assert.equal(r.status, 0, r.stderr);
  });
}

test('setup --headless does not need Node.js at all', () => {
  const r = run('setup.sh', ['--headless'], node('v18.19.0'));
  assert.equal(r.status, 0, r.stderr);
});

// Not root, no sudo, and dpkg says no package is installed.
const nobody = { id: '[ "$1" = -u ] && echo 1000 && exit 0; exec /usr/bin/id "$@"', dpkg: 'exit 1' };

test('without root or sudo, setup prints the one apt-get line to run as root and stops', () => {
  const r = run('setup.sh', [], { ...nobody, ...node('v20.19.0') });
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  const apt = lines[0].match(/`(apt-get install [^`]*)`/);
  assert.ok(apt, r.stderr);
  assert.match(lines[0], /run as root/);
  for (const pkg of ['libdbus-1-dev', 'libwebkit2gtk-4.1-dev']) assert.ok(apt[1].includes(pkg), apt[1]);
});

test('setup --headless asks only for what the host needs: no WebKitGTK, Chromium, Xvfb or WebKitWebDriver', () => {
  const r = run('setup.sh', ['--headless'], nobody);
  assert.equal(r.status, 1, r.stderr);
  const apt = r.stderr.match(/`(apt-get install [^`]*)`/);
  assert.ok(apt, r.stderr);
  assert.ok(apt[1].includes('libdbus-1-dev'), apt[1]);
  for (const pkg of ['webkit', 'chromium', 'xvfb', 'WebKitWebDriver', 'webkit2gtk-driver', 'nodejs'])
    assert.ok(!apt[1].includes(pkg), `${pkg} in ${apt[1]}`);
});

test('setup refuses an unknown option', () => {
  const r = run('setup.sh', ['--hedless'], {});
  assert.equal(r.status, 2);
  assert.match(r.stderr, /unknown option --hedless/);
});

for (const args of [['--help'], ['--headless', '--help']]) {
  test(`run.sh ${args.join(' ')} prints its usage before anything is installed or built`, () => {
    const never = 'echo "$0 must not run" >&2; exit 99';
    const r = run('run.sh', args, { cargo: never, 'apt-get': never, npm: never });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /bash scripts\/run\.sh --headless/);
    assert.match(r.stdout, /target\/release\/hangar/);
    assert.doesNotMatch(r.stderr, /must not run/);
  });
}
