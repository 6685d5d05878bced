// The timeline's model: a schedule (its file, or the debug adapter's interleaveTimeline
// answer) turned into what the webview draws — one lane per goroutine, each step an operation
// labelled with its object ("lock from.mu"), the preemptions, the spans a goroutine holds a
// lock and those it is blocked. Pure data in, data out (test/timeline.test.ts); the panel
// (panel.ts) sends the model to the webview (webview/main.ts), which draws it.

/** A run step: the goroutine that ran, its operation and position, and what the adapter adds. */
export interface Step {
  g: number;
  op: string;
  pos: string;
  /** The operation's object as the source spells it ("from.mu"), when known. */
  name?: string;
  /** The object's number in the execution (the same number: the same object), 0: unknown. */
  obj?: number;
  /** The goroutines enabled at the step, when known. */
  enabled?: number[];
}

/** What the timeline shows of a schedule, before the model is built. */
export interface Timeline {
  /** The test's name ("" or absent: unknown), and the title above the lanes. */
  test?: string;
  title: string;
  steps: Step[];
  /** The step (1-based) of the bug, 0 for none; bugKind its kind. */
  bugStep: number;
  bugKind: string;
}

/** One operation: step n (1-based) of the schedule. */
export interface Op {
  step: number;
  g: number;
  op: string;
  /** The operation and its object: "lock from.mu", "send ch", "go". */
  label: string;
  pos: string;
  family: string;
  /** The step switches away from a goroutine that could have gone on. */
  preempt: boolean;
}

/** A span of steps of one goroutine: a lock it holds, or a time it cannot run. */
export interface Span {
  g: number;
  kind: 'holds' | 'blocked';
  /** The first and last step (1-based, inclusive) of the span. */
  from: number;
  to: number;
  label: string;
  family: string;
  /** For holds: where the lock was taken. */
  pos: string;
  /** For holds: the lock is still held at the schedule's end. */
  open?: boolean;
}

/** What the webview draws. */
export interface Model {
  title: string;
  test: string;
  steps: number;
  lanes: number[];
  ops: Op[];
  spans: Span[];
  /** The steps that are preemptions, in order. */
  preemptions: number[];
  /** Whether the enabled goroutines of every step are known (else no preemption or blocked span is). */
  enabledKnown: boolean;
  bugStep: number;
  bugKind: string;
}

/**
 * The timeline of a schedule file (its parsed JSON). The file comes from the store, which a
 * repository can craft: a field of another type than the format's is taken as absent.
 */
export function timelineOf(doc: unknown): Timeline {
  const d = (doc !== null && typeof doc === 'object' ? doc : {}) as { test?: unknown; bug?: unknown; steps?: unknown };
  const field = (o: unknown, k: string): unknown => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined);
  const test = typeof field(d.test, 'name') === 'string' ? (field(d.test, 'name') as string) : '';
  const step = field(d.bug, 'step');
  const kind = field(d.bug, 'kind');
  const steps = runSteps(d.steps);
  return {
    test, title: `${test || 'schedule'}: ${steps.length} steps`, steps,
    bugStep: typeof step === 'number' && Number.isInteger(step) && step > 0 ? step : 0,
    bugKind: typeof kind === 'string' ? kind : '',
  };
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * Reads run steps: a schedule file's "steps" (data choices are not steps), or the steps of
 * the adapter's interleaveTimeline answer (with name, obj and enabled).
 */
export function runSteps(steps: unknown): Step[] {
  if (!Array.isArray(steps)) {
    return [];
  }
  const out: Step[] = [];
  for (const s of steps) {
    if (s === null || typeof s !== 'object' || 'choice' in s) {
      continue;
    }
    const r = s as { g?: unknown; op?: unknown; pos?: unknown; name?: unknown; obj?: unknown; enabled?: unknown };
    const step: Step = { g: isInt(r.g) ? r.g : 0, op: typeof r.op === 'string' ? r.op : '', pos: typeof r.pos === 'string' ? r.pos : '' };
    if (typeof r.name === 'string' && r.name !== '') {
      step.name = r.name;
    }
    if (isInt(r.obj) && r.obj > 0) {
      step.obj = r.obj;
    }
    if (Array.isArray(r.enabled) && r.enabled.every(isInt)) {
      step.enabled = r.enabled;
    }
    out.push(step);
  }
  return out;
}

