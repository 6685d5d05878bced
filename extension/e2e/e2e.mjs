// End-to-end test of the extension in a real VS Code (code-server) in headless Chromium, as a
// person uses it: the .vsix installed into a clean code-server, a copy of testdata/examples
// opened, the Explore interleavings lens clicked, the debugger paused on the deadlock, Step
// Over and Step Back, the timeline, the Testing view's Explore on the counter example, the
// race diagnostics of the broken double-checked initialization, the Schedules view, and its
// Verify Fix on the deadlock's schedule after the bug is edited away (marked fixed) and back
// (still fails).
// First, as a new user: the linux-x64 .vsix in a clean profile, with no interleave.path and no
// interleave on PATH, runs the binary it carries (bundledCases); and an interleave.path that
// names a missing file ends the session with the error within 10 s, no Stop needed.
//
// Run by npm run test:e2e after install.sh (which puts code-server, Chromium and
// playwright-core in $E2E_CACHE). Screenshots go to $E2E_OUT (default extension/e2e/out).
// Every wait is for something in the workbench's DOM, with a deadline that only guards
// against a hang.
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const cache = process.env.E2E_CACHE || path.join(os.homedir(), '.cache', 'interleave-e2e');
const out = process.env.E2E_OUT || path.join(here, 'out');
const require = createRequire(path.join(cache, 'playwright', 'package.json'));
const { chromium } = require('playwright-core');
const codeServer = path.join(cache, 'code-server', 'node_modules', '.bin', 'code-server');

const timings = {};
const t0 = Date.now();
const log = (...a) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)}s]`, ...a);
const fail = (msg) => { throw new Error(msg); };

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

async function main() {
  fs.mkdirSync(out, { recursive: true });
  let tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'interleave-e2e-'));
  const home = path.join(tmp, 'home');
  const ws = path.join(tmp, 'examples');
  const bin = path.join(tmp, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  const goBin = execFileSync('go', ['env', 'GOROOT']).toString().trim();
  log('building interleave and the .vsix');
  // Stamped with the extension's version, as the .vsix's is: the extension warns about another.
  const { version } = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
  const ldflags = `-X github.com/interleave-dev/interleave/cmd/interleave/internal/version.Version=${version}`;
  execFileSync('go', ['build', '-ldflags', ldflags, '-o', path.join(bin, 'interleave-real'), './cmd/interleave'], { cwd: repo, stdio: 'inherit' });
  // interleave.path is a wrapper that records what the editor sends the language server, so that
  // the initialize parameters lsp/lsptest drives the server with are VS Code's own (checked below).
  // It also records the debug adapter's traffic, printed when the test fails.
  const capture = path.join(tmp, 'lsp-input');
  const dapTrace = path.join(tmp, 'dap');
  fs.writeFileSync(path.join(bin, 'interleave'), `#!/bin/sh
if [ "$1" = lsp ]; then tee -a '${capture}' | '${path.join(bin, 'interleave-real')}' "$@"; exit $?; fi
if [ "$1" = dap ]; then tee -a '${dapTrace}.in' | '${path.join(bin, 'interleave-real')}' "$@" | tee -a '${dapTrace}.out'; exit $?; fi
exec '${path.join(bin, 'interleave-real')}' "$@"
`, { mode: 0o755 });
  const vsix = path.join(repo, 'extension', 'dist', 'interleave-linux-x64.vsix');
  if (!fs.existsSync(vsix)) fail(`${vsix} is missing: run npm run package -- linux-x64 first`);
  if (process.env.E2E_ONLY !== 'timeline') await bundledCases(vsix);
  fs.cpSync(path.join(repo, 'testdata', 'examples'), ws, { recursive: true });
  fs.cpSync(path.join(here, 'pipeline'), path.join(ws, 'pipeline'), { recursive: true });
  for (const d of fs.readdirSync(ws, { withFileTypes: true })) if (d.isDirectory()) fs.rmSync(path.join(ws, d.name, '.interleave'), { recursive: true, force: true });
  // A launch configuration, as a person writes one, for F5.
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.vscode', 'launch.json'), JSON.stringify({
    version: '0.2.0',
    configurations: [{ type: 'interleave', request: 'launch', name: 'Explore rlock', mode: 'explore', program: '${workspaceFolder}/rlock', cwd: '${workspaceFolder}/rlock', test: 'TestLookupDuringPut' }],
  }, null, 2));
  const settingsDir = path.join(home, '.local', 'share', 'code-server', 'User');
  fs.mkdirSync(settingsDir, { recursive: true });
  const settings = JSON.stringify({
    'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
    'workbench.enableExperiments': false, 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none',
    'interleave.path': path.join(bin, 'interleave'), 'interleave.goroot': goBin, 'interleave.schedules': 2000,
    'window.commandCenter': false, 'workbench.tips.enabled': false,
  }, null, 2);
  fs.writeFileSync(path.join(settingsDir, 'settings.json'), settings);
  // interleave.path and interleave.goroot are machine settings: in code-server's remote window
  // they are read from the machine's settings, as a user sets them there.
  const machineDir = path.join(home, '.local', 'share', 'code-server', 'Machine');
  fs.mkdirSync(machineDir, { recursive: true });
  fs.writeFileSync(path.join(machineDir, 'settings.json'), settings);
  // The editor's environment without Go on PATH, as code-server's login shell gave it: the
  // extension must find Go itself.
  const env = { ...process.env, HOME: home, PATH: '/usr/local/bin:/usr/bin:/bin'.split(':').filter((d) => !d.includes('go')).join(':') };
  execFileSync(codeServer, ['--install-extension', vsix, '--force'], { env, stdio: 'inherit' });
  const port = await freePort();
  // In a process group of its own, so that its children (the extension host, the language
  // server, file watchers) are stopped with it.
  const server = spawn(codeServer, ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ws], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let serverLog = '';
  const listening = new Promise((resolve, reject) => {
    const seen = (d) => {
      serverLog += d;
      if (/HTTP server listening/.test(serverLog)) resolve();
    };
    server.stdout.on('data', seen);
    server.stderr.on('data', seen);
    server.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${serverLog}`)));
  });
  await listening;
  const profile = fs.mkdtempSync(path.join(tmp, 'chrome-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1600, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const shot = async (name) => { const p = path.join(out, name); await page.screenshot({ path: p }); log('screenshot', p); };
  try {
    await run(page, port, ws, shot, path.join(bin, 'interleave'));
    checkInitialize(capture);
    console.log('TIMINGS ' + JSON.stringify(timings));
    log('PASS');
  } catch (err) {
    await shot('failure.png').catch(() => {});
    const toasts = await page.locator('.notifications-toasts').allInnerTexts().catch(() => []);
    console.error('notifications: ' + toasts.join(' | '));
    await page.keyboard.press('Control+Shift+Y').catch(() => {});
    console.error('debug console: ' + (await page.locator('.repl').first().innerText({ timeout: 5000 }).catch(() => '?')));
    await shot('failure-console.png').catch(() => {});
    console.error('code-server log:\n' + serverLog.slice(-4000));
    for (const dir of ['in', 'out']) {
      const f = `${dapTrace}.${dir}`;
      if (fs.existsSync(f)) console.error(`--- the debug adapter's ${dir === 'in' ? 'input' : 'output'}, its end\n` + fs.readFileSync(f, 'utf8').slice(-5000));
    }
    if (process.env.E2E_KEEP === '1') {
      console.error(`kept ${tmp}`);
      tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'interleave-e2e-gone-'));
    }
    const logs = path.join(home, '.local', 'share', 'code-server', 'logs');
    for (const f of (fs.readdirSync(logs, { recursive: true })).map(String).filter((f) => /(exthost\.log|Interleave\.log|interleave.*\.log|remoteagent\.log|[Ww]atcher[^/]*\.log)$/.test(f))) {
      console.error(`--- ${f}\n` + fs.readFileSync(path.join(logs, f), 'utf8').slice(-3000));
    }
    throw err;
  } finally {
    await ctx.close();
    // code-server and its children write into the home directory until they have exited:
    // stop the whole process group, wait, then remove the directory (retrying, as they may
    // still be closing files). A directory left behind is said, not a failure of the test.
    const exited = server.exitCode !== null ? Promise.resolve() : new Promise((resolve) => server.once('exit', resolve));
    const signalGroup = (sig) => { try { process.kill(-server.pid, sig); } catch { /* already gone */ } };
    signalGroup('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10000))]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    signalGroup('SIGKILL');
    try {
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (err) {
      console.error(`warning: the e2e test's directory ${tmp} was not removed: ${err.message}`);
    }
  }
}

// checkInitialize compares the initialize parameters this VS Code sent the language server with
// the ones the protocol tests use (lsp/lsptest/testdata/vscode-initialize.json), the parts that
// depend on the machine and the workspace left out. With E2E_UPDATE_INITIALIZE=1 it rewrites the
// file instead.
function checkInitialize(capture) {
  const input = fs.readFileSync(capture);
  const header = input.indexOf('\r\n\r\n');
  const length = Number(/Content-Length: *(\d+)/i.exec(input.subarray(0, header).toString())?.[1]);
  if (header < 0 || !length) fail(`no LSP frame in what the editor sent the language server: ${input.subarray(0, 200)}`);
  const msg = JSON.parse(input.subarray(header + 4, header + 4 + length).toString());
  if (msg.method !== 'initialize') fail(`the first message to the language server is ${msg.method}, not initialize`);
  const params = { ...msg.params, processId: 0, rootPath: null, rootUri: null, workspaceFolders: null };
  const text = JSON.stringify(params, null, 2) + '\n';
  fs.writeFileSync(path.join(out, 'vscode-initialize.json'), text);
  const committed = path.join(repo, 'lsp', 'lsptest', 'testdata', 'vscode-initialize.json');
  if (process.env.E2E_UPDATE_INITIALIZE === '1') {
    fs.writeFileSync(committed, text);
    log('wrote', committed);
    return;
  }
  if (JSON.stringify(JSON.parse(fs.readFileSync(committed, 'utf8'))) !== JSON.stringify(params)) {
    fail(`this VS Code's initialize parameters (${path.join(out, 'vscode-initialize.json')}) differ from ${committed}: the protocol tests no longer drive the server as this editor does; rerun with E2E_UPDATE_INITIALIZE=1 and review the diff`);
  }
  log('initialize parameters match', path.relative(repo, committed));
}

// waitFor polls fn in the page (the workbench) until it returns a truthy value.
async function waitFor(page, what, fn, arg, timeout = 240000) {
  try {
    const h = await page.waitForFunction(fn, arg, { timeout, polling: 100 });
    return await h.jsonValue();
  } catch (err) {
    throw new Error(`waiting for ${what}: ${err.message.split('\n')[0]}`);
  }
}

// quickInput opens the quick input with key and waits until it has the keyboard focus (focus
// may still be in a webview or on its way to an editor).
// An editor revealed late may take the focus back and close the quick input as it opens: the
// key is pressed again then, up to five times.
async function quickInput(page, key) {
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('Escape');
    await page.locator('.part.statusbar').first().click({ position: { x: 5, y: 5 } }).catch(() => {});
    await page.keyboard.press(key);
    try {
      await waitFor(page, 'the quick input to have the focus', () => {
        const a = document.activeElement;
        return a !== null && a.closest('.quick-input-widget') !== null && a.tagName === 'INPUT';
      }, undefined, 8000);
      return;
    } catch (err) {
      if (attempt === 5) throw err;
      log(`the quick input did not take the focus (${key}, attempt ${attempt}): pressing it again`);
    }
  }
}

