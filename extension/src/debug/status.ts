// The status bar during an exploration in the debugger: strategy, schedules and schedules per
// second from the adapter's progress events; a click cancels the exploration.

import * as vscode from 'vscode';

interface ProgressEventBody {
  progressId?: string;
  title?: string;
  message?: string;
}

/** Watches the interleave debug sessions' progress events. */
export class ExplorationStatus implements vscode.DebugAdapterTrackerFactory, vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  private active: { session: vscode.DebugSession; progressId: string } | undefined;

  constructor() {
    this.item.command = 'interleave.cancelExploration';
    this.item.tooltip = 'Interleave: click to cancel the exploration (what was found so far is kept)';
  }

  createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
    return {
      onDidSendMessage: (m: { type?: string; event?: string; body?: ProgressEventBody }) => {
        if (m.type !== 'event' || m.body === undefined) {
          return;
        }
        switch (m.event) {
          case 'progressStart':
            this.active = { session, progressId: m.body.progressId ?? '' };
            this.show(m.body.title ?? 'Exploring', m.body.message);
            break;
          case 'progressUpdate':
            if (this.active?.session === session) {
              this.show(undefined, m.body.message);
            }
            break;
          case 'progressEnd':
            if (this.active?.session === session) {
              this.hide();
            }
            break;
        }
      },
      onExit: () => {
        if (this.active?.session === session) {
          this.hide();
        }
      },
    };
  }

  private title = '';

  private show(title: string | undefined, message: string | undefined): void {
    if (title !== undefined) {
      this.title = title;
    }
    this.item.text = `$(debug-alt) ${this.title}${message ? ': ' + message : ''}`;
    this.item.show();
  }

  private hide(): void {
    this.active = undefined;
    this.item.hide();
  }

  /** Cancels the exploration in progress (DAP cancel with its progress id). */
  async cancel(): Promise<void> {
    if (this.active !== undefined) {
      await this.active.session.customRequest('cancel', { progressId: this.active.progressId });
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
