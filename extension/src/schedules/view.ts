// The Schedules view (in the Testing sidebar): every saved schedule per module — test, kind,
// preemptions, age — kept up to date as the store changes.

import * as path from 'node:path';
import * as vscode from 'vscode';
import { age, oneRowPerBug, ScheduleSummary } from '../store/store';
import { StoreWatcher } from '../store/watch';
import { listSchedules, moduleRootOf } from './list';
import { scheduleTooltip } from './tooltip';
import { Node, nodeSchedulePath } from './node';
import { Verdict } from './verify';


export class SchedulesView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly watcher = new StoreWatcher('schedules');
  /** Verify fix's verdicts, by schedule path. */
  private readonly verdicts = new Map<string, Verdict>();
  /** Redraws the rows once a minute, so that their ages move on ("just now" stayed so). */
  private readonly ticker: ReturnType<typeof setInterval>;

  constructor() {
    this.watcher.onDidChange(() => this.refresh());
    this.ticker = setInterval(() => this.refresh(), 60_000);
  }

  refresh(): void {
    this.changed.fire(undefined);
  }

  /** Marks the schedule with Verify fix's verdict. */
  mark(schedulePath: string, v: Verdict): void {
    this.verdicts.set(schedulePath, v);
    this.refresh();
  }

  async getChildren(node?: Node): Promise<Node[]> {
    if (node?.kind === 'schedule') {
      return [];
    }
    if (node?.kind === 'module') {
      return node.schedules.map((schedule) => ({ kind: 'schedule', schedule }));
    }
    const byModule = new Map<string, ScheduleSummary[]>();
    for (const s of oneRowPerBug(await listSchedules())) {
      const root = moduleRootOf(s.path);
      byModule.set(root, [...(byModule.get(root) ?? []), s]);
    }
    return [...byModule.entries()].map(([root, schedules]) => ({ kind: 'module', root, schedules }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'module') {
      const item = new vscode.TreeItem(path.basename(node.root), vscode.TreeItemCollapsibleState.Expanded);
      item.description = node.root;
      item.iconPath = new vscode.ThemeIcon('package');
      return item;
    }
    const s = node.schedule;
    const item = new vscode.TreeItem(`${s.test}: ${s.kind}`, vscode.TreeItemCollapsibleState.None);
    item.description = `${s.preemptions} preemption${s.preemptions === 1 ? '' : 's'}${s.found ? ' (as found)' : ''} · ${age(s.time, Date.now())}`;
    // From the store: escaped (tooltip.ts), and never trusted: no command links, no HTML.
    const tooltip = new vscode.MarkdownString(scheduleTooltip(s));
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    tooltip.supportThemeIcons = false;
    item.tooltip = tooltip;
    item.contextValue = 'schedule';
    item.iconPath = new vscode.ThemeIcon(s.kind === 'pass' ? 'pass' : 'bug');
    const v = this.verdicts.get(s.path);
    if (v !== undefined) {
      // Verify fix's verdict: fixed, still fails, changed.
      item.description = `${v.verdict} · ${item.description as string}`;
      item.iconPath = new vscode.ThemeIcon(v.verdict === 'fixed' ? 'pass' : v.verdict === 'still fails' ? 'error' : 'warning');
    }
    item.resourceUri = vscode.Uri.file(s.path);
    item.command = { command: 'interleave.replay', title: 'Replay', arguments: [item] };
    return item;
  }

  dispose(): void {
    clearInterval(this.ticker);
    this.watcher.dispose();
    this.changed.dispose();
  }
}

/** The schedule path a view item or a command argument names. */
export function schedulePathOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') {
    return arg;
  }
  if (arg instanceof vscode.TreeItem && arg.resourceUri !== undefined) {
    return arg.resourceUri.fsPath;
  }
  if (arg instanceof vscode.Uri) {
    return arg.fsPath;
  }
  // A context menu's command gets the tree element.
  return nodeSchedulePath(arg);
}