async function palette(page, command, match = command) {
  await quickInput(page, 'F1');
  await page.keyboard.type(command);
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${match.replace(/"/g, '')}"]`).first();
  await row.waitFor({ timeout: 30000 });
  await row.click();
}

// timelineFrame returns the frame of the timeline webview once it has an element matching
// selector (webviews are nested iframes: every frame is searched).
// timelineFromRow runs Show Schedule Timeline from the context menu of the Schedules view's row
// that says rowText, and waits for the timeline of test to open; a picker is a failure. It closes
// the timeline after.
async function timelineFromRow(page, rowText, test) {
  const row = page.locator('.pane-body .monaco-list-row', { hasText: rowText }).first();
  await row.click({ button: 'right' });
  const item = page.locator('.monaco-menu .action-item', { hasText: /^Show Schedule Timeline$/ }).first();
  await item.waitFor({ timeout: 30000 });
  // The menu takes a hover (its item focused) and Enter; a click on the item is ignored there.
  await item.hover();
  await page.waitForTimeout(300);
  await page.keyboard.press('Enter');
  const got = await waitFor(page, `the timeline of ${test} from its row`, (t) => {
    const picker = document.querySelector('.quick-input-widget');
    if (picker && picker.offsetParent && picker.style.display !== 'none') return 'a picker: ' + (picker.querySelector('.quick-input-title')?.textContent || picker.innerText.slice(0, 80));
    return [...document.querySelectorAll('.tab')].some((e) => (e.textContent || '').includes(`Timeline: ${t}`)) ? 'opened' : null;
  }, test, 60000);
  if (got !== 'opened') fail(`Show Schedule Timeline on the row "${rowText}": ${got}`);
  log('Show Schedule Timeline from the row opened', `Timeline: ${test}`);
  const tab = page.locator('.tab', { hasText: `Timeline: ${test}` }).first();
  await tab.hover();
  await tab.locator('.codicon-close, .action-label[aria-label^="Close"]').first().click().catch(() => {});
}

async function timelineFrame(page, selector, timeout = 60000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const f of page.frames()) {
      if (await f.locator(selector).count().catch(() => 0)) return f;
    }
    await page.waitForTimeout(200);
  }
  fail(`the timeline webview has no ${selector}`);
}

// currentStep is the debug session's step the timeline shows (the adapter's number: the steps
// the paused execution has run), -1 for none.
async function currentStep(frame) {
  const s = await frame.locator('#session').getAttribute('data-step').catch(() => null);
  return s ? Number(s) : -1;
}

// clickStep clicks step n's operation on the timeline's canvas (the page brings it into view
// and says where it is drawn).
async function clickStep(frame, n) {
  const at = await frame.evaluate((n) => window.interleaveTimeline.pointOf(n), n);
  if (!at) fail(`the timeline has no step ${n}`);
  await frame.locator('#chart').click({ position: at });
}

// clickStepAndFollow clicks step n on the timeline during a debug session and waits for the
// session to pause before it (after n-1 steps): the timeline and the Scheduler scope say so.
async function clickStepAndFollow(page, frame, n) {
  await clickStep(frame, n);
  for (const deadline = Date.now() + 60000; (await currentStep(frame)) !== n;) {
    if (Date.now() > deadline) fail(`the timeline's current step is ${await currentStep(frame)} after clicking step ${n}`);
    await page.waitForTimeout(100);
  }
  await pausedOn(page, `the session to stop before step ${n}`, 60000);
  // The timeline and the Scheduler scope both name the step the session is paused before.
  await waitFor(page, `the Scheduler scope at step ${n}`, (k) => [...document.querySelectorAll('.monaco-list-row')].some((r) => new RegExp(`^\\s*step\\W*${k} of \\d+`).test(r.textContent || '')), n, 30000);
}

