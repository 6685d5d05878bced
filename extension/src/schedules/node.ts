// The Schedules view's tree elements, apart from VS Code's API so that tests can use them.

import { ScheduleSummary } from '../store/store';

/** A tree element of the Schedules view: a module with its schedules, or one schedule. */
export type Node = { kind: 'module'; root: string; schedules: ScheduleSummary[] } | { kind: 'schedule'; schedule: ScheduleSummary };

/** The schedule path of a schedule element: what VS Code passes a view/item/context menu's
 * command (the element itself, not its TreeItem); undefined for anything else. */
export function nodeSchedulePath(arg: unknown): string | undefined {
  if (arg === null || typeof arg !== 'object') {
    return undefined;
  }
  const n = arg as { kind?: unknown; schedule?: { path?: unknown } };
  return n.kind === 'schedule' && typeof n.schedule?.path === 'string' ? n.schedule.path : undefined;
}
