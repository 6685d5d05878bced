// The commands: explore a test and replay a schedule in the debugger (the language server's
// code lenses and actions call them with their arguments), pick a schedule for launch.json,
// and the Schedules view's actions.

import * as cp from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { listSchedules, moduleRootOf } from './schedules/list';
import { schedulePathOf } from './schedules/view';
import { exploreOptions, ExploreOptions } from './debug/options';
import { inertMessage } from './markdown';
import { limits, readBounded } from './store/read';
import { age, packageDir, parseSchedule, ScheduleSummary } from './store/store';
import { verdictOf, Verdict } from './schedules/verify';
import { TimelinePanel } from './timeline/panel';
import { requireTools } from './tools/tools';

/** Starts a debug session that explores test in the package at pkgDir. */
export function exploreInDebugger(pkgDir: string, test: string, moduleDir?: string, options: ExploreOptions = {}): Thenable<boolean> {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(pkgDir));
  return vscode.debug.startDebugging(folder, {
    type: 'interleave', request: 'launch', name: `Explore ${test}`, mode: 'explore', program: pkgDir, test,
    cwd: moduleDir ?? folder?.uri.fsPath ?? pkgDir, ...exploreOptions(options),
  });
}

/** Starts a debug session that replays the schedule file, stopped on its first step. */
export function replayInDebugger(schedule: string): Thenable<boolean> {
  const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(schedule));
  return vscode.debug.startDebugging(folder, {
    type: 'interleave', request: 'launch', name: `Replay ${path.basename(schedule)}`, mode: 'replay', scheduleFile: schedule, stopOnEntry: true,
    cwd: moduleRootOf(schedule),
  });
}

/** A QuickPick of the store's schedules: test, kind, preemptions, age. */
export async function pickSchedule(title = 'Replay a schedule'): Promise<string | undefined> {
  const schedules = await listSchedules();
  if (schedules.length === 0) {
    void vscode.window.showInformationMessage('Interleave: no saved schedule in the workspace yet (explore a test first).');
    return undefined;
  }
  const now = Date.now();
  const picked = await vscode.window.showQuickPick(schedules.map((s) => ({
    label: `${s.test}: ${s.kind}`,
    description: `${s.preemptions} preemption${s.preemptions === 1 ? '' : 's'} · ${age(s.time, now)}`,
    detail: s.path,
    path: s.path,
  })), { title, matchOnDetail: true });
  return picked?.path;
}

