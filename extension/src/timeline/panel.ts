// The timeline webview: the schedule rendered as SVG by render.ts, with a strict content
// security policy (no external scripts, styles or fonts; one inline script with a nonce).
//
// Outside a debug session a click on a step opens the source at its operation. During an
// interleave debug session on the same schedule the timeline follows the session: after each
// stop the adapter's interleaveStep event moves the current mark, and a click on a step asks
// the adapter to move the execution there (interleaveGotoStep, package dapext of the adapter).

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { inertMessage } from '../markdown';
import { limits, readBounded } from '../store/read';
import { parsePosition } from '../store/store';
import { moduleRootOf } from '../schedules/list';
import { renderSVG, timelineOf } from './render';

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

/** A message from the webview: a click on step (1-based) at pos. */
interface ClickMessage {
  step?: number;
  pos?: string;
}

/** Shows the timeline of one schedule at a time, following the interleave debug session. */
export class TimelinePanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private schedule: string | undefined;
  private last: SessionStep | undefined;
  private openOnNextStep = false;
  private readonly disposables: vscode.Disposable[] = [];

  constructor() {
    this.disposables.push(
      vscode.debug.onDidReceiveDebugSessionCustomEvent((e) => {
        if (e.session.type === 'interleave' && e.event === 'interleaveStep') {
          void this.onStep({ session: e.session, body: e.body as StepEventBody });
        }
      }),
      vscode.debug.onDidTerminateDebugSession((session) => {
        if (this.last?.session === session) {
          this.last = undefined;
          // The session ended (Stop, or the test process ended): nothing is current, and
          // nothing left the schedule — following: false would read "a goroutine was stepped by
          // hand". sessionEnded says why there is no current step.
          void this.panel?.webview.postMessage({ current: 0, sessionEnded: true });
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

  /** Shows the timeline of the schedule file at schedulePath. */
  async show(schedulePath: string): Promise<void> {
    const text = await readBounded(schedulePath, limits.schedule);
    const t = timelineOf(JSON.parse(text), this.currentFor(schedulePath));
    const svg = renderSVG(t);
    if (this.panel === undefined) {
      this.panel = vscode.window.createWebviewPanel('interleave.timeline', 'Schedule Timeline', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        // The page is built here (no local resources, no command links); its only script is
        // the page's own, with a nonce (page below), never the schedule's text.
        { enableScripts: true, enableCommandUris: false, localResourceRoots: [] });
      this.panel.onDidDispose(() => {
        this.panel = undefined;
        this.schedule = undefined;
      });
      this.panel.webview.onDidReceiveMessage((m: ClickMessage) => this.onClick(m));
    }
    this.schedule = schedulePath;
    this.panel.title = `Timeline: ${t.test || path.basename(schedulePath)}`;
    this.panel.webview.html = page(svg, this.panel.webview.cspSource);
    this.panel.reveal(undefined, true);
  }

  /** The current step (1-based) of the session on schedulePath, 0 if none follows it. */
  private currentFor(schedulePath: string): number {
    const b = this.last?.body;
    return b !== undefined && b.schedule === schedulePath && b.following ? b.step + 1 : 0;
  }

  private async onStep(s: SessionStep): Promise<void> {
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
      // The session follows another schedule than the one shown: show the session's.
      await this.show(s.body.schedule);
      return;
    }
    void this.panel.webview.postMessage({ current: this.currentFor(this.schedule ?? ''), following: s.body.following });
  }

  private async onClick(m: ClickMessage): Promise<void> {
    const s = this.last;
    if (s !== undefined && m.step !== undefined && s.body.schedule === this.schedule && s.body.following && !s.body.ended) {
      // Pause the session before the clicked step: after step-1 steps.
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

function page(svg: string, cspSource: string): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}' ${cspSource}; script-src 'nonce-${nonce}'; img-src ${cspSource} data:;">
<style nonce="${nonce}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.title { font-weight: bold; fill: var(--vscode-foreground); }
.lane { fill: var(--vscode-foreground); font-size: 12px; }
.laneline { stroke: var(--vscode-editorIndentGuide-background, #8884); }
.switch { stroke: var(--vscode-descriptionForeground, #888); stroke-dasharray: 2 2; }
.switch, .laneline, .lane, .title, .bugtext { pointer-events: none; }
.mark { cursor: pointer; }
.mark.current { stroke: var(--vscode-focusBorder, #07f); stroke-width: 3; }
.mark.bug { stroke: var(--vscode-errorForeground, #f44); stroke-width: 3; }
.bugtext { fill: var(--vscode-errorForeground, #f44); font-size: 12px; }
.legend span { margin-right: 1em; }
.legend .go { color: #6c8ebf; } .legend .lock { color: #d79b00; } .legend .chan { color: #82b366; }
.legend .atomic { color: #9673a6; } .legend .memory { color: #b85450; } .legend .time { color: #10739e; }
#session { color: var(--vscode-descriptionForeground); }
</style></head>
<body>
<div class="legend"><span class="go">● go</span><span class="lock">● lock / wait</span><span class="chan">● channel</span><span class="atomic">● atomic</span><span class="memory">● memory</span><span class="time">● time</span> — dashed: the schedule switches goroutines</div>
<div id="session"></div>
${svg}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const marks = document.querySelectorAll('.mark');
marks.forEach((m) => m.addEventListener('click', () => vscode.postMessage({ step: Number(m.dataset.step), pos: m.dataset.pos })));
const session = document.getElementById('session');
window.addEventListener('message', (e) => {
  const current = Number(e.data.current) || 0;
  marks.forEach((m) => m.classList.toggle('current', Number(m.dataset.step) === current));
  const at = document.querySelector('.mark.current');
  if (at) at.scrollIntoView({ block: 'nearest', inline: 'center' });
  session.textContent = current > 0 ? 'Debug session at step ' + current + ': click a step to move the session there' :
    e.data.sessionEnded === true ? 'The debug session has ended' :
    e.data.following === false ? 'The debug session has left this schedule (a goroutine was stepped by hand)' : '';
});
</script>
</body></html>`;
}
