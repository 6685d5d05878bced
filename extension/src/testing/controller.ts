// The Testing view: the Go tests of the workspace (package → file → test → literal subtests,
// as vscode-go shows them), with two
// run profiles — Explore interleavings (interleave test -json, one test at a time, results at
// the bug's position) and Explore in debugger (the debug session of interleave.explore). Runs
// of interleave test made elsewhere (a terminal, a task, CI's store copied in) show up too:
// each run summary written to .interleave/runs becomes a test run of its tests.

import * as cp from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { testVerdictOf } from '../schedules/verify';
import { limits, readBounded } from '../store/read';
import { modulePath, notExplored, packageDir, parseEvents, parsePosition, parseRunSummary, passSummary, RunOutcome, TestEvent } from '../store/store';
import { StoreWatcher } from '../store/watch';
import { restrictedMessage, toolsOrError } from '../tools/tools';
import { discoverTests, runPattern } from './discover';
import { itemDescription, parseFindingsRaces, passText, raceText, runDuration } from './results';

/** What a test item stands for: a package (file is its directory), a file, a test or a
 * subtest. */
interface TestData {
  file: vscode.Uri;
  pkg?: boolean;
  test?: string;
  subtest?: string;
}

/** The contextValue of a bug's message: its Replay and Show timeline actions (package.json's
 * testing/message/context and testing/message/content menus). */
export const bugMessageContext = 'interleave.bug';

export class TestingController implements vscode.Disposable {
  private readonly ctrl = vscode.tests.createTestController('interleave', 'Interleave');
  private readonly data = new WeakMap<vscode.TestItem, TestData>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The -origin of this window's own runs: their run summaries are not shown twice. */
  private readonly origin = `vscode:${vscode.env.sessionId}`;
  /** The run summaries shown: a summary may be reported more than once. */
  private readonly shownSummaries = new Set<string>();
  /** The schedule of each test item's last bug, for its message's actions. */
  private readonly bugSchedules = new Map<string, string>();

  constructor(
    private readonly explore: (pkgDir: string, test: string) => Thenable<boolean>,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.ctrl.resolveHandler = async (item) => {
      if (item === undefined) {
        await this.discoverWorkspace();
      } else if (this.data.get(item)?.pkg) {
        await this.discoverPackage(item);
      } else {
        await this.discoverFile(item);
      }
    };
    this.ctrl.createRunProfile('Explore interleavings', vscode.TestRunProfileKind.Run, (req, token) => this.run(req, token), true);
    this.ctrl.createRunProfile('Explore in debugger', vscode.TestRunProfileKind.Debug, (req) => this.debug(req), true);
    this.ctrl.createRunProfile('Verify fix', vscode.TestRunProfileKind.Run, (req, token) => this.verify(req, token), false);
    const watcher = vscode.workspace.createFileSystemWatcher('**/*_test.go');
    watcher.onDidCreate((uri) => void this.fileItem(uri));
    watcher.onDidChange((uri) => {
      const item = this.fileItem(uri);
      void this.discoverFile(item);
    });
    watcher.onDidDelete((uri) => {
      const pkg = this.ctrl.items.get(packageId(vscode.Uri.file(path.dirname(uri.fsPath))));
      pkg?.children.delete(uri.toString());
      if (pkg !== undefined && pkg.children.size === 0) {
        this.ctrl.items.delete(pkg.id);
      }
    });
    // Tests of the files open in editors are there at once, for the gutter and Run Test at
    // Cursor; the rest when the Testing view asks.
    const discoverDoc = (doc: vscode.TextDocument): void => {
      if (doc.uri.scheme === 'file' && doc.fileName.endsWith('_test.go')) {
        void this.discoverFile(this.fileItem(doc.uri));
      }
    };
    vscode.workspace.textDocuments.forEach(discoverDoc);
    const runs = new StoreWatcher('runs');
    runs.onDidChange((e) => {
      if (!e.deleted) {
        void this.showRunSummary(vscode.Uri.file(e.file));
      }
    });
    this.disposables.push(watcher, runs, this.ctrl, vscode.workspace.onDidOpenTextDocument(discoverDoc));
    // A bug's message in the test results: replay its schedule, or show its timeline.
    const onBug = (command: string) => (arg: unknown): Thenable<unknown> | undefined => {
      const id = (arg as { test?: { id?: unknown } } | undefined)?.test?.id;
      const schedule = typeof id === 'string' ? this.bugSchedules.get(id) : undefined;
      if (schedule === undefined) {
        void vscode.window.showInformationMessage('Interleave: this result has no saved schedule (run the test again).');
        return undefined;
      }
      return vscode.commands.executeCommand(command, schedule);
    };
    this.disposables.push(
      vscode.commands.registerCommand('interleave.testReplay', onBug('interleave.replay')),
      vscode.commands.registerCommand('interleave.testShowTimeline', onBug('interleave.showTimeline')),
    );
  }

