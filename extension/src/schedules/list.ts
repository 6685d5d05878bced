// The saved schedules of the workspace, read from every results store under its folders.

import * as vscode from 'vscode';
import { parseSchedule, ScheduleSummary } from '../store/store';

/** Every schedule file of the workspace, newest first; unreadable files are skipped. */
export async function listSchedules(): Promise<ScheduleSummary[]> {
  const uris = await vscode.workspace.findFiles('**/.interleave/schedules/*.json', '**/node_modules/**', 2000);
  const out: ScheduleSummary[] = [];
  for (const uri of uris) {
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      const s = parseSchedule(uri.fsPath, text);
      if (s !== undefined) {
        out.push(s);
      }
    } catch {
      // Removed meanwhile, or unreadable: not listed.
    }
  }
  return out.sort((a, b) => (b.time || 0) - (a.time || 0));
}

/** The module root of a schedule file: the directory that holds its .interleave. */
export function moduleRootOf(schedulePath: string): string {
  const i = schedulePath.lastIndexOf('.interleave');
  return i > 0 ? schedulePath.slice(0, i - 1) : schedulePath;
}
