// Reading the results store (.interleave/ at a module's root; docs/results-store.md): the saved
// schedules for the Schedules view and the pick list, and the event stream of interleave test
// -json for the Testing view. Pure functions over text and file names, tested without an editor.

/** A saved schedule, as the views show it. */
export interface ScheduleSummary {
  path: string;
  module: string;
  package: string;
  test: string;
  /** The bug's kind ("deadlock", "panic", ...), or "pass". */
  kind: string;
  message: string;
  preemptions: number;
  steps: number;
  /** The time it was saved, from the file name (milliseconds since the epoch), or NaN. */
  time: number;
  /** Set for the schedule as found, kept beside its minimized one. */
  found: boolean;
  /** The bug's position ("bank.go:46:2"), empty when unknown or for a passing schedule. */
  position: string;
}

interface ScheduleDoc {
  format?: unknown;
  test?: { module?: unknown; package?: unknown; name?: unknown };
  result?: { steps?: unknown; preemptions?: unknown };
  bug?: { kind?: unknown; message?: unknown; pos?: unknown } | null;
  steps?: unknown;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Reads the time out of a schedule file name (Test-kind-20261123T230127.759.json, or with
 * -2, -3 … when two schedules were saved in the same millisecond), in UTC. */
export function timeFromName(name: string): number {
  const m = /-(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})\.(\d{3})(?:-\d+)?(?:\.found)?\.json$/.exec(name);
  if (m === null) {
    return Number.NaN;
  }
  const [y, mo, d, h, mi, s, ms] = m.slice(1).map(Number);
  return Date.UTC(y, mo - 1, d, h, mi, s, ms);
}

/** Parses a schedule file; undefined when it is not one (another JSON document, or corrupt). */
export function parseSchedule(path: string, text: string): ScheduleSummary | undefined {
  let doc: ScheduleDoc;
  try {
    doc = JSON.parse(text) as ScheduleDoc;
  } catch {
    return undefined;
  }
  if (doc === null || typeof doc !== 'object' || doc.format !== 'interleave-schedule') {
    return undefined;
  }
  const name = path.split(/[\\/]/).pop() ?? path;
  return {
    path,
    module: str(doc.test?.module),
    package: str(doc.test?.package),
    test: str(doc.test?.name),
    kind: doc.bug ? str(doc.bug.kind) || 'bug' : 'pass',
    message: doc.bug ? str(doc.bug.message) : '',
    preemptions: num(doc.result?.preemptions),
    steps: num(doc.result?.steps),
    time: timeFromName(name),
    found: name.endsWith('.found.json'),
    position: doc.bug ? str(doc.bug.pos) : '',
  };
}

/**
 * One schedule per bug, for a list: the schedules of the same bug (module, package, test,
 * kind, and position, or message when the position is unknown) are one row, the minimized
 * schedule rather than its copy as found, the fewer preemptions, then the newest. Each worker
 * process of a run saves the bug it finds with its copy as found: one -p 2 run listed four
 * rows for one bug. Passing schedules are each their own. The order of schedules is kept.
 */
export function oneRowPerBug(schedules: ScheduleSummary[]): ScheduleSummary[] {
  const better = (a: ScheduleSummary, b: ScheduleSummary): boolean =>
    a.found !== b.found ? !a.found : a.preemptions !== b.preemptions ? a.preemptions < b.preemptions : (a.time || 0) > (b.time || 0);
  const best = new Map<string, ScheduleSummary>();
  const keyOf = (s: ScheduleSummary): string =>
    s.kind === 'pass' ? `pass\0${s.path}` : [s.module, s.package, s.test, s.kind, s.position || s.message].join('\0');
  for (const s of schedules) {
    const k = keyOf(s);
    const b = best.get(k);
    if (b === undefined || better(s, b)) {
      best.set(k, s);
    }
  }
  const keep = new Set(best.values());
  return schedules.filter((s) => keep.has(s));
}

/** "3 minutes ago", for a list. */
export function age(then: number, now: number): string {
  if (Number.isNaN(then)) {
    return '';
  }
  const s = Math.max(0, Math.round((now - then) / 1000));
  const units: [number, string][] = [[86400, 'day'], [3600, 'hour'], [60, 'minute']];
  for (const [n, unit] of units) {
    if (s >= n) {
      const k = Math.floor(s / n);
      return `${k} ${unit}${k === 1 ? '' : 's'} ago`;
    }
  }
  return 'just now';
}