// pausedOn waits for the debugger to stop: the editor decorates the top frame's line, or the Call
// Stack of the running session says it is paused (VS Code reveals the line a moment later, and
// not at all if the editor lost a race with the next request). A dialog is a failure; so is the
// deadline, with what the workbench showed.
async function pausedOn(page, what, timeout = 300000) {
  let stop;
  try {
    stop = await waitFor(page, what, () => {
      const d = document.querySelector('.monaco-dialog-box');
      if (d && d.offsetParent) return 'dialog: ' + d.innerText;
      if (document.querySelector('.debug-top-stack-frame-line')) return 'stopped';
      const toolbar = document.querySelector('.debug-toolbar');
      const stack = document.querySelector('.debug-call-stack')?.innerText || '';
      if (toolbar && toolbar.offsetParent && /paused on/i.test(stack)) return 'stopped (the Call Stack)';
      return null;
    }, undefined, timeout);
  } catch (err) {
    fail(`${err.message}\n${await workbenchState(page)}`);
  }
  if (!stop.startsWith('stopped')) fail(`${what}: ${stop}`);
  if (stop === 'stopped') return;
  const t = Date.now();
  const line = await waitFor(page, 'the top frame\'s line', () => document.querySelector('.debug-top-stack-frame-line') !== null, undefined, 15000).catch(() => false);
  log(`${what}: ${stop}; the editor decorated the top frame's line ${line ? `${Date.now() - t} ms later` : 'not within 15 s'}\n${await workbenchState(page)}`);
}

// workbenchState says what a person would see: the editor tabs, the Call Stack, the notifications.
async function workbenchState(page) {
  return page.evaluate(() => {
    const text = (sel) => [...document.querySelectorAll(sel)].map((e) => e.innerText.replace(/\s+/g, ' ').trim()).filter(Boolean).join(' | ');
    return [
      `tabs: ${text('.tab')}`,
      `active tab: ${text('.tab.active')}`,
      `debug toolbar: ${document.querySelector('.debug-toolbar')?.offsetParent ? 'shown' : 'hidden'}`,
      `call stack: ${text('.debug-call-stack .monaco-list-row')}`,
      `notifications: ${text('.notification-toast')}`,
    ].join('\n');
  }).catch((err) => `(the workbench's state could not be read: ${err.message})`);
}

async function stopDebugging(page) {
  await page.locator('.debug-toolbar .action-label[aria-label^="Stop"]').first().click();
  await waitFor(page, 'the session to end', () => document.querySelector('.debug-toolbar') === null || document.querySelector('.debug-toolbar').offsetParent === null, undefined, 60000);
  // Stop shows no notification (it showed "terminated by the client" every time).
  const toasts = await page.evaluate(() => [...document.querySelectorAll('.notification-toast')].map((e) => e.innerText).join(' | '));
  if (/terminated by the client/.test(toasts)) fail(`Stop showed a notification: ${toasts}`);
}

// openFile opens rel with Quick Open. The path is filled into the quick input at once, not typed
// key by key: an editor revealed late by an earlier step (the timeline's go-to-step) may take the
// focus and close the quick input, and typed keys would then edit that file. When that happens
// the quick input is opened again.
async function openFile(page, rel) {
  const base = rel.split('/').pop();
  const row = page.locator(`.quick-input-list .monaco-list-row[aria-label*="${base}"]`).first();
  for (let attempt = 1; ; attempt++) {
    await quickInput(page, 'Control+P');
    await page.locator('.quick-input-widget input').first().fill(rel);
    try {
      await row.waitFor({ timeout: 20000 });
      break;
    } catch (err) {
      if (attempt === 3) throw err;
      log(`Quick Open lost ${rel} (attempt ${attempt}): opening it again`);
    }
  }
  await row.click();
  await waitFor(page, `the editor on ${rel}`, (b) => [...document.querySelectorAll('.tab.active')].some((t) => t.textContent.includes(b)), base, 30000);
}

