// The timeline webview: the schedule rendered as SVG by render.ts, with a strict content
// security policy (no external scripts, styles or fonts; one inline script with a nonce). A
// click on a step opens the source at its operation.

import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parsePosition } from '../store/store';
import { moduleRootOf } from '../schedules/list';
import { renderSVG, runSteps } from './render';

let panel: vscode.WebviewPanel | undefined;

/** Shows the timeline of the schedule file at schedulePath. */
export async function showTimeline(schedulePath: string): Promise<void> {
  const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(schedulePath)));
  const doc = JSON.parse(text) as { test?: { name?: string }; bug?: { kind?: string; step?: number } | null; steps?: unknown };
  const steps = runSteps(doc.steps);
  const title = `${doc.test?.name ?? 'schedule'}: ${steps.length} steps`;
  const svg = renderSVG({ title, steps, bugStep: doc.bug?.step ?? 0, bugKind: doc.bug?.kind ?? '', current: 0 });
  if (panel === undefined) {
    panel = vscode.window.createWebviewPanel('interleave.timeline', 'Schedule Timeline', vscode.ViewColumn.Beside, { enableScripts: true });
    panel.onDidDispose(() => (panel = undefined));
  }
  const root = moduleRootOf(schedulePath);
  panel.title = `Timeline: ${doc.test?.name ?? path.basename(schedulePath)}`;
  panel.webview.onDidReceiveMessage(async (m: { pos?: string }) => {
    const p = m.pos !== undefined ? parsePosition(m.pos) : undefined;
    if (p === undefined) {
      return;
    }
    const file = path.isAbsolute(p.file) ? p.file : path.join(root, p.file);
    const editor = await vscode.window.showTextDocument(vscode.Uri.file(file), { viewColumn: vscode.ViewColumn.One });
    const at = new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
    editor.selection = new vscode.Selection(at, at);
    editor.revealRange(new vscode.Range(at, at), vscode.TextEditorRevealType.InCenter);
  });
  panel.webview.html = page(svg, panel.webview.cspSource);
  panel.reveal();
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
.mark { cursor: pointer; }
.mark.current { stroke: var(--vscode-focusBorder, #07f); stroke-width: 3; }
.mark.bug { stroke: var(--vscode-errorForeground, #f44); stroke-width: 3; }
.bugtext { fill: var(--vscode-errorForeground, #f44); font-size: 12px; }
.legend span { margin-right: 1em; }
.legend .go { color: #6c8ebf; } .legend .lock { color: #d79b00; } .legend .chan { color: #82b366; }
.legend .atomic { color: #9673a6; } .legend .memory { color: #b85450; } .legend .time { color: #10739e; }
</style></head>
<body>
<div class="legend"><span class="go">● go</span><span class="lock">● lock / wait</span><span class="chan">● channel</span><span class="atomic">● atomic</span><span class="memory">● memory</span><span class="time">● time</span> — dashed: the schedule switches goroutines</div>
${svg}
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.querySelectorAll('.mark').forEach((m) => m.addEventListener('click', () => vscode.postMessage({ step: Number(m.dataset.step), pos: m.dataset.pos })));
</script>
</body></html>`;
}