/** The bug of a test's final event (interleave test -json). */
export interface EventBug {
  Kind: string;
  Message: string;
  Position: string;
  Schedule?: string;
  Preemptions: number;
}

/** One event of interleave test -json (go test -json's, with interleave's fields). */
export interface TestEvent {
  Action: string;
  Package?: string;
  Test?: string;
  Output?: string;
  Elapsed?: number;
  Schedules?: number;
  Interleavings?: number;
  Strategy?: string;
  Bug?: EventBug;
  Error?: string;
  /** What the test came to: pass, bug, cut, abandoned, skipped, interrupted or error. */
  Status?: string;
  /** Why a test was not explored as asked (cut at the step bound, abandoned outside the engine). */
  Reason?: string;
  /** The races found (a pass may have races), the findings document that lists them, and a
   * notice (what the run noticed that is not a bug). */
  Races?: number;
  Findings?: string;
  Notice?: string;
}

/** Splits a chunk of interleave test -json output into events; the partial last line is returned. */
export function parseEvents(buffered: string, chunk: string): { events: TestEvent[]; rest: string } {
  const lines = (buffered + chunk).split('\n');
  const rest = lines.pop() ?? '';
  const events: TestEvent[] = [];
  for (const line of lines) {
    const t = line.trim();
    if (t === '') {
      continue;
    }
    try {
      const e = JSON.parse(t) as TestEvent;
      if (e && typeof e.Action === 'string') {
        events.push(e);
      }
    } catch {
      // Not an event: output of the build, passed on by the caller's log.
    }
  }
  return { events, rest };
}

/** A position "file.go:12:3" or "file.go:12", relative to the module root. */
export function parsePosition(pos: string): { file: string; line: number; column: number } | undefined {
  const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(pos);
  if (m === null) {
    return undefined;
  }
  return { file: m[1], line: Number(m[2]), column: m[3] ? Number(m[3]) : 1 };
}

/** The summary line of a passing test's final event, as interleave test prints it. */
export function passSummary(e: TestEvent): string {
  const n = e.Schedules ?? 0;
  const m = e.Interleavings ?? 0;
  return `no bug in ${n.toLocaleString('en-US')} schedules (${m.toLocaleString('en-US')} distinct interleavings${e.Strategy ? ', ' + e.Strategy : ''})`;
}

/** One test of a run summary (.interleave/runs/*.json): its final result, or the error. */
export interface RunOutcome {
  Package: string;
  Test: string;
  Result?: TestEvent & { Stopped?: string; Notice?: string };
  Err?: string;
  /** What the test came to, and why when it was not explored as asked (as on a final event). */
  Status?: string;
  Reason?: string;
}

/** Why a test is shown as skipped although it did not skip itself — its executions were cut at
 * the step bound, or its exploration abandoned outside the engine — or undefined. */
export function notExplored(status: string | undefined, reason: string | undefined): string | undefined {
  if (status !== 'cut' && status !== 'abandoned') {
    return undefined;
  }
  return `${status === 'cut' ? 'Cut at the step bound' : 'Abandoned, blocked outside the engine'}: ${reason ?? ''}`;
}

/** What the Testing view shows of a run summary written by interleave test. */
export interface RunSummary {
  time: string;
  /** Who started the run (interleave test -origin), '' when not said. */
  origin: string;
  outcomes: RunOutcome[];
}

/** Reads a run summary; undefined for any other document (or a half-written one). */
export function parseRunSummary(text: string): RunSummary | undefined {
  let doc: { Version?: number; Time?: string; Origin?: unknown; Tests?: RunOutcome[] };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    return undefined;
  }
  if (doc.Version !== 1 || !Array.isArray(doc.Tests)) {
    return undefined;
  }
  const outcomes = doc.Tests.filter((t) => typeof t.Package === 'string' && typeof t.Test === 'string');
  return { time: doc.Time ?? '', origin: typeof doc.Origin === 'string' ? doc.Origin : '', outcomes };
}

/** The module path of a go.mod's text ("module example.com/m"), or undefined. */
export function modulePath(goMod: string): string | undefined {
  const m = /^\s*module\s+"?([^\s"]+)"?/m.exec(goMod);
  return m === null ? undefined : m[1];
}

/** The directory of package importPath in the module modPath at moduleDir, or undefined when
 * the package is not the module's. */
export function packageDir(moduleDir: string, modPath: string, importPath: string): string | undefined {
  if (importPath === modPath) {
    return moduleDir;
  }
  if (!importPath.startsWith(modPath + '/')) {
    return undefined;
  }
  return moduleDir + importPath.slice(modPath.length);
}