async function run(page, port, ws, shot, interleavePath) {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
  log('workbench up');
  if (process.env.E2E_ONLY === 'timeline') {
    await longTimeline(page, shot);
    return;
  }

  // 1. The lens above the deadlocking test, clicked: the debugger stops on the deadlock.
  await openFile(page, 'lockorder/bank_test.go');
  const lens = page.locator('.codelens-decoration a', { hasText: 'Explore interleavings' }).first();
  await lens.waitFor({ timeout: 120000 });
  await shot('01-lens.png');
  const tLens = Date.now();
  await lens.click();
  await pausedOn(page, 'the debugger to stop', Number(process.env.E2E_STOP_TIMEOUT || 300000));
  timings.lensToPaused = (Date.now() - tLens) / 1000;
  log('paused after', timings.lensToPaused, 's');
  const stack = await waitFor(page, 'goroutines in the Call Stack', () => {
    const t = document.querySelector('.debug-call-stack')?.innerText || '';
    return /G0/.test(t) && /G1/.test(t) ? t : null;
  }, undefined, 60000);
  log('call stack:', stack.replace(/\n+/g, ' | ').slice(0, 300));
  if (!/deadlock|exception|paused/i.test(stack)) fail(`the Call Stack does not say why it paused: ${stack}`);
  await shot('02-paused-on-deadlock.png');
  await exceptionLineIsCallStacks(page);

  // 2. Step Over, then Step Back: the step count in the Scheduler scope follows.
  const toolbar = (label) => page.locator(`.debug-toolbar .action-label[aria-label^="${label}"]`).first();
  await toolbar('Step Back').waitFor({ timeout: 30000 });
  await toolbar('Step Back').click();
  await waitFor(page, 'a stop after Step Back', () => document.querySelector('.debug-top-stack-frame-line') !== null, undefined, 60000);
  await threadLabelsFresh(page);
  await toolbar('Step Over').click();
  await waitFor(page, 'a stop after Step Over', () => document.querySelector('.debug-top-stack-frame-line') !== null, undefined, 60000);
  await shot('03-after-steps.png');

  // 2b. The timeline during the session: it shows the session's schedule with the current step
  // marked, and a click on an earlier step moves the session there.
  await palette(page, 'Interleave: Show Schedule Timeline');
  const follow = await timelineFrame(page, '#session[data-step]:not([data-step=""])');
  const now = await currentStep(follow);
  const target = Math.max(1, now - 2);
  log('timeline: the session is at step', now, '; clicking step', target);
  await clickStepAndFollow(page, follow, target);
  await shot('04-timeline-follows-session.png');
  await stopDebugging(page);
  // After Stop the timeline says the session ended, not that a goroutine was stepped by hand.
  let said = '';
  for (const deadline = Date.now() + 15000; !/ended/.test(said);) {
    said = await follow.locator('#session').innerText().catch(() => '');
    if (/stepped by hand/.test(said) || Date.now() > deadline) fail(`after Stop the timeline says: ${said}`);
    await page.waitForTimeout(100);
  }

  // 2d. The Replay lens the exploration's schedule brings, clicked: paused again.
  await replayLens(page, shot);
  // 2e. The lens on a racy test: its races reach Problems with no interleave test run; then
  // its store deleted: they go within 2 s.
  await racyLens(page, shot, ws);
  await storeDeleted(page, shot, ws);

  // 2f. The timeline of a long schedule, looked at; clicks on steps move the session.
  await longTimeline(page, shot);

  // 2c. F5 with the workspace's launch.json: the first time the package is built, then warm.
  for (const run of ['f5First', 'f5Warm']) {
    await openFile(page, 'rlock/cache_test.go');
    const tF5 = Date.now();
    await page.keyboard.press('F5');
    await pausedOn(page, `F5 (${run}) to stop on the deadlock`);
    timings[run] = (Date.now() - tF5) / 1000;
    log(run, 'paused after', timings[run], 's');
    await stopDebugging(page);
  }

  // 3. The timeline of a saved schedule, and a click on a step opens its source.
  await palette(page, 'Interleave: Show Schedule Timeline');
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 60000 });
  await page.keyboard.press('Enter');
  // The webview's page is replaced when the picked schedule is shown: a frame found just before
  // may go away, and is looked for again.
  let clicked = '';
  for (const deadline = Date.now() + 60000; ;) {
    const frame = await timelineFrame(page, '#title:not(:empty)');
    try {
      log('timeline:', await frame.locator('#title').textContent());
      await shot('04-timeline.png');
      await clickStep(frame, 3);
      clicked = await frame.locator('#details').textContent();
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      log('the timeline frame changed:', err.message.split('\n')[0]);
    }
  }
  // The step's file opens in an editor that has the focus (before anything else is typed).
  const stepAt = / at (?:.*\/)?([^/:]+\.go):(\d+)/.exec(clicked);
  if (!stepAt) fail(`the clicked step has no position: ${clicked}`);
  const [, file, line] = stepAt;
  // At the step's line too: the file may already be open and focused from an earlier step, and
  // the go-to-step's reveal would then come after this wait and take the focus from what follows.
  await waitFor(page, `the step's source (${file}:${line}) to open with the focus`, ([f, l]) => [...document.querySelectorAll('.tab.active')].some((t) => t.textContent.includes(f)) &&
    document.activeElement?.closest('.monaco-editor') !== null && document.activeElement?.closest('.monaco-editor') !== undefined &&
    (document.querySelector('.part.statusbar')?.textContent || '').includes(`Ln ${l},`), [file, line], 30000);

  // 4. The Testing view's Explore interleavings on the counter example: failed at the bug.
  await openFile(page, 'counter/account_test.go');
  await page.locator('.editor-group-container.active .view-lines .view-line', { hasText: 'func TestConcurrentWithdraw' }).first().click();
  const tRun = Date.now();
  await palette(page, 'Test: Run Test at Cursor');
  const peek = await waitFor(page, 'the test failure', () => {
    const m = /fail: 2 withdrawals succeeded, want 1/.exec(document.body.innerText);
    return m ? m[0] : null;
  }, undefined, 300000);
  // The failure is at the failing check (account_test.go:30), in Problems too.
  await palette(page, 'View: Focus Problems');
  await waitFor(page, 'the failure at its line in Problems', () => /withdrawals succeeded[\s\S]*\[Ln 30/.test(document.querySelector('.markers-panel')?.innerText || ''), undefined, 30000);
  timings.testingRun = (Date.now() - tRun) / 1000;
  log('testing view failure:', peek.replace(/\s+/g, ' '));
  await shot('05-testing-failure.png');
  await page.keyboard.press('Escape');
  await testingTree(page, shot);

  // 5. The Schedules view lists the schedules saved above.
  await palette(page, 'Focus on Interleave Schedules View', 'Interleave Schedules View');
  // The Test Explorer above it collapsed, so that the Schedules view has the sidebar's height.
  const explorer = page.locator('.pane-header[aria-expanded="true"]', { hasText: 'Test Explorer' }).first();
  if (await explorer.count()) await explorer.click();
  await waitFor(page, 'the saved schedules in the Schedules view', () => {
    const t = [...document.querySelectorAll('.pane')].map((p) => p.innerText).join('\n');
    return /TestOppositeTransfers: deadlock/.test(t) && /TestConcurrentWithdraw: fail/.test(t) ? t : null;
  }, undefined, 60000);
  await shot('06-schedules-view.png');
  // A row's context menu: Show Schedule Timeline opens that row's timeline, titled with its
  // test — not a picker (it opened one titled "Replay a schedule").
  await timelineFromRow(page, 'TestConcurrentWithdraw: fail', 'TestConcurrentWithdraw');

  // 6. A race: the Testing view explores the double-checked initialization, the language
  // server puts warnings on both racy accesses, and their hover says what raced.
  await openFile(page, 'doublecheck/registry_test.go').catch(async () => openFile(page, 'doublecheck/'));
  const testLine = page.locator('.editor-group-container.active .view-lines .view-line', { hasText: 'func TestConcurrentLookup' }).first();
  await testLine.click();
  const tRace = Date.now();
  await palette(page, 'Test: Run Test at Cursor');
  await waitFor(page, 'the test to end', () => /Test.*(failed|passed)|fail/i.test(document.querySelector('.test-output-peek, .peekview-widget')?.textContent || document.body.innerText), undefined, 300000).catch(() => {});
  await page.keyboard.press('Escape');
  await palette(page, 'View: Toggle Problems');
  // Only the races: the explorations above put their bugs in Problems too, and the panel
  // shows (has in its DOM) only the rows that fit.
  await problemsFilter(page, 'data race');
  const problems = await waitFor(page, 'race warnings in Problems', () => {
    const t = document.querySelector('.markers-panel')?.innerText || '';
    return (t.match(/data race/g) || []).length >= 2 ? t : null;
  }, undefined, 120000);
  timings.raceRunToDiagnostics = (Date.now() - tRace) / 1000;
  log('problems:', problems.replace(/\s+/g, ' ').slice(0, 300));
  await shot('07-race-diagnostics.png');
  await problemsFilter(page, '');

  // The hover on a racy access says what raced, and its code action Replay runs the race in
  // the debugger, paused at it.
  const at = /data race[^\n]*(?:\n[^\n\[]*)*\[Ln (\d+), Col (\d+)\]/.exec(problems);
  if (at === null) fail(`no position for the race in Problems: ${problems}`);
  await openFile(page, 'doublecheck/registry.go');
  await quickInput(page, 'Control+G');
  await page.keyboard.type(`${at[1]}:${at[2]}`);
  await page.keyboard.press('Enter');
  await palette(page, 'Show or Focus Hover');
  const hover = await waitFor(page, 'the race hover', () => {
    const h = [...document.querySelectorAll('.monaco-hover')].map((e) => e.innerText).join('\n');
    return /Data race/.test(h) ? h : null;
  }, undefined, 30000);
  log('hover:', hover.replace(/\s+/g, ' ').slice(0, 300));
  if (!/this access/.test(hover) || !/the other access/.test(hover)) fail(`the race hover does not name both accesses: ${hover}`);
  await shot('07b-race-hover.png');
  await page.keyboard.press('Escape');
  await palette(page, 'Quick Fix...', 'Quick Fix');
  const replay = page.locator('.action-widget .monaco-list-row', { hasText: 'Replay the schedule that showed this' }).first();
  await replay.waitFor({ timeout: 30000 });
  await shot('07c-race-code-actions.png');
  // The action widget has the keyboard (an overlay takes the pointer): the first action, Replay,
  // is focused, and Enter applies it.
  if (!/focused/.test((await replay.getAttribute('class')) || '')) fail('Replay is not the first quick fix');
  const tReplay = Date.now();
  await page.keyboard.press('Enter');
  await pausedOn(page, 'the race replayed in the debugger');
  timings.raceActionToPaused = (Date.now() - tReplay) / 1000;
  // The exception widget in the editor says it paused on the race (the sidebar shows the
  // Testing view, not the Call Stack).
  const raceStop = await waitFor(page, 'the exception widget on the race', () => {
    const m = /Exception has occurred: race[^\n]*\n[^\n]*/.exec(document.body.innerText);
    return m ? m[0] : null;
  }, undefined, 60000);
  log('race replay:', raceStop.replace(/\n+/g, ' | ').slice(0, 200));
  await shot('07d-race-replayed.png');
  await stopDebugging(page);

  // 7. interleave test run in the integrated terminal: its result shows in the Testing view
  // (the test's gutter icon turns to failed), from the run summary it writes.
  await palette(page, 'Terminal: Create New Terminal');
  await page.locator('.terminal-wrapper.active .xterm-helper-textarea, .terminal .xterm-helper-textarea').first().waitFor({ timeout: 60000 });
  await page.locator('.terminal-wrapper.active .xterm-helper-textarea, .terminal .xterm-helper-textarea').first().focus();
  const tTerm = Date.now();
  // The terminal's shell has the editor's environment, without Go: a person puts it on PATH.
  const goroot = execFileSync('go', ['env', 'GOROOT']).toString().trim();
  await page.keyboard.type(`cd '${path.join(ws, 'leak')}' && PATH='${goroot}/bin':$PATH '${interleavePath}' test -schedules 200 .\n`);
  await openFile(page, 'leak/dashboard_test.go');
  await waitFor(page, 'the terminal run\'s failure in the Testing view', () =>
    document.querySelector('.editor-group-container.active .codicon-testing-failed-icon') !== null, undefined, 240000).catch(async (err) => {
    const runs = path.join(ws, 'leak', '.interleave', 'runs');
    const listing = fs.existsSync(runs) ? fs.readdirSync(runs).map((f) => `${f} (${fs.statSync(path.join(runs, f)).size} bytes)`).join(', ') || 'empty' : 'missing';
    fail(`${err.message}\n${runs}: ${listing}\n${await workbenchState(page)}`);
  });
  timings.terminalRunToTestingView = (Date.now() - tTerm) / 1000;
  await shot('08-terminal-run-in-testing-view.png');

  // 8. Verify Fix on the deadlock's schedule after the bug is edited away: marked fixed; with
  // the bug back, still fails.
  await verifyFix(page, shot, ws);
}

// verifyFix: the deadlock of lockorder, whose schedule the lens's exploration saved above, is
// fixed on disk (each transfer holds one lock at a time) and the editor shows the fixed file;
// Verify Fix from the schedule's context menu in the Schedules view runs interleave verify,
// and the view marks that schedule, and only it, fixed (the pass icon, "fixed ·" before its
// description) and a notification says fixed with the evidence (replayed clean, fresh
// schedules clean). Then the bug is put back and Verify Fix on the same schedule marks it
// still fails (the error icon), with a warning that says so.
async function verifyFix(page, shot, ws) {
  const file = path.join(ws, 'lockorder', 'bank.go');
  const buggy = fs.readFileSync(file, 'utf8');
  const bug = `	from.mu.Lock()
	defer from.mu.Unlock()
	// BUG: locks are taken in argument order, so an opposite transfer
	// holding to.mu and waiting for from.mu deadlocks with this one.
	to.mu.Lock()
	defer to.mu.Unlock()

	if from.balance < amount {
		return ErrInsufficientFunds
	}
	from.balance -= amount
	to.balance += amount
	return nil
`;
  if (!buggy.includes(bug)) fail(`${file} does not have the Transfer this test fixes`);
  // The fix keeps the schedule's operations where they were (from.mu.Lock() first in
  // Transfer), so that the saved schedule replays, now clean; a fix that moves them (locking
  // in the order of the IDs) is verified as changed.
  const fixed = buggy.replace(bug, `	from.mu.Lock()
	if from.balance < amount {
		from.mu.Unlock()
		return ErrInsufficientFunds
	}
	from.balance -= amount
	from.mu.Unlock()
	// Fixed: one lock at a time, so no transfer waits for a lock while it holds one.
	to.mu.Lock()
	to.balance += amount
	to.mu.Unlock()
	return nil
`);
  // What the Schedules view shows, as window.__interleaveScheduleRows(): its rows' text, the
  // icon and the list index of each.
  await page.evaluate(() => {
    window.__interleaveScheduleRows = () => {
      const pane = [...document.querySelectorAll('.pane')].find((p) => /Interleave Schedules/i.test(p.querySelector('.pane-header')?.textContent || ''));
      return pane ? [...pane.querySelectorAll('.pane-body .monaco-list-row')].map((r) => ({
        text: r.innerText.replace(/\s+/g, ' ').trim(),
        icon: (r.querySelector('.custom-view-tree-node-item-icon')?.className || '').split(/\s+/).filter((c) => c.startsWith('codicon-')).join(' '),
        index: r.getAttribute('data-index'),
      })) : null;
    };
  });
  const editorShows = async (rel, line, text) => {
    // Quick open lists bank_test.go (recently opened) before the file search finds bank.go,
    // and re-sorts as results come: a click on the row found may land on another. Enter once
    // the first row is the file.
    await quickInput(page, 'Control+P');
    await page.keyboard.type(rel);
    const base = rel.split('/').pop();
    await waitFor(page, `${base} first in quick open`, (b) => {
      const first = document.querySelector('.quick-input-list .monaco-list-row[data-index="0"]');
      return first !== null && (first.getAttribute('aria-label') || '').startsWith(b);
    }, base, 60000);
    await page.keyboard.press('Enter');
    await waitFor(page, `the editor on ${rel}`, (b) => [...document.querySelectorAll('.tab.active')].some((t) => t.textContent.includes(b)), base, 30000);
    await quickInput(page, 'Control+G');
    await page.keyboard.type(String(line));
    await page.keyboard.press('Enter');
    await waitFor(page, `the editor to show ${JSON.stringify(text)}`, (t) => (document.querySelector('.editor-group-container.active .view-lines')?.innerText || '').replace(/\u00a0/g, ' ').includes(t), text, 30000);
  };
  // verify runs Verify Fix from the context menu of the schedule's row and waits for the
  // notification with the verdict and for the row marked with it.
  const verify = async (verdict, icon, timing) => {
    await palette(page, 'Focus on Interleave Schedules View', 'Interleave Schedules View');
    const explorer = page.locator('.pane-header[aria-expanded="true"]', { hasText: 'Test Explorer' }).first();
    if (await explorer.count()) await explorer.click();
    const listed = await waitFor(page, 'the deadlock\'s schedule in the Schedules view', () => {
      const r = window.__interleaveScheduleRows();
      return r && r.some((x) => /TestOppositeTransfers: deadlock/.test(x.text) && !/as found/.test(x.text)) ? r : null;
    }, undefined, 60000);
    log('Schedules view:', listed.map((r) => `${r.text} [${r.icon}]`).join(' | '));
    // The schedule marked before, if any; else the newest minimized one.
    const candidates = page.locator('.pane-body .monaco-list-row', { hasText: 'TestOppositeTransfers: deadlock' }).filter({ hasNotText: 'as found' });
    const markedBefore = candidates.filter({ hasText: /(fixed|still fails|changed) ·/ });
    const row = (await markedBefore.count()) ? markedBefore.first() : candidates.first();
    const chosen = (await row.innerText()).replace(/\s+/g, ' ').trim();
    const chosenIndex = await row.getAttribute('data-index');
    const previous = /(fixed|still fails|changed) ·/.test(chosen) ? chosen : undefined;
    await row.click({ button: 'right' });
    const item = page.locator('.monaco-menu .action-item', { hasText: /^Verify Fix$/ }).first();
    await item.waitFor({ timeout: 30000 });
    // The menu takes a hover (its item focused) and Enter; a click on the item is ignored there.
    await item.hover();
    const focused = await waitFor(page, 'Verify Fix focused in the menu', () => {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      const roots = [document, ...[...document.querySelectorAll('.shadow-root-host')].map((h) => h.shadowRoot).filter(Boolean)];
      const marked = roots.flatMap((r) => [...r.querySelectorAll('.monaco-menu .action-item.focused')]);
      return [a?.closest?.('.action-item'), ...marked].some((i) => i && i.textContent.trim() === 'Verify Fix');
    }, undefined, 10000).catch((err) => { log(err.message); return false; });
    if (!focused) log('Verify Fix not seen focused in the menu: Enter pressed all the same');
    const t = Date.now();
    await page.keyboard.press('Enter');
    const said = await waitFor(page, `the notification that TestOppositeTransfers ${verdict}`, (v) => {
      const m = [...document.querySelectorAll('.notification-toast')].map((e) => e.innerText.replace(/\s+/g, ' ')).find((x) => x.includes(`TestOppositeTransfers: ${v}`) || /verify failed/.test(x));
      return m || null;
    }, verdict, 300000);
    if (!said.includes(`TestOppositeTransfers: ${verdict}`)) fail(`Verify Fix said: ${said}`);
    const marked = await waitFor(page, `the schedule marked ${verdict} in the Schedules view`, (v) => {
      const r = window.__interleaveScheduleRows();
      const m = (r || []).filter((x) => /(fixed|still fails|changed) ·/.test(x.text));
      return m.length > 0 && m.every((x) => x.text.includes(`${v} ·`)) ? m : null;
    }, verdict, 30000);
    timings[timing] = (Date.now() - t) / 1000;
    log(`Verify Fix (${timing}) after ${timings[timing]} s: ${said.slice(0, 300)}; marked: ${marked.map((r) => `${r.text} [${r.icon}]`).join(' | ')}`);
    if (marked.length !== 1) fail(`Verify Fix on one schedule marked ${marked.length}: ${marked.map((r) => r.text).join(' | ')}`);
    if (!/^TestOppositeTransfers: deadlock/.test(marked[0].text)) fail(`the row marked is not the deadlock's schedule: ${marked[0].text}`);
    // The row clicked is the row marked. The first time, by its place in the list (a fixed
    // program adds no schedule); the second, the verdict replaced the first one's mark: the
    // same schedule.
    if (previous === undefined ? marked[0].index !== chosenIndex : !/fixed ·/.test(previous) || !/still fails ·/.test(marked[0].text)) {
      fail(`the row marked (${marked[0].text}, index ${marked[0].index}) is not the row clicked (${chosen}, index ${chosenIndex})`);
    }
    if (!marked[0].icon.includes(icon)) fail(`the marked row's icon is ${marked[0].icon || 'none'}, not ${icon}`);
  };

  fs.writeFileSync(file, fixed);
  await editorShows('lockorder/bank.go', 48, 'Fixed: one lock at a time');
  await shot('09-verify-fix-edited.png');
  await verify('fixed', 'codicon-pass', 'verifyFixToFixed');
  await shot('09b-verify-fix-fixed.png');

  fs.writeFileSync(file, buggy);
  await editorShows('lockorder/bank.go', 46, 'BUG: locks are taken in argument order');
  await verify('still fails', 'codicon-error', 'verifyFixToStillFails');
  await shot('09c-verify-fix-still-fails.png');
}

// bundledCases: a new user's first run. A clean code-server profile (its own home directory)
// with the linux-x64 .vsix installed, no interleave.path, PATH without interleave or Go: the
// lens above the deadlocking test runs the binary the .vsix carries and the debugger pauses on
// the deadlock with goroutines in the Call Stack. Then interleave.path (a machine setting in
// code-server) names a missing file: a session started from the command palette (without the
// binary no language server runs, and so no lens) ends with the error that says so, within
// 10 s of the click, and no Stop is needed.
async function bundledCases(vsix) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'interleave-e2e-bundled-'));
  const home = path.join(tmp, 'home');
  const ws = path.join(tmp, 'examples');
  fs.cpSync(path.join(repo, 'testdata', 'examples', 'lockorder'), path.join(ws, 'lockorder'), { recursive: true });
  fs.rmSync(path.join(ws, 'lockorder', '.interleave'), { recursive: true, force: true });
  const base = {
    'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
    'workbench.enableExperiments': false, 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none',
    'window.commandCenter': false, 'workbench.tips.enabled': false, 'interleave.schedules': 2000,
  };
  const userDir = path.join(home, '.local', 'share', 'code-server', 'User');
  const machineDir = path.join(home, '.local', 'share', 'code-server', 'Machine');
  fs.mkdirSync(userDir, { recursive: true });
  fs.mkdirSync(machineDir, { recursive: true });
  fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify(base, null, 2));
  const pathDirs = ['/usr/local/bin', '/usr/bin', '/bin'];
  for (const d of pathDirs) if (fs.existsSync(path.join(d, 'interleave'))) fail(`${d}/interleave exists: the bundled case needs a PATH without interleave`);
  const env = { ...process.env, HOME: home, PATH: pathDirs.join(':') };
  delete env.GOBIN;
  delete env.GOPATH;
  execFileSync(codeServer, ['--install-extension', vsix, '--force'], { env, stdio: 'inherit' });
  const installed = fs.readdirSync(path.join(home, '.local', 'share', 'code-server', 'extensions')).find((d) => d.startsWith('interleave-dev.interleave-'));
  if (installed === undefined || !fs.existsSync(path.join(home, '.local', 'share', 'code-server', 'extensions', installed, 'extension', 'bin', 'interleave'))) {
    fail(`the installed extension (${installed}) has no extension/bin/interleave`);
  }
  const port = await freePort();
  const server = spawn(codeServer, ['--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ws], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let serverLog = '';
  await new Promise((resolve, reject) => {
    const seen = (d) => { serverLog += d; if (/HTTP server listening/.test(serverLog)) resolve(); };
    server.stdout.on('data', seen);
    server.stderr.on('data', seen);
    server.on('exit', (code) => reject(new Error(`code-server exited (${code}):\n${serverLog}`)));
  });
  const ctx = await chromium.launchPersistentContext(fs.mkdtempSync(path.join(tmp, 'chrome-')), {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1600, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const shot = async (name) => { const p = path.join(out, name); await page.screenshot({ path: p }); log('screenshot', p); };
  try {
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(ws)}`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    log('bundled: workbench up');
    await openFile(page, 'lockorder/bank_test.go');
    const lens = page.locator('.codelens-decoration a', { hasText: 'Explore interleavings' }).first();
    await lens.waitFor({ timeout: 120000 });
    const tLens = Date.now();
    await lens.click();
    await pausedOn(page, 'the debugger to stop (bundled binary)', Number(process.env.E2E_STOP_TIMEOUT || 300000));
    timings.bundledLensToPaused = (Date.now() - tLens) / 1000;
    const stack = await waitFor(page, 'goroutines in the Call Stack', () => {
      const t = document.querySelector('.debug-call-stack')?.innerText || '';
      return /G0/.test(t) && /G1/.test(t) ? t : null;
    }, undefined, 60000);
    log('bundled: paused; call stack:', stack.replace(/\n+/g, ' | ').slice(0, 200));
    if (!/deadlock|exception|paused/i.test(stack)) fail(`the Call Stack does not say why it paused: ${stack}`);
    await shot('00-bundled-paused-on-deadlock.png');
    await stopDebugging(page);

    // interleave.path names a missing file, in the machine's settings (where code-server reads it).
    const missing = path.join(tmp, 'no-such-dir', 'interleave');
    fs.writeFileSync(path.join(machineDir, 'settings.json'), JSON.stringify({ 'interleave.path': missing }, null, 2));
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.waitForSelector('.monaco-workbench', { timeout: 120000 });
    await openFile(page, 'lockorder/bank_test.go');
    // No language server runs without the binary, so no lens: the palette's command, with
    // the cursor in the test, starts the session as the lens does.
    await quickInput(page, 'Control+G');
    await page.keyboard.type('20:1');
    await page.keyboard.press('Enter');
    await palette(page, 'Interleave: Explore Interleavings');
    const tClick = Date.now();
    const said = await waitFor(page, 'the error about interleave.path', (m) => {
      const t = [...document.querySelectorAll('.monaco-dialog-box, .notification-toast')].map((e) => e.innerText).join(' | ');
      return t.includes(m) ? t : null;
    }, `interleave.path is "${missing}"`, 10000);
    const ended = await waitFor(page, 'no debug session', () => {
      const tb = document.querySelector('.debug-toolbar');
      return tb === null || tb.offsetParent === null;
    }, undefined, Math.max(1, 10000 - (Date.now() - tClick)));
    timings.missingPathToError = (Date.now() - tClick) / 1000;
    if (!ended) fail('a debug session is still running');
    log(`missing interleave.path: the session ended with the error in ${timings.missingPathToError} s: ${said.replace(/\s+/g, ' ').slice(0, 300)}`);
    await shot('00-missing-path-error.png');
  } catch (err) {
    await shot('bundled-failure.png').catch(() => {});
    console.error(`bundled case: ${await workbenchState(page)}\ncode-server log:\n${serverLog.slice(-3000)}`);
    throw err;
  } finally {
    await ctx.close();
    const exited = server.exitCode !== null ? Promise.resolve() : new Promise((resolve) => server.once('exit', resolve));
    try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10000))]);
    try { process.kill(-server.pid, 'SIGKILL'); } catch { /* already gone */ }
    try {
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 250 });
    } catch (err) {
      console.error(`warning: the e2e test's directory ${tmp} was not removed: ${err.message}`);
    }
  }
}

// exceptionLineIsCallStacks: at the stop on a deadlock the exception widget names the stopped
// goroutine at the line of its top frame in the Call Stack (the selected frame), and does not
// name it, or any goroutine, at a line the deadlock does not leave it at.
// longTimeline explores the pipeline example (a deadlock after about 250 steps) from its lens,
// opens the timeline, checks it has the steps, the objects' names and the preemptions, clicks
// steps 1, 3 and the last (the session goes there each time: the timeline's step is the
// Scheduler scope's), then a preemption, and takes the screenshot the README shows.
async function longTimeline(page, shot) {
  await openFile(page, 'pipeline/pipeline_test.go');
  const lens = page.locator('.codelens-decoration a', { hasText: 'Explore interleavings' }).first();
  await lens.waitFor({ timeout: 120000 });
  await lens.click();
  await pausedOn(page, 'the pipeline\'s deadlock', Number(process.env.E2E_STOP_TIMEOUT || 300000));
  await palette(page, 'Interleave: Show Schedule Timeline');
  const frame = await timelineFrame(page, '#session[data-step]:not([data-step=""])');
  let text = '';
  for (const deadline = Date.now() + 60000; !/preemption\(s\)/.test(text);) {
    if (Date.now() > deadline) fail(`the timeline's title has no preemptions: ${text}`);
    text = await frame.locator('#title').textContent();
    await page.waitForTimeout(100);
  }
  const steps = Number(/: (\d+) steps/.exec(text)?.[1] ?? 0);
  log('long timeline:', text);
  if (steps < 200) fail(`the pipeline's schedule has ${steps} steps, want at least 200`);
  for (const n of [1, 3, steps]) {
    await clickStepAndFollow(page, frame, n);
    const details = await frame.locator('#details').textContent();
    log(`clicked step ${n}:`, details);
    if (!details.startsWith(`Step ${n} of ${steps}: G`)) fail(`after clicking step ${n} the timeline says ${details}`);
  }
  // Keyboard: Home, then Shift+Right to the first preemption, Enter goes there.
  await frame.locator('#chart').focus();
  await page.keyboard.press('Home');
  await page.keyboard.press('Shift+ArrowRight');
  const pre = await frame.locator('#details').textContent();
  if (!/a preemption/.test(pre)) fail(`Shift+Right did not select a preemption: ${pre}`);
  const n = Number(/^Step (\d+)/.exec(pre)[1]);
  await page.keyboard.press('Enter');
  for (const deadline = Date.now() + 60000; (await currentStep(frame)) !== n;) {
    if (Date.now() > deadline) fail(`Enter on step ${n}: the session is at ${await currentStep(frame)}`);
    await page.waitForTimeout(100);
  }
  await pausedOn(page, `the session to stop before the preemption at step ${n}`, 60000);
  // The labels name the objects as the source spells them (drawn on the canvas; the
  // selected step's in the page's text).
  // (Which preemption comes first depends on the strategy the debugger explores with: under the
  // portfolio it may be a read of the jobs variable.)
  if (!/G\d+ (lock tot\.mu|unlock tot\.mu|recv jobs|send jobs|read jobs|read tot\.\w+|write tot\.\w+)/.test(pre)) fail(`the preemption's label does not name its object: ${pre}`);
  await shot('08-timeline-long.png');
  // For the README: a preemption in the middle, the session there, the window wider.
  await frame.locator('#chart').focus();
  await page.keyboard.press('End');
  for (let i = 0; i < 30; i++) await page.keyboard.press('Shift+ArrowLeft');
  const late = Number(/^Step (\d+)/.exec(await frame.locator('#details').textContent())[1]);
  await page.keyboard.press('Enter');
  for (const deadline = Date.now() + 60000; (await currentStep(frame)) !== late;) {
    if (Date.now() > deadline) fail(`Enter on step ${late}: the session is at ${await currentStep(frame)}`);
    await page.waitForTimeout(100);
  }
  await pausedOn(page, `the session to stop before step ${late}`, 60000);
  // A wider window gives the timeline's group room: the same steps, wider.
  await page.setViewportSize({ width: 2200, height: 1000 });
  await frame.locator('.help').hover();
  await page.waitForTimeout(1000);
  await shot('08-timeline-long-wide.png');
  // The README's picture: the window without its bottom edge, where toasts appear.
  const readme = path.join(out, 'vscode-timeline.png');
  await page.screenshot({ path: readme, clip: { x: 0, y: 0, width: 2200, height: 880 } });
  log('screenshot', readme);
  await page.setViewportSize({ width: 1600, height: 1000 });
  // The keyboard back to the workbench (a webview with the focus keeps keys from it).
  await page.locator('.editor-group-container .view-lines').first().click();
  await stopDebugging(page);
}

async function exceptionLineIsCallStacks(page) {
  const got = await waitFor(page, 'the exception widget and the Call Stack\'s selected frame', () => {
    const widget = document.querySelector('.exception-widget');
    const row = document.querySelector('.debug-call-stack .monaco-list-row.selected .stack-frame') ||
      document.querySelector('.debug-call-stack .monaco-list-row.focused .stack-frame');
    if (!widget || !row) return null;
    const file = row.querySelector('.file-name')?.textContent?.trim();
    const line = /^(\d+)/.exec(row.querySelector('.line-number')?.textContent?.trim() || '')?.[1];
    return file && line ? { text: widget.innerText, frame: `${file}:${line}` } : null;
  }, undefined, 60000);
  log('exception widget:', got.text.replace(/\s+/g, ' ').slice(0, 300), '· Call Stack:', got.frame);
  if (!/Exception has occurred: deadlock/.test(got.text)) fail(`the exception widget does not say deadlock: ${got.text}`);
  if (!got.text.includes(got.frame)) fail(`the exception text does not name the Call Stack's line ${got.frame}: ${got.text}`);
}

// threadLabelsFresh: after a step away from the stop on the deadlock, no thread in the Call
// Stack is still labelled as paused on it.
async function threadLabelsFresh(page) {
  await waitFor(page, 'no thread labelled paused on the deadlock after Step Back', () => {
    const t = document.querySelector('.debug-call-stack')?.innerText || '';
    return /G0/.test(t) && /G1/.test(t) && !/paused on (deadlock|exception)/i.test(t);
  }, undefined, 15000).catch(async (err) => {
    const stack = await page.locator('.debug-call-stack').first().innerText().catch(() => '?');
    fail(`${err.message}: ${stack.replace(/\n+/g, ' | ')}`);
  });
}

// replayLens: after the exploration that found the deadlock, the language server's Replay lens
// shows above the test (the schedule the debug adapter saved), and clicking it pauses a replay.
async function replayLens(page, shot) {
  await openFile(page, 'lockorder/bank_test.go');
  // The debugger left the editor at the deadlock's line, below the test's declaration: a code
  // lens is drawn only over the lines in view, so go to the top.
  await page.locator('.editor-group-container.active .view-lines').first().click();
  await page.keyboard.press('Control+Home');
  const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: /^Replay deadlock/ }).first();
  const t = Date.now();
  await lens.waitFor({ timeout: 30000 }).catch(async (err) => {
    const lenses = await page.locator('.codelens-decoration').allInnerTexts().catch(() => []);
    fail(`no Replay lens above TestOppositeTransfers (lenses: ${lenses.join(' | ')}): ${err.message.split('\n')[0]}`);
  });
  timings.replayLensShown = (Date.now() - t) / 1000;
  await shot('04b-replay-lens.png');
  const tClick = Date.now();
  await lens.click();
  await pausedOn(page, 'the Replay lens\'s session to stop', 120000);
  timings.replayLensToPaused = (Date.now() - tClick) / 1000;
  // Paused at its first scheduling point: only the test's goroutine exists yet.
  await waitFor(page, 'the replay paused at step 1 in the Scheduler scope', () => [...document.querySelectorAll('.monaco-list-row')].some((r) => /^\s*step\W*1 of \d+/.test(r.textContent || '')), undefined, 60000);
  await shot('04c-replay-lens-paused.png');
  await stopDebugging(page);
}

