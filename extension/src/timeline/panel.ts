// The timeline webview: the model of a schedule (model.ts) drawn by the page's script
// (webview/main.ts, bundled to dist/timeline.js with flame-chart-js), under a strict content
// security policy (no inline script or style; the script and the style sheet with a nonce).
//
// Outside a debug session the timeline shows the schedule file, and a click on a step opens
// the source at its operation. During an interleave debug session on the same schedule it
// shows what the adapter's interleaveTimeline request returns (the objects' names, the
// enabled goroutines: the preemptions, the blocked spans) and follows the session: after each
// stop the adapter's interleaveStep event moves the current mark, and a click on a step asks
// the adapter to move the execution there (interleaveGotoStep, package dapext of the adapter).

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inertMessage } from '../markdown';
import { limits, readBounded } from '../store/read';
import { parsePosition } from '../store/store';
import { moduleRootOf } from '../schedules/list';
import { Model, Timeline, buildModel, runSteps, timelineOf } from './model';

/** The body of the adapter's interleaveStep event. */
export interface StepEventBody {
  step: number;
  steps: number;
  schedule?: string;
  following: boolean;
  ended: boolean;
}

/** Where a debug session is, from its last interleaveStep event. */
interface SessionStep {
  session: vscode.DebugSession;
  body: StepEventBody;
}

/** A message from the webview: a click on step (1-based) at pos, or the page is ready. */
interface ClickMessage {
  step?: number;
  pos?: string;
  ready?: boolean;
}

/** What the webview is told of the session (webview/main.ts). */
interface SessionView {
  step: number;
  steps: number;
  following: boolean;
  ended: boolean;
  active: boolean;
  why: string;
}