/** Registers the commands. */
export function registerCommands(context: vscode.ExtensionContext, refresh: () => void, timeline: TimelinePanel, mark?: (schedule: string, v: Verdict) => void,
  selectedSchedule: () => string | undefined = () => undefined): void {
  const reg = (id: string, f: (...args: unknown[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(id, f));
  };
  reg('interleave.explore', async (...args: unknown[]) => {
    // From a code lens or action: module dir, package dir, test, and maybe options (points,
    // races). From the palette: the test under the cursor.
    let [moduleDir, pkgDir, test] = args.slice(0, 3).map((a) => (typeof a === 'string' ? a : undefined));
    if (pkgDir === undefined || test === undefined) {
      const editor = vscode.window.activeTextEditor;
      if (editor === undefined || !editor.document.fileName.endsWith('_test.go')) {
        void vscode.window.showInformationMessage('Interleave: open a Go test file and put the cursor in a test to explore it.');
        return;
      }
      pkgDir = path.dirname(editor.document.fileName);
      test = testAt(editor.document, editor.selection.active.line);
      if (test === undefined) {
        test = await vscode.window.showInputBox({ title: 'Explore interleavings', prompt: 'The test to explore', value: 'Test' });
        if (test === undefined) {
          return;
        }
      }
    }
    await exploreInDebugger(pkgDir, test, moduleDir, exploreOptions(args[3]));
  });
  reg('interleave.replay', async (...args: unknown[]) => {
    // From a code lens: module dir, package dir, test, schedule. From the view: its item.
    const schedule = schedulePathOf(args.length >= 4 ? args[3] : args[0]) ?? (await pickSchedule());
    if (schedule !== undefined) {
      await replayInDebugger(schedule);
    }
  });
  reg('interleave.pickSchedule', () => pickSchedule());
  reg('interleave.showTimeline', async (...args: unknown[]) => {
    // From a diagnostic's action: module dir, package dir, test, and {schedule} for a bug, or
    // {findings, race} for a race, which has no schedule file: the race is replayed in the
    // debugger (races failing at the first), and the timeline follows that session. From the
    // Schedules view: its item (its context menu, its inline action). From the palette: the
    // debug session's schedule, the item selected in the Schedules view, or one picked.
    if (args.length >= 4 && args[3] !== null && typeof args[3] === 'object') {
      const o = args[3] as { schedule?: unknown; findings?: unknown };
      if (typeof o.schedule === 'string') {
        await timeline.show(o.schedule);
        return;
      }
      const [moduleDir, pkgDir, test] = args.map((a) => (typeof a === 'string' ? a : undefined));
      if (typeof o.findings === 'string' && pkgDir !== undefined && test !== undefined) {
        timeline.showNextSession();
        await exploreInDebugger(pkgDir, test, moduleDir, { races: 'fail', points: 'all' });
        return;
      }
    }
    const schedule = schedulePathOf(args[0]) ?? timeline.sessionSchedule() ?? selectedSchedule() ?? (await pickSchedule('Show the timeline of a schedule'));
    if (schedule !== undefined) {
      await timeline.show(schedule);
    }
  });
  reg('interleave.revealSchedule', async (arg: unknown) => {
    const schedule = schedulePathOf(arg);
    if (schedule !== undefined) {
      await vscode.window.showTextDocument(vscode.Uri.file(schedule));
    }
  });
  reg('interleave.deleteSchedule', async (arg: unknown) => {
    const schedule = schedulePathOf(arg);
    if (schedule === undefined) {
      return;
    }
    const del = 'Delete';
    if ((await vscode.window.showWarningMessage(inertMessage(`Delete ${path.basename(schedule)}?`), { modal: true }, del)) === del) {
      await vscode.workspace.fs.delete(vscode.Uri.file(schedule));
      refresh();
    }
  });
  reg('interleave.keepSchedule', async (arg: unknown) => {
    // interleave keep: the schedule into testdata/interleave/<Test>/ of its package, to commit.
    const schedule = schedulePathOf(arg);
    const tools = schedule !== undefined ? requireTools() : undefined;
    if (schedule === undefined || tools?.interleave === undefined) {
      return;
    }
    cp.execFile(tools.interleave, ['keep', schedule], { cwd: moduleRootOf(schedule), env: tools.env }, (err, stdout, stderr) => {
      if (err !== null) {
        void vscode.window.showErrorMessage(inertMessage(`Interleave: keep failed: ${stderr.trim() || err.message}`));
      } else {
        void vscode.window.showInformationMessage(inertMessage(`Interleave: ${stdout.trim().split('\n').join(' · ')}`));
      }
    });
  });
  reg('interleave.verifyFix', async (arg: unknown) => {
    // interleave verify on the schedule's test: its saved schedules replayed, then explored
    // again as when the bug was found; the schedule is marked with the verdict.
    const schedule = schedulePathOf(arg);
    const tools = schedule !== undefined ? requireTools() : undefined;
    if (schedule === undefined || tools?.interleave === undefined) {
      return;
    }
    let s: ScheduleSummary | undefined;
    try {
      s = parseSchedule(schedule, await readBounded(schedule, limits.schedule));
    } catch {
      s = undefined;
    }
    const root = moduleRootOf(schedule);
    const dir = s === undefined ? undefined : packageDir(root, s.module, s.package);
    if (s === undefined || dir === undefined || s.test === '') {
      void vscode.window.showErrorMessage(inertMessage(`Interleave: ${path.basename(schedule)} names no package of its module: nothing to verify`));
      return;
    }
    const bin = tools.interleave;
    const full = s.test;
    const test = full.split('/')[0];
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Verifying the fix of ${test}`, cancellable: true }, (_p, token) =>
      new Promise<void>((resolve) => {
        const child = cp.execFile(bin, ['verify', '-json', '-run', `^${test}$`, dir], { cwd: root, env: tools.env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
          const v = verdictOf(stdout, schedule, full);
          if (v === undefined) {
            void vscode.window.showErrorMessage(inertMessage(`Interleave: verify failed: ${stderr.trim() || err?.message || 'no verdict on the schedule'}`));
          } else {
            mark?.(schedule, v);
            const show = v.verdict === 'fixed' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
            void show(inertMessage(`Interleave: ${test}: ${v.verdict} — ${v.detail}`));
          }
          resolve();
        });
        token.onCancellationRequested(() => child.kill('SIGINT'));
      }));
  });
  reg('interleave.minimize', async (arg: unknown) => {
    const schedule = schedulePathOf(arg);
    const tools = schedule !== undefined ? requireTools() : undefined;
    if (schedule === undefined || tools?.interleave === undefined) {
      return;
    }
    const bin = tools.interleave;
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Minimizing ${path.basename(schedule)}`, cancellable: true }, (_p, token) =>
      new Promise<void>((resolve) => {
        const child = cp.execFile(bin, ['minimize', schedule], { cwd: moduleRootOf(schedule), env: tools.env }, (err, stdout, stderr) => {
          if (err !== null) {
            void vscode.window.showErrorMessage(inertMessage(`Interleave: minimize failed: ${stderr.trim() || err.message}`));
          } else {
            void vscode.window.showInformationMessage(inertMessage(`Interleave: ${stdout.trim().split('\n').join(' · ')}`));
          }
          refresh();
          resolve();
        });
        token.onCancellationRequested(() => child.kill('SIGINT'));
      }));
  });
}

/** The test function whose body holds line, found by text. */
export function testAt(doc: vscode.TextDocument, line: number): string | undefined {
  for (let i = line; i >= 0; i--) {
    const m = /^func\s+(Test\w*)\s*\(/.exec(doc.lineAt(i).text);
    if (m !== null) {
      return m[1];
    }
  }
  return undefined;
}
