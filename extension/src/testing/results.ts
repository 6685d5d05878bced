// What the Testing view says of a test's result, apart from VS Code's API so that tests can use
// it: the races of a findings document as messages at their lines, the wording of a pass with
// races and notices, and the whole run's duration.

import { TestEvent } from '../store/store';

/** One side of a race, as the findings document gives it (pos relative to the module root). */
export interface RaceAccess {
  pos: string;
  op: string;
  goroutine: number;
}

/** A race of a findings document. */
export interface RaceFinding {
  a: RaceAccess;
  b: RaceAccess;
  schedules: number;
}

/** The races of a findings document's text; [] for anything else. */
export function parseFindingsRaces(text: string): RaceFinding[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const d = doc as { format?: unknown; races?: unknown };
  if (d === null || typeof d !== 'object' || d.format !== 'interleave-findings' || !Array.isArray(d.races)) {
    return [];
  }
  const access = (v: unknown): RaceAccess | undefined => {
    const a = v as { pos?: unknown; op?: unknown; goroutine?: unknown } | null;
    if (a === null || typeof a !== 'object' || typeof a.pos !== 'string') {
      return undefined;
    }
    return { pos: a.pos, op: typeof a.op === 'string' ? a.op : 'access', goroutine: typeof a.goroutine === 'number' ? a.goroutine : 0 };
  };
  const out: RaceFinding[] = [];
  for (const r of d.races as { a?: unknown; b?: unknown; schedules?: unknown }[]) {
    const a = access(r?.a);
    const b = access(r?.b);
    if (a !== undefined && b !== undefined) {
      out.push({ a, b, schedules: typeof r.schedules === 'number' ? r.schedules : 0 });
    }
  }
  return out;
}

/** The message of a race at one of its accesses: the access there, and the other one. */
export function raceText(r: RaceFinding, at: 'a' | 'b'): string {
  const here = r[at];
  const there = at === 'a' ? r.b : r.a;
  return `data race: ${here.op} at ${here.pos} (G${here.goroutine}) and ${there.op} at ${there.pos} (G${there.goroutine})` +
    (r.schedules > 0 ? `, seen in ${r.schedules} schedule(s)` : '');
}

/** The line of a test's output that says how it passed: with its races and notice, if any.
 * A test with a race passes (go test passes it too, without -race) but says so first. */
export function passText(e: TestEvent, summary: string): string {
  const races = e.Races ?? 0;
  const head = races > 0 ? `passed with ${races} data race${races === 1 ? '' : 's'}: ` : '';
  return head + summary + (e.Notice ? '\n' + e.Notice : '');
}

/** The description a test item shows in the tree after a run: its races, else nothing. */
export function itemDescription(e: TestEvent | undefined): string | undefined {
  const races = e?.Races ?? 0;
  return races > 0 ? `⚠ ${races} data race${races === 1 ? '' : 's'}` : undefined;
}

/** The duration of a test's run in milliseconds: the whole run as the developer waited for it
 * (build and exploration, from start to end), not the exploration's own time, which the engine
 * reports per schedule-sized pieces (0.2 ms for a test whose run took 6 s). */
export function runDuration(started: number, ended: number): number {
  return Math.max(0, ended - started);
}