// racyLens: Explore interleavings clicked on the racy double-checked initialization; the
// exploration runs in the debug adapter (no interleave test), and its races show in Problems
// on both racy lines.
async function racyLens(page, shot, ws) {
  if (fs.existsSync(path.join(ws, 'doublecheck', '.interleave'))) fail('doublecheck has a results store before its lens was clicked');
  await openFile(page, 'doublecheck/registry_test.go');
  const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Explore interleavings' }).first();
  await lens.waitFor({ timeout: 120000 });
  const t = Date.now();
  await lens.click();
  // The exploration pauses on the bug it finds (the failed lookup), or ends without one.
  const end = await waitFor(page, 'the lens\'s exploration to pause or end', () => {
    const toolbar = document.querySelector('.debug-toolbar');
    const shown = toolbar !== null && toolbar.offsetParent !== null;
    if (shown) window.__interleaveSessionSeen = true;
    if (document.querySelector('.debug-top-stack-frame-line')) return 'paused';
    return window.__interleaveSessionSeen && !shown ? 'ended' : null;
  }, undefined, 300000);
  log('the racy lens\'s exploration', end, 'after', (Date.now() - t) / 1000, 's');
  await palette(page, 'View: Focus Problems');
  await problemsFilter(page, 'data race');
  // The lines of the data race warnings in Problems.
  const lines = await waitFor(page, 'the lens\'s races on both lines in Problems', () => {
    const t = document.querySelector('.markers-panel')?.innerText || '';
    const l = new Set([...t.matchAll(/data race[^\n]*(?:\n[^\n[]*)*\[Ln (\d+)/g)].map((m) => m[1]));
    return l.size >= 2 ? [...l].sort().join(',') : null;
  }, undefined, 60000);
  timings.racyLensToProblems = (Date.now() - t) / 1000;
  log('the lens\'s races in Problems on lines', lines);
  await shot('04d-racy-lens-problems.png');
  if (await page.locator('.debug-toolbar').first().isVisible().catch(() => false)) await stopDebugging(page);
}

// storeDeleted: the racy package's .interleave/ deleted: Problems has no race left within 2 s.
async function storeDeleted(page, shot, ws) {
  await palette(page, 'View: Focus Problems');
  const t = Date.now();
  fs.rmSync(path.join(ws, 'doublecheck', '.interleave'), { recursive: true, force: true });
  await waitFor(page, 'the races gone from Problems', () => !/data race/.test(document.querySelector('.markers-panel')?.innerText || ''), undefined, 2000);
  timings.storeDeletedToCleared = (Date.now() - t) / 1000;
  log('store deleted: Problems cleared after', timings.storeDeletedToCleared, 's');
  await shot('04e-store-deleted.png');
  await problemsFilter(page, '');
}

// problemsFilter types text into the Problems panel's filter ('' clears it).
async function problemsFilter(page, text) {
  const input = page.locator('.viewpane-filter input, input[placeholder^="Filter (e.g. text"]').first();
  await input.waitFor({ timeout: 30000 });
  await input.fill(text);
  await waitFor(page, `the Problems filter ${JSON.stringify(text)}`, (t) => [...document.querySelectorAll('.viewpane-filter input')].some((i) => i.value === t), text, 10000);
}

main().catch((err) => { console.error('E2E FAILED:', err.message); process.exit(1); });

// testingTree: the Testing view's tree has a package level, as vscode-go's (package → file →
// test), and the test run above shows the run's duration (seconds, not the exploration's
// fraction of a millisecond).
async function testingTree(page, shot) {
  await palette(page, 'Testing: Focus on Test Explorer View', 'Test Explorer');
  const counter = page.locator('.test-explorer .monaco-list-row[aria-level="1"]', { hasText: 'counter' }).first();
  await counter.waitFor({ timeout: 60000 }).catch(async (err) => fail(`no package row "counter" in the Test Explorer: ${await page.locator('.test-explorer').first().innerText().catch(() => '?')}`));
  if ((await counter.getAttribute('aria-expanded')) === 'false') await counter.click();
  const tree = await waitFor(page, 'the package level in the Test Explorer', () => {
    const rows = [...document.querySelectorAll('.test-explorer .monaco-list-row')].map((r) => ({ level: Number(r.getAttribute('aria-level')), text: r.innerText.replace(/\s+/g, ' ').trim() }));
    // A row's text runs on into its duration ("counter91.7s").
    const pkg = rows.find((r) => r.level === 1 && /^counter(?![a-z_])/i.test(r.text));
    return pkg !== undefined && rows.some((r) => r.level === 2 && /account_test\.go/.test(r.text)) ? rows : null;
  }, undefined, 60000).catch(async (err) => fail(`${err.message}: ${await page.locator('.test-explorer').first().innerText().catch(() => '?')}`));
  log('test explorer:', tree.filter((r) => r.level <= 3).map((r) => `${r.level}:${r.text}`).join(' | ').slice(0, 400));
  const duration = tree.map((r) => /^(?:counter|account_test\.go|TestConcurrentWithdraw)\D*?(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(r.text)).find((m) => m);
  if (duration) {
    const ms = Number(duration[1]) * (duration[2] === 's' ? 1000 : 1);
    log('the counter run took', ms, 'ms in the Test Explorer');
    if (ms < 100) fail(`the test's duration is ${duration[0]}: the exploration's time, not the run's`);
  } else {
    fail('the Test Explorer shows no duration beside the counter package\'s run');
  }
  await shot('05b-testing-tree.png');
}
