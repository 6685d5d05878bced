// The tooltip of a schedule in the Schedules view, as Markdown. Every string of it comes from
// the schedule file, so each is escaped or in a code span or block (markdown.ts); view.ts
// shows it untrusted.

import { codeBlock, codeSpan, escapeMarkdown } from '../markdown';
import { ScheduleSummary } from '../store/store';

/** The Markdown of the tooltip of schedule s. */
export function scheduleTooltip(s: ScheduleSummary): string {
  const message = s.message.trim() === '' ? '' : `${codeBlock(s.message.trim())}\n`;
  return `**${escapeMarkdown(s.test)}** — ${escapeMarkdown(s.kind)}\n\n${message}${s.steps} steps, ${s.preemptions} preemptions\n\n${codeSpan(s.path)}`;
}