/** Shows the timeline of one schedule at a time, following the interleave debug session. */
export class TimelinePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private schedule: string | undefined;
  private model: Model | undefined;
  /** The schedule file's timeline, shown until the session's steps replace it. */
  private file: Timeline | undefined;
  /** The model came from the session (with enabled goroutines), not the file alone. */
  private fromSession = false;
  private ready = false;
  private last: SessionStep | undefined;
  private ended = false;
  private openOnNextStep = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly extensionUri: vscode.Uri) {
    this.disposables.push(
      vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
        if (e.session.type === 'interleave' && e.event === 'interleaveStep') {
          void this.onStep({ session: e.session, body: e.body as StepEventBody });
        }
      }),
      vscode.debug.onDidTerminateDebugSession((session) => {
        if (this.last?.session === session) {
          this.last = undefined;
          this.ended = true;
          this.post({ type: 'session', session: this.sessionView() });
        }
      }),
    );
  }

  /** The schedule file of the active interleave debug session, if it follows one. */
  sessionSchedule(): string | undefined {
    return this.last?.body.schedule || undefined;
  }

  /** Opens the timeline of the next debug session's schedule when it first stops. */
  showNextSession(): void {
    this.openOnNextStep = true;
  }

  /**
   * Shows the timeline of the schedule file at schedulePath; ask: also ask the debug session
   * that follows it for its steps now (else when the panel next becomes active: the adapter
   * re-runs the execution to answer, and the stop it reports again moves the editor's focus,
   * which must not happen while the person types elsewhere).
   */
  async show(schedulePath: string, ask = true): Promise<void> {
    const text = await readBounded(schedulePath, limits.schedule);
    const t = timelineOf(JSON.parse(text));
    this.file = t;
    this.schedule = schedulePath;
    this.model = buildModel(t);
    this.fromSession = false;
    if (this.panel === undefined) {
      this.panel = vscode.window.createWebviewPanel('interleave.timeline', 'Schedule Timeline', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        // The page is built here (no command links); its only script is the extension's
        // bundle, loaded from dist/ with a nonce; the schedule reaches it as a message.
        { enableScripts: true, enableCommandUris: false, localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'extension', 'dist')], retainContextWhenHidden: true });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.schedule = undefined;
        this.model = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m: ClickMessage) => this.onMessage(m));
      this.panel.onDidChangeViewState((e) => {
        if (e.webviewPanel.active && this.file !== undefined) {
          void this.fromAdapter(this.file);
        }
      });
      this.ready = false;
      this.panel.webview.html = page(this.panel.webview, this.extensionUri);
    }
    this.panel.title = `Timeline: ${t.test || path.basename(schedulePath)}`;
    this.sendModel();
    this.panel.reveal(undefined, true);
    if (ask) {
      await this.fromAdapter(t);
    }
  }

  /**
   * While a debug session follows the shown schedule, asks its adapter for the steps with
   * what the file does not say (object names, enabled goroutines) and shows those.
   */
  private async fromAdapter(file: Timeline): Promise<void> {
    const s = this.last;
    if (s === undefined || s.body.schedule !== this.schedule || !s.body.following || s.body.ended || this.fromSession) {
      return;
    }
    const schedule = this.schedule;
    this.fromSession = true;
    try {
      const body = (await s.session.customRequest('interleaveTimeline')) as { steps?: unknown };
      if (this.schedule !== schedule) {
        return;
      }
      this.model = buildModel({ ...file, steps: runSteps(body.steps) });
      this.sendModel();
    } catch (err) {
      this.fromSession = false;
      void vscode.window.showWarningMessage(inertMessage(`Interleave: the timeline has only the schedule file's steps: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private sessionView(): SessionView {
    const b = this.last?.body;
    const on = b !== undefined && b.schedule === this.schedule;
    const active = on && b.following && !b.ended;
    return {
      step: b?.step ?? 0, steps: b?.steps ?? 0, following: b?.following ?? false, ended: b?.ended ?? false, active,
      why: active ? '' : on && !b.following ? 'left' : this.ended || (on && b.ended) ? 'ended' : '',
    };
  }

  private post(m: unknown): void {
    if (this.ready) {
      void this.panel?.webview.postMessage(m);
    }
  }

  private sendModel(): void {
    this.post({ type: 'model', model: this.model, session: this.sessionView() });
  }

  private async onStep(s: SessionStep): Promise<void> {
    if (this.last?.session !== s.session) {
      this.ended = false;
    }
    this.last = s;
    if (this.openOnNextStep && s.body.schedule) {
      this.openOnNextStep = false;
      await this.show(s.body.schedule);
      return;
    }
    if (this.panel === undefined) {
      return;
    }
    if (s.body.schedule && s.body.schedule !== this.schedule) {
      // The session follows another schedule than the one shown: show the session's (its
      // steps are asked for when the panel becomes active).
      await this.show(s.body.schedule, false);
      return;
    }
    this.post({ type: 'session', session: this.sessionView() });
  }

  private async onMessage(m: ClickMessage): Promise<void> {
    if (m.ready) {
      this.ready = true;
      this.sendModel();
      return;
    }
    const s = this.last;
    if (s !== undefined && m.step !== undefined && s.body.schedule === this.schedule && s.body.following && !s.body.ended) {
      // Pause the session before the clicked step: after step-1 steps, with its operation
      // the next to run.
      try {
        await s.session.customRequest('interleaveGotoStep', { step: m.step - 1 });
      } catch (err) {
        void vscode.window.showWarningMessage(inertMessage(`Interleave: cannot go to step ${m.step}: ${err instanceof Error ? err.message : String(err)}`));
      }
      return;
    }
    await this.openSource(m.pos);
  }

  private async openSource(pos: string | undefined): Promise<void> {
    const p = pos !== undefined ? parsePosition(pos) : undefined;
    if (p === undefined || this.schedule === undefined) {
      return;
    }
    const file = path.isAbsolute(p.file) ? p.file : path.join(moduleRootOf(this.schedule), p.file);
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
    const at = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  }

  dispose(): void {
    this.panel?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

/** The page: no schedule text in it (the model comes as a message), its script from dist/. */
export function page(webview: Pick<vscode.Webview, 'cspSource' | 'asWebviewUri'>, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'extension', 'dist', 'timeline.js'));
  const swatch = (cls: string, text: string): string => `<span class="key"><span class="sw ${cls}"></span>${text}</span>`;
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}' ${webview.cspSource}; img-src ${webview.cspSource} data:;">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 8px; }
#title { font-weight: bold; margin: 6px 0 2px; }
#session { color: var(--vscode-descriptionForeground); min-height: 1.3em; }
#details { min-height: 1.3em; font-family: var(--vscode-editor-font-family); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0; color: var(--vscode-descriptionForeground); }
.key { display: inline-flex; align-items: center; gap: 4px; }
.sw { display: inline-block; width: 14px; height: 10px; border: 1px solid var(--vscode-contrastBorder, transparent); }
.go { background: var(--vscode-charts-blue); } .lock { background: var(--vscode-charts-orange); } .chan { background: var(--vscode-charts-green); }
.atomic { background: var(--vscode-charts-purple); } .memory { background: var(--vscode-charts-yellow); }
.holds { background: repeating-linear-gradient(45deg, var(--vscode-charts-orange) 0 3px, transparent 3px 6px); }
.blocked { background: repeating-linear-gradient(-45deg, var(--vscode-charts-green) 0 1px, transparent 1px 5px); }
.preempt { width: 2px; background: var(--vscode-charts-red); } .bug { width: 2px; background: var(--vscode-errorForeground); }
.current { width: 2px; background: var(--vscode-focusBorder); }
.help { color: var(--vscode-descriptionForeground); font-size: 0.9em; }
#chart { display: block; width: 100%; outline: none; }
#chart:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
</style></head>
<body>
<div id="title"></div>
<div id="session" role="status"></div>
<div class="legend">${swatch('go', 'go')}${swatch('lock', 'lock / wait group')}${swatch('chan', 'channel')}${swatch('atomic', 'atomic')}${swatch('memory', 'memory')}${swatch('holds', 'holds a lock')}${swatch('blocked', 'blocked (waits to …)')}${swatch('preempt', '⚡ preemption')}${swatch('bug', '✕ the bug')}${swatch('current', '▶ debug session')}</div>
<div id="details" aria-live="polite"></div>
<canvas id="chart" tabindex="0" aria-label="Schedule timeline: one lane per goroutine"></canvas>
<div class="help">Click a step to go there · ←/→ select a step · Shift+←/→ the previous/next preemption · Home/End · Enter go to the selected step · +/− zoom · 0 all · drag or scroll to move, Ctrl+wheel to zoom</div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body></html>`;
}