/** The family of an operation, which gives its colour. */
export function opFamily(op: string): string {
  if (op === 'go') {
    return 'go';
  }
  if (/^(lock|unlock|rlock|runlock|trylock|tryrlock|wg\.|once|cond|rw)/.test(op)) {
    return 'lock';
  }
  if (/^(send|recv|close|select|chan|range|len)$/.test(op)) {
    return 'chan';
  }
  if (/^(atomic|load|store|add|cas|swap)/.test(op)) {
    return 'atomic';
  }
  if (/^(read|write|map|syncmap)/.test(op)) {
    return 'memory';
  }
  if (/^(sleep|timer|ticker|after|time|context|deadline)/.test(op)) {
    return 'time';
  }
  return 'other';
}

/** The label of an operation on its object: "lock from.mu", "send ch", "go". */
export function opLabel(op: string, name?: string): string {
  const o = op || '?';
  return name ? `${o} ${name}` : o;
}

/** The operations that take a lock and those that release it, by kind of hold. */
const takes: Record<string, string> = { lock: 'w', rlock: 'r' };
const releases: Record<string, string> = { unlock: 'w', runlock: 'r' };

/** Builds the model of a timeline. */
export function buildModel(t: Timeline): Model {
  const steps = t.steps;
  const lanes = [...new Set(steps.map((s) => s.g))].sort((a, b) => a - b);
  const enabledKnown = steps.length > 0 && steps.every((s) => s.enabled !== undefined);
  const ops: Op[] = [];
  const preemptions: number[] = [];
  steps.forEach((s, i) => {
    const prev = i > 0 ? steps[i - 1].g : undefined;
    const preempt = enabledKnown && prev !== undefined && prev !== s.g && (s.enabled ?? []).includes(prev);
    if (preempt) {
      preemptions.push(i + 1);
    }
    ops.push({ step: i + 1, g: s.g, op: s.op, label: opLabel(s.op, s.name), pos: s.pos, family: opFamily(s.op), preempt });
  });
  return {
    title: t.title, test: t.test ?? '', steps: steps.length, lanes, ops,
    spans: [...holdSpans(steps), ...(enabledKnown ? blockedSpans(steps, lanes) : [])],
    preemptions, enabledKnown, bugStep: t.bugStep, bugKind: t.bugKind,
  };
}

/**
 * The spans each goroutine holds a lock: from its lock to the unlock of the same object (by
 * any goroutine, as Go allows), or to the end when it is never released. An object is known
 * by its number, else by its name; an operation on neither is left out (try-locks too, whose
 * outcome the schedule does not say).
 */
export function holdSpans(steps: Step[]): Span[] {
  const key = (s: Step, kind: string): string | undefined =>
    s.obj ? `${kind}#${s.obj}` : s.name ? `${kind}:${s.name}` : undefined;
  const held = new Map<string, { g: number; from: number; name: string; pos: string }[]>();
  const spans: Span[] = [];
  const span = (h: { g: number; from: number; name: string; pos: string }, to: number, kind: string, open: boolean): Span => ({
    g: h.g, kind: 'holds', from: h.from, to, family: 'lock', pos: h.pos, open,
    label: `${kind === 'r' ? 'read-holds' : 'holds'} ${h.name || 'a lock'}${open ? ' (never released)' : ''}`,
  });
  steps.forEach((s, i) => {
    const n = i + 1;
    const take = takes[s.op];
    if (take !== undefined) {
      const k = key(s, take);
      if (k !== undefined) {
        held.set(k, [...(held.get(k) ?? []), { g: s.g, from: n, name: s.name ?? '', pos: s.pos }]);
      }
      return;
    }
    const release = releases[s.op];
    if (release !== undefined) {
      const k = key(s, release);
      const hs = k !== undefined ? held.get(k) : undefined;
      if (k === undefined || hs === undefined || hs.length === 0) {
        return;
      }
      // A read lock is released by the goroutine that took it, if it holds one.
      const j = Math.max(0, hs.findIndex((h) => h.g === s.g));
      spans.push(span(hs[j], n, release, false));
      hs.splice(j, 1);
    }
  });
  for (const [k, hs] of held) {
    for (const h of hs) {
      spans.push(span(h, steps.length, k[0], true));
    }
  }
  return spans.sort((a, b) => a.from - b.from || a.g - b.g);
}