  /** Shows the results of a run summary written by interleave test run outside this view. */
  private async showRunSummary(uri: vscode.Uri): Promise<void> {
    if (this.shownSummaries.has(uri.fsPath)) {
      return;
    }
    this.shownSummaries.add(uri.fsPath);
    let text: string;
    try {
      text = await readBounded(uri.fsPath, limits.summary);
    } catch (err) {
      this.log.warn(`run summary ${uri.fsPath}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const summary = parseRunSummary(text);
    if (summary === undefined) {
      this.log.warn(`run summary ${uri.fsPath}: not a run summary of interleave test (version 1)`);
      return;
    }
    if (summary.origin === this.origin || summary.outcomes.length === 0) {
      return; // a run of this window's, shown as it ran; or a run that selected no test
    }
    const moduleDir = path.dirname(path.dirname(path.dirname(uri.fsPath))); // <module>/.interleave/runs/x.json
    let modPath: string | undefined;
    try {
      modPath = modulePath(await readBounded(path.join(moduleDir, 'go.mod'), limits.source));
    } catch {
      modPath = undefined;
    }
    if (modPath === undefined) {
      this.log.warn(`run summary ${uri.fsPath}: ${moduleDir} has no go.mod with a module line: its tests cannot be placed`);
      return;
    }
    const found: { item: vscode.TestItem; outcome: RunOutcome }[] = [];
    for (const outcome of summary.outcomes) {
      const dir = packageDir(moduleDir, modPath, outcome.Package);
      const item = dir === undefined ? undefined : await this.findTest(dir, outcome.Test);
      if (item !== undefined) {
        found.push({ item, outcome });
      }
    }
    this.log.info(`run summary ${uri.fsPath}${summary.origin ? ` (from ${summary.origin})` : ''}: ${found.length} of ${summary.outcomes.length} test(s) found in the workspace`);
    if (found.length === 0) {
      return;
    }
    const run = this.ctrl.createTestRun(new vscode.TestRunRequest(found.map((f) => f.item)), `interleave test, ${summary.time}`, true);
    for (const { item, outcome } of found) {
      const r = outcome.Result;
      // No duration: the summary has the exploration's own time (2 ms for a run of seconds),
      // not how long the run took.
      item.description = itemDescription(r);
      if (outcome.Err !== undefined && outcome.Err !== '') {
        run.errored(item, new vscode.TestMessage(outcome.Err));
      } else if (r?.Bug !== undefined) {
        run.failed(item, this.bugMessage(item, r, vscode.Uri.file(path.join(moduleDir, 'go.mod'))));
      } else if (notExplored(outcome.Status, outcome.Reason) !== undefined) {
        run.skipped(item);
        run.appendOutput(notExplored(outcome.Status, outcome.Reason)!.replace(/\n/g, '\r\n') + '\r\n', undefined, item);
      } else if (r?.Stopped === 'skipped') {
        run.skipped(item);
      } else if (r !== undefined) {
        run.passed(item);
        await this.passOutput(run, item, r, moduleDir);
      }
    }
    run.end();
  }

  /** The test item of a top-level test in the package directory dir, discovering its files. */
  private async findTest(dir: string, test: string): Promise<vscode.TestItem | undefined> {
    for (const uri of await vscode.workspace.findFiles(new vscode.RelativePattern(vscode.Uri.file(dir), '*_test.go'))) {
      const file = this.fileItem(uri);
      await this.discoverFile(file);
      const item = file.children.get(`${uri.toString()}#${test}`);
      if (item !== undefined) {
        return item;
      }
    }
    return undefined;
  }

  private async discoverWorkspace(): Promise<void> {
    for (const uri of await vscode.workspace.findFiles('**/*_test.go', '{**/node_modules/**,**/testdata/**,**/vendor/**}', 5000)) {
      this.fileItem(uri);
    }
  }

  /** The item of the package in directory dir: the top level of the tree, as vscode-go's. */
  private packageItem(dir: vscode.Uri): vscode.TestItem {
    const id = packageId(dir);
    const existing = this.ctrl.items.get(id);
    if (existing !== undefined) {
      return existing;
    }
    const folder = vscode.workspace.getWorkspaceFolder(dir);
    const rel = vscode.workspace.asRelativePath(dir, false);
    const label = folder !== undefined && folder.uri.fsPath === dir.fsPath ? folder.name : rel;
    const item = this.ctrl.createTestItem(id, label, dir);
    item.canResolveChildren = true;
    this.data.set(item, { file: dir, pkg: true });
    this.ctrl.items.add(item);
    return item;
  }

  /** The item of a test file, under its package's. */
  private fileItem(uri: vscode.Uri): vscode.TestItem {
    const pkg = this.packageItem(vscode.Uri.file(path.dirname(uri.fsPath)));
    const existing = pkg.children.get(uri.toString());
    if (existing !== undefined) {
      return existing;
    }
    const item = this.ctrl.createTestItem(uri.toString(), path.basename(uri.fsPath), uri);
    item.canResolveChildren = true;
    this.data.set(item, { file: uri });
    pkg.children.add(item);
    return item;
  }

  /** Finds the test files of a package item's directory. */
  private async discoverPackage(item: vscode.TestItem): Promise<void> {
    const d = this.data.get(item);
    if (d?.pkg !== true) {
      return;
    }
    for (const uri of await vscode.workspace.findFiles(new vscode.RelativePattern(d.file, '*_test.go'))) {
      this.fileItem(uri);
    }
  }

  private async discoverFile(item: vscode.TestItem): Promise<void> {
    const d = this.data.get(item);
    if (d === undefined || d.test !== undefined || d.pkg === true) {
      return;
    }
    const text =
      d.file.scheme === 'file' ? await readBounded(d.file.fsPath, limits.source) : new TextDecoder().decode(await vscode.workspace.fs.readFile(d.file));
    const children: vscode.TestItem[] = [];
    for (const t of discoverTests(text)) {
      const ti = this.ctrl.createTestItem(`${d.file.toString()}#${t.name}`, t.name, d.file);
      ti.range = new vscode.Range(t.line, 0, t.line, 0);
      this.data.set(ti, { file: d.file, test: t.name });
      for (const s of t.subtests) {
        const si = this.ctrl.createTestItem(`${ti.id}/${s.name}`, s.name, d.file);
        si.range = new vscode.Range(s.line, 0, s.line, 0);
        this.data.set(si, { file: d.file, test: t.name, subtest: s.name });
        ti.children.add(si);
      }
      children.push(ti);
    }
    item.children.replace(children);
  }

  /** The tests a request runs: the items, or every test of the packages and files among them. */
  private async leaves(req: vscode.TestRunRequest): Promise<vscode.TestItem[]> {
    const roots: vscode.TestItem[] = [];
    if (req.include !== undefined) {
      roots.push(...req.include);
    } else {
      this.ctrl.items.forEach((i) => roots.push(i));
    }
    const out: vscode.TestItem[] = [];
    for (const item of roots) {
      const d = this.data.get(item);
      if (d?.test !== undefined) {
        out.push(item);
        continue;
      }
      const files: vscode.TestItem[] = [item];
      if (d?.pkg === true) {
        await this.discoverPackage(item);
        files.length = 0;
        item.children.forEach((f) => files.push(f));
      }
      for (const f of files) {
        await this.discoverFile(f);
        f.children.forEach((c) => out.push(c));
      }
    }
    return out.filter((i) => !req.exclude?.includes(i));
  }

  private async run(req: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.ctrl.createTestRun(req);
    const found = vscode.workspace.isTrusted ? toolsOrError() : undefined;
    const tools = found?.tools;
    const tests = await this.leaves(req);
    for (const item of tests) {
      if (token.isCancellationRequested) {
        run.skipped(item);
        continue;
      }
      if (tools?.interleave === undefined) {
        run.errored(item, new vscode.TestMessage(found?.error ?? restrictedMessage));
        continue;
      }
      run.started(item);
      await this.exploreOne(run, item, tools.interleave, tools.env, token);
    }
    run.end();
  }

  /** Verify fix: interleave verify -json for each test — its saved schedules replayed, then
   * explored again as when the bug was found — marking the item passed (fixed, or changed and
   * clean) or failed (still fails). */
  private async verify(req: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.ctrl.createTestRun(req);
    const found = vscode.workspace.isTrusted ? toolsOrError() : undefined;
    const tools = found?.tools;
    for (const item of await this.leaves(req)) {
      const d = this.data.get(item);
      if (token.isCancellationRequested || d?.test === undefined) {
        run.skipped(item);
        continue;
      }
      if (tools?.interleave === undefined) {
        run.errored(item, new vscode.TestMessage(found?.error ?? restrictedMessage));
        continue;
      }
      run.started(item);
      const bin = tools.interleave;
      const test = d.test;
      const args = ['verify', '-json', '-run', `^${test}$`, '.'];
      run.appendOutput(`$ interleave ${args.join(' ')}\r\n`, undefined, item);
      await new Promise<void>((resolve) => {
        const child = cp.execFile(bin, args, { cwd: path.dirname(d.file.fsPath), env: tools.env, maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
          cancel.dispose();
          const v = testVerdictOf(stdout, test);
          if (v === undefined) {
            if (err === null) {
              run.skipped(item);
              run.appendOutput(`no saved schedule of ${test}: nothing to verify\r\n`, undefined, item);
            } else {
              run.errored(item, new vscode.TestMessage(`interleave verify failed: ${stderr.trim() || err.message}`));
            }
          } else if (v.verdict === 'still fails') {
            run.failed(item, new vscode.TestMessage(`still fails\n${v.detail}`));
          } else {
            run.passed(item);
            run.appendOutput(`${v.verdict}\r\n${v.detail.replace(/\n/g, '\r\n')}\r\n`, undefined, item);
          }
          resolve();
        });
        const cancel = token.onCancellationRequested(() => child.kill('SIGINT'));
      });
    }
    run.end();
  }

  /** Runs interleave test -json for one test and reports its result on the item. */
  private exploreOne(run: vscode.TestRun, item: vscode.TestItem, bin: string, env: NodeJS.ProcessEnv, token: vscode.CancellationToken): Promise<void> {
    const d = this.data.get(item);
    if (d?.test === undefined) {
      return Promise.resolve();
    }
    const dir = path.dirname(d.file.fsPath);
    // A budget the user set is explored whole; the default stops where nothing new comes.
    const set = vscode.workspace.getConfiguration('interleave').inspect<number>('schedules');
    const schedules = set?.workspaceFolderValue ?? set?.workspaceValue ?? set?.globalValue;
    const budget = schedules !== undefined ? ['-schedules', String(schedules)] : [];
    const args = ['test', '-json', '-origin', this.origin, ...budget, '-run', runPattern(d.test, d.subtest), '.'];
    run.appendOutput(`$ interleave ${args.join(' ')}\r\n`, undefined, item);
    const started = Date.now();
    return new Promise((resolve) => {
      const child = cp.spawn(bin, args, { cwd: dir, env });
      const cancel = token.onCancellationRequested(() => child.kill('SIGINT'));
      let rest = '';
      let final: TestEvent | undefined;
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        const parsed = parseEvents(rest, chunk.toString());
        rest = parsed.rest;
        for (const e of parsed.events) {
          if (e.Output !== undefined) {
            run.appendOutput(e.Output.replace(/\n/g, '\r\n'), undefined, item);
          }
          if ((e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') && e.Test !== undefined) {
            final = e;
          }
        }
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        run.appendOutput(chunk.toString().replace(/\n/g, '\r\n'), undefined, item);
      });
      child.on('close', async (code) => {
        cancel.dispose();
        // The run as it was waited for: the build and the exploration (the event's Elapsed
        // is the exploration's own time, 0.2 ms for a test whose run took 6 s).
        const ms = runDuration(started, Date.now());
        item.description = itemDescription(final);
        if (final?.Action === 'pass') {
          run.passed(item, ms);
          await this.passOutput(run, item, final, undefined);
        } else if (final?.Action === 'skip') {
          run.skipped(item);
          const why = notExplored(final.Status, final.Reason);
          if (why !== undefined) {
            run.appendOutput(why.replace(/\n/g, '\r\n') + '\r\n', undefined, item);
          }
        } else if (final?.Bug !== undefined) {
          run.failed(item, this.bugMessage(item, final, d.file), ms);
        } else if (token.isCancellationRequested) {
          run.skipped(item);
        } else {
          run.errored(item, new vscode.TestMessage(`interleave test exited with status ${code}: ${final?.Error ?? stderr.trim()}`));
        }
        resolve();
      });
    });
  }

