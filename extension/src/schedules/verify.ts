// Verify fix: interleave verify on a schedule's test, and the verdict on that schedule.

/** One schedule's outcome in interleave verify -json's output. */
export interface Verdict {
  /** 'fixed', 'still fails' or 'changed'. */
  verdict: string;
  /** What shows it: "replayed clean: …; 10000 fresh schedules clean (pos, seed 1)". */
  detail: string;
}

interface VerifyOutcome {
  Test?: unknown;
  Saved?: { Schedule?: unknown; Outcome?: unknown; Detail?: unknown }[];
  Schedules?: unknown;
  Strategy?: unknown;
  Bug?: { Kind?: unknown; Position?: unknown } | null;
  Verdict?: unknown;
}

const words: Record<string, string> = { fails: 'still fails', fixed: 'fixed', diverged: 'changed' };

/** The verdict on the schedule at path from interleave verify -json's output (one JSON object
 * per test), undefined when the output does not name it. A schedule that replayed clean is
 * fixed only when the fresh exploration found no bug either. A schedule as found
 * (<name>.found.json, which verify does not replay) takes the verdict of its minimized one
 * (<name>.json). A schedule of test that was not replayed because an earlier saved schedule of
 * the test still fails (verify stops there) still fails too: the bug is there. */
export function verdictOf(output: string, schedulePath: string, test?: string): Verdict | undefined {
  const objects: VerifyOutcome[] = [];
  for (const line of output.split('\n')) {
    try {
      const o = JSON.parse(line) as VerifyOutcome;
      if (o !== null && typeof o === 'object' && Array.isArray(o.Saved)) {
        objects.push(o);
      }
    } catch {
      continue;
    }
  }
  const minimized = schedulePath.replace(/\.found\.json$/, '.json');
  for (const want of minimized === schedulePath ? [schedulePath] : [schedulePath, minimized]) {
    for (const o of objects) {
      const s = (o.Saved ?? []).find((x) => x !== null && typeof x === 'object' && x.Schedule === want);
      if (s === undefined) {
        continue;
      }
      const outcome = typeof s.Outcome === 'string' ? s.Outcome : '';
      const detail = (want === schedulePath ? '' : 'as its minimized schedule: ') + (typeof s.Detail === 'string' ? s.Detail : '');
      const bug = o.Bug !== null && typeof o.Bug === 'object' ? o.Bug : undefined;
      if (outcome !== 'fails' && bug !== undefined) {
        return { verdict: 'still fails', detail: `${detail}; the exploration found a ${String(bug.Kind)} at ${String(bug.Position)}` };
      }
      const fresh = outcome === 'fails' ? '' : `; ${Number(o.Schedules)} fresh schedules clean (${String(o.Strategy || 'default strategy')})`;
      return { verdict: words[outcome] ?? outcome, detail: detail + fresh };
    }
  }
  const o = test === undefined ? undefined : objects.find((x) => x.Test === test && x.Verdict === 'still fails');
  if (o === undefined) {
    return undefined;
  }
  const failing = (o.Saved ?? []).find((x) => x !== null && typeof x === 'object' && x.Outcome === 'fails');
  const bug = o.Bug !== null && typeof o.Bug === 'object' ? o.Bug : undefined;
  const why = failing !== undefined
    ? `${String(failing.Schedule).split('/').pop()} still fails first (${String(failing.Detail ?? '')})`
    : `the exploration found a ${String(bug?.Kind)} at ${String(bug?.Position)}`;
  return { verdict: 'still fails', detail: `not replayed: ${why}` };
}

/** A test's verdict from interleave verify -json's output, for the Testing view's Verify fix:
 * 'fixed', 'still fails' or 'changed', with a line per saved schedule and the exploration's;
 * undefined when the output has none for the test (it has no saved schedule). */
export function testVerdictOf(output: string, test: string): Verdict | undefined {
  for (const line of output.split('\n')) {
    let o: VerifyOutcome;
    try {
      o = JSON.parse(line) as VerifyOutcome;
    } catch {
      continue;
    }
    if (o === null || typeof o !== 'object' || o.Test !== test || typeof o.Verdict !== 'string') {
      continue;
    }
    const lines = (Array.isArray(o.Saved) ? o.Saved : []).map((s) => `${String(s.Schedule)}: ${words[String(s.Outcome)] ?? String(s.Outcome)}: ${String(s.Detail ?? '')}`);
    const bug = o.Bug !== null && typeof o.Bug === 'object' ? o.Bug : undefined;
    lines.push(bug !== undefined ? `explored: a ${String(bug.Kind)} at ${String(bug.Position)}` : `explored: ${Number(o.Schedules)} fresh schedules clean (${String(o.Strategy || 'default strategy')})`);
    return { verdict: o.Verdict, detail: lines.join('\n') };
  }
  return undefined;
}
