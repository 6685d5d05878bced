// The saved schedules of the workspace, read from every results store under its folders.

import * as vscode from 'vscode';
import { limits, readBounded } from '../store/read';
import { parseSchedule, ScheduleSummary } from '../store/store';

/** Every schedule file of the workspace, newest first; unreadable files (and what is not a
 * regular file within the schedule limit: store/read.ts) are skipped. */
export async function listSchedules(): Promise<ScheduleSummary[]> {
  const uris = await vscode.workspace.findFiles('**/.interleave/schedules/*.json', '**/node_modules/**', 2000);
  const out: ScheduleSummary[] = [];
  for (const uri of uris) {
    try {
      const text = await readBounded(uri.fsPath, limits.schedule);
      const s = parseSchedule(uri.fsPath, text);
      if (s !== undefined) {
        out.push(s);
      }
    } catch {
      // Removed meanwhile, unreadable, or refused: not listed.
    }
  }
  return out.sort((a, b) => (b.time || 0) - (a.time || 0));
}

/** The module root of a schedule file: the directory that holds its .interleave. */
export function moduleRootOf(schedulePath: string): string {
  const i = schedulePath.lastIndexOf('.interleave');
  return i > 0 ? schedulePath.slice(0, i - 1) : schedulePath;
}
