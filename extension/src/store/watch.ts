// Watching one kind of document in the results stores of the workspace's modules
// (<module>/.interleave/runs or .interleave/schedules): the editor's workspace watcher, and a
// watch on each such directory (dirwatch.ts says why both).

import * as path from 'node:path';
import * as vscode from 'vscode';
import { DirWatcher, StoreFileEvent } from './dirwatch';

export class StoreWatcher implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<StoreFileEvent>();
  /** A document of the store written or deleted; the same write may be reported twice. */
  readonly onDidChange = this.emitter.event;
  private readonly dirs: DirWatcher;
  private readonly disposables: vscode.Disposable[] = [this.emitter];

  /** Watches the documents of .interleave/<sub> written from now on. */
  constructor(sub: 'runs' | 'schedules') {
    this.dirs = new DirWatcher(Date.now(), (e) => this.emitter.fire(e));
    const files = vscode.workspace.createFileSystemWatcher(`**/.interleave/${sub}/*.json`);
    files.onDidCreate((uri) => this.emitter.fire({ file: uri.fsPath, deleted: false }));
    files.onDidChange((uri) => this.emitter.fire({ file: uri.fsPath, deleted: false }));
    files.onDidDelete((uri) => this.emitter.fire({ file: uri.fsPath, deleted: true }));
    // A new store, or a new directory in one: watched from then on, what it holds reported.
    const stores = vscode.workspace.createFileSystemWatcher('**/.interleave', false, true, true);
    stores.onDidCreate((uri) => this.dirs.watch(path.join(uri.fsPath, sub)));
    const subs = vscode.workspace.createFileSystemWatcher(`**/.interleave/${sub}`, false, true, true);
    subs.onDidCreate((uri) => this.dirs.watch(uri.fsPath));
    this.disposables.push(files, stores, subs, { dispose: () => this.dirs.dispose() });
    // The stores there already, at the roots of the workspace's modules.
    void vscode.workspace.findFiles('**/go.mod', '**/{node_modules,vendor,testdata}/**').then((mods) => {
      for (const mod of mods) {
        this.dirs.watch(path.join(path.dirname(mod.fsPath), '.interleave', sub));
      }
    });
  }

  dispose(): void {
    this.disposables.forEach((d) => d.dispose());
  }
}
