// The schedule timeline as SVG: one lane per goroutine, one mark per step coloured by the
// kind of operation, a line where the schedule switches goroutines, the bug at the end. Pure
// text in, text out (test/timeline.test.ts); the panel (panel.ts) puts it in a webview.

/** A run step of a schedule file. */
export interface Step {
  g: number;
  op: string;
  pos: string;
}

/** What the timeline shows. */
export interface Timeline {
  /** The test's name ("" or absent: unknown), and the title above the lanes. */
  test?: string;
  title: string;
  steps: Step[];
  /** The step (1-based) of the bug, 0 for none; bugKind its kind. */
  bugStep: number;
  bugKind: string;
  /** The current step of a debug session (1-based), 0 for none. */
  current: number;
}

/**
 * The timeline of a schedule file (its parsed JSON) at step current (0: none). The file comes
 * from the store, which a repository can craft: a field of another type than the format's is
 * taken as absent, and renderSVG escapes every string.
 */
export function timelineOf(doc: unknown, current: number): Timeline {
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
    current,
  };
}

/** Reads the run steps of a schedule file's "steps" (data choices are not steps). */
export function runSteps(steps: unknown): Step[] {
  if (!Array.isArray(steps)) {
    return [];
  }
  const out: Step[] = [];
  for (const s of steps) {
    if (s === null || typeof s !== 'object' || 'choice' in s) {
      continue;
    }
    const r = s as { g?: unknown; op?: unknown; pos?: unknown };
    out.push({ g: typeof r.g === 'number' && Number.isInteger(r.g) ? r.g : 0, op: typeof r.op === 'string' ? r.op : '', pos: typeof r.pos === 'string' ? r.pos : '' });
  }
  return out;
}

/** The family of an operation, which gives its colour. */
export function opFamily(op: string): string {
  if (op === 'go') {
    return 'go';
  }
  if (/^(lock|unlock|rlock|runlock|trylock|wg\.|once|cond|rw)/.test(op)) {
    return 'lock';
  }
  if (/^(send|recv|close|select|chan|range)/.test(op)) {
    return 'chan';
  }
  if (/^(atomic|load|store|add|cas|swap)/.test(op)) {
    return 'atomic';
  }
  if (/^(read|write|map)/.test(op)) {
    return 'memory';
  }
  if (/^(sleep|timer|ticker|after|time|context|deadline)/.test(op)) {
    return 'time';
  }
  return 'other';
}

const colours: Record<string, string> = {
  go: '#6c8ebf', lock: '#d79b00', chan: '#82b366', atomic: '#9673a6', memory: '#b85450', time: '#10739e', other: '#888888',
};

/** s as the text or a quoted attribute value of the SVG (in an HTML page). */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Renders the timeline. Each mark has data-step and data-pos for the panel's clicks. */
export function renderSVG(t: Timeline): string {
  const lanes = [...new Set(t.steps.map((s) => s.g))].sort((a, b) => a - b);
  const laneOf = new Map(lanes.map((g, i) => [g, i]));
  const dx = 14, dy = 28, left = 56, top = 34;
  const bugLabel = t.bugStep > 0 && t.bugStep <= t.steps.length + 1 ? `✕ ${t.bugKind} at step ${t.bugStep}` : '';
  const bugX = left + Math.min(t.bugStep, t.steps.length) * dx;
  // Wide enough for the bug's label too (about 7 px a character at 12 px).
  const width = Math.max(left + Math.max(1, t.steps.length) * dx + 40, bugLabel === '' ? 0 : bugX + 10 + 7 * bugLabel.length);
  const height = top + Math.max(1, lanes.length) * dy + 20;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${esc(t.title)}">`);
  parts.push(`<text x="4" y="16" class="title">${esc(t.title)}</text>`);
  lanes.forEach((g, i) => {
    const y = top + i * dy;
    parts.push(`<text x="4" y="${y + 4}" class="lane">G${g}</text>`);
    parts.push(`<line x1="${left - 6}" y1="${y}" x2="${width - 20}" y2="${y}" class="laneline"/>`);
  });
  let prev: Step | undefined;
  t.steps.forEach((s, i) => {
    const n = i + 1;
    const x = left + i * dx;
    const y = top + (laneOf.get(s.g) ?? 0) * dy;
    if (prev !== undefined && prev.g !== s.g) {
      const py = top + (laneOf.get(prev.g) ?? 0) * dy;
      parts.push(`<line x1="${x - dx}" y1="${py}" x2="${x}" y2="${y}" class="switch"/>`);
    }
    const family = opFamily(s.op);
    const cls = ['mark', family, n === t.current ? 'current' : '', n === t.bugStep ? 'bug' : ''].filter((c) => c !== '').join(' ');
    parts.push(`<circle cx="${x}" cy="${y}" r="5" fill="${colours[family]}" class="${cls}" data-step="${n}" data-pos="${esc(s.pos)}"><title>step ${n}: G${s.g} ${esc(s.op)} ${esc(s.pos)}</title></circle>`);
    prev = s;
  });
  if (bugLabel !== '') {
    parts.push(`<text x="${bugX + 2}" y="${top - 14}" class="bugtext">${esc(bugLabel)}</text>`);
  }
  parts.push('</svg>');
  return parts.join('\n');
}