  /** Says how a test passed: with its races (each at both of its lines, in the editor too)
   * and its notice. moduleDir is where the findings' positions are relative to (undefined:
   * the findings document's module). */
  private async passOutput(run: vscode.TestRun, item: vscode.TestItem, e: TestEvent, moduleDir: string | undefined): Promise<void> {
    run.appendOutput(passText(e, passSummary(e)).replace(/\n/g, '\r\n') + '\r\n', undefined, item);
    if ((e.Races ?? 0) === 0 || e.Findings === undefined || e.Findings === '') {
      return;
    }
    const findings = path.isAbsolute(e.Findings) ? e.Findings : path.join(moduleDir ?? '', e.Findings);
    let text: string;
    try {
      text = await readBounded(findings, limits.summary);
    } catch (err) {
      this.log.warn(`findings ${findings}: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    const root = moduleDir ?? findings.slice(0, Math.max(0, findings.lastIndexOf('.interleave') - 1));
    for (const r of parseFindingsRaces(text)) {
      for (const at of ['a', 'b'] as const) {
        const pos = parsePosition(r[at].pos);
        const location = pos === undefined ? undefined :
          new vscode.Location(vscode.Uri.file(path.isAbsolute(pos.file) ? pos.file : path.join(root, pos.file)), new vscode.Position(pos.line - 1, Math.max(0, pos.column - 1)));
        run.appendOutput(raceText(r, at) + '\r\n', location, item);
      }
    }
  }

  private bugMessage(item: vscode.TestItem, e: TestEvent, file: vscode.Uri): vscode.TestMessage {
    const bug = e.Bug!;
    const msg = new vscode.TestMessage(`${bug.Kind}: ${bug.Message}\n\nschedule: ${bug.Schedule ?? '(not saved)'} (${bug.Preemptions} preemptions)${e.Output ?? ''}`);
    if (bug.Schedule !== undefined && bug.Schedule !== '') {
      // Replay and Show timeline on the message (package.json's testing/message menus).
      msg.contextValue = bugMessageContext;
      this.bugSchedules.set(item.id, bug.Schedule);
    } else {
      this.bugSchedules.delete(item.id);
    }
    const pos = parsePosition(bug.Position);
    if (pos !== undefined) {
      const root = bug.Schedule !== undefined ? bug.Schedule.slice(0, bug.Schedule.lastIndexOf('.interleave') - 1) : path.dirname(file.fsPath);
      const target = path.isAbsolute(pos.file) ? pos.file : path.join(root, pos.file);
      msg.location = new vscode.Location(vscode.Uri.file(target), new vscode.Position(pos.line - 1, pos.column - 1));
    }
    return msg;
  }

  private async debug(req: vscode.TestRunRequest): Promise<void> {
    for (const item of await this.leaves(req)) {
      const d = this.data.get(item);
      if (d?.test !== undefined) {
        await this.explore(path.dirname(d.file.fsPath), d.test);
      }
    }
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}

/** The id of the package item of directory dir. */
function packageId(dir: vscode.Uri): string {
  return `package:${dir.toString()}`;
}