/**
 * The spans each goroutine is blocked: between two of its steps, the steps at which it was
 * not enabled, labelled with the operation it waited to do (its next step). A goroutine that
 * never runs again is left out: the schedule does not say whether it ended or waits forever.
 */
export function blockedSpans(steps: Step[], lanes: number[]): Span[] {
  const spans: Span[] = [];
  for (const g of lanes) {
    let last = -1; // index of g's previous step
    for (let i = 0; i < steps.length; i++) {
      if (steps[i].g !== g) {
        continue;
      }
      if (last >= 0) {
        let from = -1; // index of the first step of the current span
        for (let j = last + 1; j <= i; j++) {
          const blocked = j < i && !(steps[j].enabled ?? []).includes(g);
          if (blocked && from < 0) {
            from = j;
          } else if (!blocked && from >= 0) {
            spans.push({ g, kind: 'blocked', from: from + 1, to: j, family: opFamily(steps[i].op), pos: steps[i].pos, label: `waits to ${opLabel(steps[i].op, steps[i].name)}` });
            from = -1;
          }
        }
      }
      last = i;
    }
  }
  return spans.sort((a, b) => a.from - b.from || a.g - b.g);
}

/** The step to select from step at, moved by key ("ArrowLeft", "End", ...); undefined: not a move. */
export function moveSelection(m: Model, at: number, key: string, shift: boolean): number | undefined {
  const clamp = (n: number): number => Math.min(Math.max(n, 1), Math.max(m.steps, 1));
  switch (key) {
    case 'ArrowLeft':
      return shift ? [...m.preemptions].reverse().find((p) => p < at) ?? clamp(at) : clamp(at - 1);
    case 'ArrowRight':
      return shift ? m.preemptions.find((p) => p > at) ?? clamp(at) : clamp(at + 1);
    case 'PageUp':
      return clamp(at - 10);
    case 'PageDown':
      return clamp(at + 10);
    case 'Home':
      return 1;
    case 'End':
      return clamp(m.steps);
    default:
      return undefined;
  }
}

/** The visible range [start, end] (in steps) after zooming the range by factor around at, within [0, steps]. */
export function zoomRange(start: number, end: number, at: number, factor: number, steps: number): [number, number] {
  const total = Math.max(steps, 1);
  const width = Math.min(Math.max((end - start) * factor, 8), total);
  let s = at - (at - start) * (width / Math.max(end - start, 1e-9));
  s = Math.min(Math.max(s, 0), total - width);
  return [s, s + width];
}

/** The visible range that shows step n, moving the range [start, end] as little as possible. */
export function revealRange(start: number, end: number, n: number, steps: number): [number, number] {
  const width = end - start;
  const total = Math.max(steps, 1);
  let s = start;
  if (n - 1 < start) {
    s = n - 1 - width * 0.2;
  } else if (n > end) {
    s = n - width * 0.8;
  }
  s = Math.min(Math.max(s, 0), Math.max(total - width, 0));
  return [s, s + width];
}

/** Puts spans in rows, each span in the first row where it overlaps none (spans sorted by from). */
export function rowsOf(spans: Span[]): Span[][] {
  const rows: Span[][] = [];
  for (const s of [...spans].sort((a, b) => a.from - b.from || b.to - a.to)) {
    const row = rows.find((r) => r[r.length - 1].to < s.from);
    if (row !== undefined) {
      row.push(s);
    } else {
      rows.push([s]);
    }
  }
  return rows;
}
