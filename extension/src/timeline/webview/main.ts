/// <reference lib="dom" />
// The timeline webview's script, bundled by esbuild into extension/dist/timeline.js and loaded
// by the page panel.ts builds (a strict content security policy: this file, with a nonce, and
// nothing inline). It draws the model panel.ts sends with flame-chart-js, a canvas timeline
// made for large traces (it merges what is too small to see, so 10,000 steps stay fast): a
// step axis, the preemptions and the bug as marks across the lanes, then per goroutine a lane
// of its labelled operations and the spans it was blocked, and the spans it held locks. The
// colours are the editor theme's (--vscode-charts-*), read again when the theme changes.

import { FlameChartContainer, FlameChartNode, FlameChartPlugin, Mark, MarksPlugin, TimeGridPlugin, TimeframeSelectorPlugin, TogglePlugin, UIPlugin } from 'flame-chart-js';
import { EventEmitter } from 'events';
import { Model, Op, Span, moveSelection, revealRange, rowsOf, zoomRange } from '../model';

// The chart's interactions engine takes listeners per lane: many goroutines are not a leak.
EventEmitter.defaultMaxListeners = 0;

interface VsCodeApi {
  postMessage(m: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** Where the debug session is (the adapter's interleaveStep event, as panel.ts forwards it). */
interface Session {
  /** Steps the paused execution has run (the adapter's number, shown as it is). */
  step: number;
  steps: number;
  following: boolean;
  ended: boolean;
  /** The session is on this schedule; false once it ended (or left it). */
  active: boolean;
  /** Why the session no longer follows the timeline: "ended", "left" (stepped by hand), or "". */
  why?: string;
}

type Message = { type: 'model'; model: Model; session?: Session } | { type: 'session'; session: Session };

const vscode = acquireVsCodeApi();
let canvas = document.getElementById('chart') as HTMLCanvasElement;
const details = document.getElementById('details') as HTMLElement;
const status = document.getElementById('session') as HTMLElement;
const titleEl = document.getElementById('title') as HTMLElement;

let model: Model | undefined;
let session: Session | undefined;
let chart: FlameChartContainer | undefined;
let positionMarks: MarksPlugin | undefined;
let importantMarks: MarksPlugin | undefined;
/** The bug's and the preemptions' marks, all of them; those in view are drawn (markedNow). */
let allImportant: Mark[] = [];
let selected = 0;
let view: [number, number] = [0, 1];
/** What a drawn node or mark stands for. */
const meaning = new WeakMap<object, { op?: Op; span?: Span; step?: number }>();

const blockHeight = 18;
const families = ['go', 'lock', 'chan', 'atomic', 'memory', 'time', 'other'];

function css(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

/** The theme's colours, read now. */
function theme() {
  return {
    fg: css('--vscode-foreground', '#cccccc'),
    bg: css('--vscode-editor-background', '#1e1e1e'),
    muted: css('--vscode-descriptionForeground', '#999999'),
    border: css('--vscode-panel-border', 'rgba(128,128,128,0.35)'),
    focus: css('--vscode-focusBorder', '#007fd4'),
    error: css('--vscode-errorForeground', '#f14c4c'),
    preempt: css('--vscode-charts-red', '#f14c4c'),
    font: css('--vscode-font-family', 'sans-serif'),
    family: {
      go: css('--vscode-charts-blue', '#3794ff'),
      lock: css('--vscode-charts-orange', '#d18616'),
      chan: css('--vscode-charts-green', '#89d185'),
      atomic: css('--vscode-charts-purple', '#b180d7'),
      memory: css('--vscode-charts-yellow', '#cca700'),
      time: css('--vscode-charts-blue', '#3794ff'),
      other: css('--vscode-descriptionForeground', '#999999'),
    } as Record<string, string>,
  };
}

/** color with alpha (0..1), whatever CSS form the theme gives it in. */
function withAlpha(color: string, alpha: number): string {
  const ctx = document.createElement('canvas').getContext('2d');
  if (ctx === null) {
    return color;
  }
  ctx.fillStyle = color;
  const c = ctx.fillStyle; // "#rrggbb", or "rgba(r, g, b, a)" when it had an alpha
  if (/^#[0-9a-f]{6}$/i.test(c)) {
    return c + Math.round(alpha * 255).toString(16).padStart(2, '0');
  }
  const m = /^rgba\((\d+), (\d+), (\d+), ([\d.]+)\)$/.exec(c);
  return m ? `rgba(${m[1]}, ${m[2]}, ${m[3]}, ${Number(m[4]) * alpha})` : c;
}

function node(name: string, start: number, duration: number, type: string, what: { op?: Op; span?: Span }, extra: Partial<FlameChartNode> = {}): FlameChartNode {
  const n: FlameChartNode = { name, start, duration, type, ...extra };
  meaning.set(n, what);
  return n;
}

function mark(shortName: string, fullName: string, timestamp: number, color: string, step: number): Mark {
  const m = { shortName, fullName, timestamp, color };
  meaning.set(m, { step });
  return m;
}

/** The marks of the current step of the session and of the selection. */
function positions(): Mark[] {
  const t = theme();
  const out: Mark[] = [];
  if (session?.active && model) {
    out.push(mark(`▶ ${session.step + 1}`, `the debug session is at step ${session.step + 1}, about to run it (${session.step} step(s) run)`, Math.min(session.step, model.steps), t.focus, session.step + 1));
  }
  if (selected > 0) {
    out.push(mark(`◆ ${selected}`, `selected: step ${selected}`, selected - 0.5, t.fg, selected));
  }
  return out;
}

/** (Re)builds the chart from the model. */
function build(): void {
  if (model === undefined) {
    return;
  }
  const m = model;
  const t = theme();
  const font = `12px ${t.font}`;
  if (chart !== undefined) {
    // A container listens on its canvas for good: a new chart gets a new canvas.
    chart.removeAllListeners();
    const fresh = canvas.cloneNode() as HTMLCanvasElement;
    canvas.replaceWith(fresh);
    canvas = fresh;
  }
  const plugins: UIPlugin[] = [new TimeGridPlugin({ styles: { font: `11px ${t.font}`, fontColor: t.muted } })];
  const important: Mark[] = m.preemptions.map((p) => mark(`⚡${p}`, `preemption at step ${p}: G${m.ops[p - 2].g} could go on, G${m.ops[p - 1].g} runs`, p - 0.5, t.preempt, p));
  if (m.bugStep > 0) {
    important.push(mark(`✕ ${m.bugKind}`, `${m.bugKind} at step ${m.bugStep}`, Math.min(m.bugStep, m.steps) - 0.5, t.error, Math.min(m.bugStep, m.steps)));
  }
  allImportant = important;
  shown = [];
  importantMarks = new MarksPlugin({ data: [], name: 'bug and preemptions' });
  plugins.push(importantMarks);
  positionMarks = new MarksPlugin({ data: positions(), name: 'session' });
  plugins.push(positionMarks);
  // Blocks are the family's colour over the background, their text the foreground: legible
  // in light, dark and high-contrast themes alike.
  const colors: Record<string, string> = { holds: withAlpha(t.family.lock, 0.3) };
  for (const f of families) {
    colors[f] = withAlpha(t.family[f], 0.55);
  }
  const toggle = { styles: { font, fontColor: t.fg, triangleColor: t.fg, color: t.border, strokeColor: t.border, dotsColor: t.muted, height: 18 } };
  let rows = 0;
  for (const g of m.lanes) {
    plugins.push(new TogglePlugin(`G${g}`, toggle));
    const lane: FlameChartNode[] = [];
    for (const op of m.ops) {
      if (op.g === g) {
        lane.push(node(op.label, op.step - 1, 1, op.family, { op }, op.preempt ? { badge: t.preempt } : {}));
      }
    }
    for (const s of m.spans) {
      if (s.g === g && s.kind === 'blocked') {
        lane.push(node(s.label, s.from - 1, s.to - s.from + 1, s.family, { span: s }, { pattern: `blocked-${s.family}` }));
      }
    }
    const ops = new FlameChartPlugin({ data: lane, colors, name: `G${g}` });
    ops.height = blockHeight + 2 as unknown as 'flexible';
    plugins.push(ops);
    rows++;
    rowsOf(m.spans.filter((s) => s.g === g && s.kind === 'holds')).forEach((row, i) => {
      const holds = new FlameChartPlugin({ data: row.map((s) => node(s.label, s.from - 1, s.to - s.from + 1, 'holds', { span: s }, { pattern: 'holds' })), colors, name: `G${g} holds ${i + 1}` });
      holds.height = blockHeight + 2 as unknown as 'flexible';
      plugins.push(holds);
      rows++;
    });
  }
  // An overview of the whole schedule, its peaks at the preemptions and the bug, with the
  // visible window to drag.
  const overview = m.preemptions.length > 0 || m.bugStep > 0 ?
    [...m.preemptions, ...(m.bugStep > 0 ? [Math.min(m.bugStep, m.steps)] : [])].map((p) => ({ name: '', start: p - 1, duration: 1 })) :
    m.ops.map((o) => ({ name: '', start: o.step - 1, duration: 1 }));
  plugins.push(new TimeframeSelectorPlugin({
    flameChartNodes: overview,
    settings: { styles: { height: 44, font: `10px ${t.font}`, fontColor: t.muted, backgroundColor: t.bg, graphFillColor: withAlpha(t.preempt, 0.35), graphStrokeColor: withAlpha(t.preempt, 0.8), overlayColor: withAlpha(t.muted, 0.25), bottomLineColor: t.border, knobColor: t.muted, knobStrokeColor: t.bg } },
  }));
  // The plugins' heights, known before the chart lays them out (the marks' is read from it).
  const height = 30 + 2 * (blockHeight + 2) + rows * (blockHeight + 2) + m.lanes.length * 18 + 44 + 8;
  canvas.width = document.body.clientWidth;
  canvas.height = height;
  canvas.style.height = `${height}px`;
  const patterns = [
    { name: 'holds', type: 'stripes' as const, config: { color: withAlpha(t.family.lock, 0.8), background: withAlpha(t.family.lock, 0.2), lineWidth: 3, spacing: 7, angle: 45 } },
    ...families.map((f) => ({ name: `blocked-${f}`, type: 'stripes' as const, config: { color: withAlpha(t.family[f], 0.7), background: 'transparent', lineWidth: 1, spacing: 5, angle: -45 } })),
  ];
  chart = new FlameChartContainer({
    canvas, plugins,
    settings: {
      options: { timeUnits: '\u200b', tooltip },
      styles: { main: { blockHeight, font, fontColor: t.fg, backgroundColor: t.bg, tooltipBackgroundColor: t.bg, tooltipHeaderFontColor: t.fg, tooltipBodyFontColor: t.fg, tooltipShadowColor: t.border }, timeGrid: { color: t.border } },
      patterns,
    },
  });
  stepAxis(chart);
  // flame-chart-js 3.3 gives the patterns to the main engine only: each lane's engine gets them.
  for (const p of chart.plugins) {
    const engine = p.renderEngine as unknown as { createDefaultPattern?(pattern: unknown): void };
    patterns.forEach((pattern) => engine.createDefaultPattern?.(pattern));
  }
  // The container does not pass its plugins' select events on: each is listened to. The
  // plugin forgets its selection (the selection mark shows it), so that a second click on the
  // same step goes there again.
  for (const p of plugins) {
    if (p instanceof FlameChartPlugin || p instanceof MarksPlugin) {
      p.on('select', (e: { node: unknown; type: string }) => {
        p.selectedRegion = null;
        onSelect(e);
      });
    }
  }
  const v = view[1] > view[0] && view[1] <= m.steps ? view : initialView();
  setView(v);
  titleEl.textContent = m.title + (m.bugStep > 0 ? ` — ${m.bugKind} at step ${m.bugStep}` : '') +
    (m.enabledKnown ? ` — ${m.preemptions.length} preemption(s)` : ' — preemptions and blocked spans appear in a debug session of this schedule');
}

/**
 * Makes the chart's time grid a step axis: lines at the left edge of steps 1, d, 2d, ... (d
 * 1, 2, 5, 10, 20, ... steps, at least 60 pixels apart), each labelled with its step, which
 * is drawn to the line's right (step n covers [n-1, n) of the chart's time).
 */
function stepAxis(c: FlameChartContainer): void {
  const grid = c.timeGrid as unknown as {
    renderEngine: { width: number; positionX: number; getRealView(): number; timeToPosition(t: number): number };
    delta: number; start: number; end: number; accuracy: number;
    recalc(): void; forEachTime(cb: (pixel: number, label: number) => void): void;
  };
  grid.recalc = () => {
    const e = grid.renderEngine;
    const view = Math.max(e.getRealView(), 1e-9);
    const perStep = e.width / view;
    let d = 1;
    for (let k = 1; k < 1e9; k *= 10) {
      const nice = [1, 2, 5].map((x) => x * k).find((x) => x * perStep >= 60);
      if (nice !== undefined) {
        d = nice;
        break;
      }
    }
    grid.delta = d;
    grid.start = Math.floor(e.positionX / d);
    grid.end = Math.ceil((e.positionX + view) / d) + 1;
    grid.accuracy = 0;
  };
  grid.forEachTime = (cb) => {
    for (let i = grid.start; i <= grid.end; i++) {
      const step = Math.max(1, i * grid.delta);
      cb(grid.renderEngine.timeToPosition(step - 1), step);
    }
  };
}

/** The first view: the steps (as many as have room for their labels) around the session's step, else those before the bug, else the start. */
function initialView(): [number, number] {
  const m = model as Model;
  // About 70 pixels a step: room for a label such as "lock from.mu".
  const width = Math.min(m.steps, Math.max(8, Math.floor(document.body.clientWidth / 70)));
  const at = session?.active ? session.step : m.bugStep > 0 ? m.bugStep : width / 2;
  const s = Math.min(Math.max(at - width * 0.7, 0), Math.max(m.steps - width, 0));
  return [s, s + Math.max(width, 1)];
}

function setView(v: [number, number]): void {
  view = v;
  markedNow(v);
  chart?.setZoom(v[0], v[1]); // (renders)
}

/**
 * Draws the marks of the bug and of the preemptions in view, when they are at least 40 pixels
 * apart on average: a schedule zoomed out shows them in the overview and as the operations'
 * corners instead of a wall of marks.
 */
function markedNow(v?: [number, number]): boolean {
  if (chart === undefined || importantMarks === undefined) {
    return false;
  }
  const e = chart.renderEngine as unknown as { positionX: number; getRealView(): number; width: number };
  const [from, to] = v ?? [e.positionX, e.positionX + e.getRealView()];
  view = [from, to];
  const inView = allImportant.filter((k) => k.timestamp >= from && k.timestamp <= to);
  const preemptions = inView.filter((k) => k.shortName.startsWith('⚡')).length;
  const marks = preemptions * 40 <= e.width ? inView : inView.filter((k) => !k.shortName.startsWith('⚡'));
  if (marks.length === shown.length && marks.every((k, i) => k === shown[i])) {
    return false;
  }
  shown = marks;
  importantMarks.setMarks(marks);
  return true;
}
let shown: Mark[] = [];

function tooltip(region: { data?: unknown; type?: string } | null, engine: { renderTooltipFromData(fields: { text: string; color?: string }[], mouse: unknown): void }, mouse: unknown): void {
  const data = region?.data as { source?: object } | object | undefined;
  const key = data !== undefined && data !== null && 'source' in data ? data.source : data;
  const what = key !== undefined && key !== null ? meaning.get(key) : undefined;
  const fields = describe(what);
  if (fields.length > 0) {
    engine.renderTooltipFromData(fields.map((text) => ({ text })), mouse);
  }
}

/** What a node or mark stands for, as lines of text. */
function describe(what: { op?: Op; span?: Span; step?: number } | undefined): string[] {
  if (what?.op) {
    const o = what.op;
    return [`step ${o.step}: G${o.g} ${o.label}`, o.pos || '(no position)', ...(o.preempt ? [`preemption: G${model?.ops[o.step - 2]?.g} could have gone on`] : [])];
  }
  if (what?.span) {
    const s = what.span;
    return [`G${s.g} ${s.label}`, `steps ${s.from}–${s.to}${s.kind === 'holds' ? ` (taken at ${s.pos})` : ` (then runs at ${s.pos})`}`];
  }
  if (what?.step !== undefined && model) {
    const o = model.ops[what.step - 1];
    return o ? [`step ${o.step}: G${o.g} ${o.label}`, o.pos, ...(o.preempt ? ['a preemption'] : [])] : [];
  }
  return [];
}

function onSelect(e: { node: unknown; type: string }): void {
  if (e.node === null || e.node === undefined) {
    return;
  }
  const key = e.type === 'flame-chart-node' ? (e.node as { source: object }).source : (e.node as object);
  const what = meaning.get(key);
  const step = what?.op?.step ?? what?.span?.from ?? what?.step;
  if (step !== undefined) {
    select(step, true);
  }
}

/** Selects step n; go: also ask the extension to go there (the debugger, or the source). */
function select(n: number, go: boolean): void {
  if (model === undefined || n < 1 || n > model.steps) {
    return;
  }
  selected = n;
  const o = model.ops[n - 1];
  details.textContent = `Step ${n} of ${model.steps}: G${o.g} ${o.label}${o.pos ? ` at ${o.pos}` : ''}${o.preempt ? ' — a preemption' : ''}`;
  details.dataset.step = String(n);
  positionMarks?.setMarks(positions());
  setView(revealRange(view[0], view[1], n, model.steps));
  if (go) {
    vscode.postMessage({ step: n, pos: o.pos });
  }
}

function showSession(): void {
  const s = session;
  // Steps are numbered as the Scheduler scope numbers them: the step about to run.
  status.textContent = s?.active ? `Debug session at step ${s.step + 1} of ${s.steps}: click a step (or select it and press Enter) to move the session there` :
    s?.why === 'left' ? 'The debug session has left this schedule (a goroutine was stepped by hand)' :
      s?.why === 'ended' ? 'The debug session ended' : '';
  status.dataset.step = s?.active ? String(s.step + 1) : '';
  positionMarks?.setMarks(positions());
  if (s?.active && model) {
    setView(revealRange(view[0], view[1], Math.min(Math.max(s.step, 1), model.steps), model.steps));
  } else {
    chart?.render();
  }
}

window.addEventListener('message', (e: MessageEvent<Message>) => {
  const msg = e.data;
  if (msg.type === 'model') {
    const same = model !== undefined && model.steps === msg.model.steps && model.title === msg.model.title;
    model = msg.model;
    session = msg.session ?? session;
    if (!same) {
      view = [0, 0];
      selected = 0;
    }
    build();
    showSession();
  } else if (msg.type === 'session') {
    session = msg.session;
    showSession();
  }
});

document.addEventListener('keydown', (e: KeyboardEvent) => {
  if (model === undefined) {
    return;
  }
  const at = selected || (session?.active ? Math.max(session.step, 1) : 1);
  const to = moveSelection(model, at, e.key, e.shiftKey);
  if (to !== undefined) {
    e.preventDefault();
    select(to, false);
    return;
  }
  const centre = selected > 0 ? selected - 0.5 : (view[0] + view[1]) / 2;
  switch (e.key) {
    case '+':
    case '=':
      setView(zoomRange(view[0], view[1], centre, 0.5, model.steps));
      break;
    case '-':
    case '_':
      setView(zoomRange(view[0], view[1], centre, 2, model.steps));
      break;
    case '0':
      setView([0, Math.max(model.steps, 1)]);
      break;
    case 'Enter':
    case ' ':
      if (selected > 0) {
        select(selected, true);
      }
      break;
    default:
      return;
  }
  e.preventDefault();
});

// The mouse (wheel, drag, the overview) moves the view: the marks follow, once a frame.
let pending = false;
const follow = (): void => {
  if (!pending) {
    pending = true;
    requestAnimationFrame(() => {
      pending = false;
      if (markedNow()) {
        chart?.render();
      }
    });
  }
};
document.addEventListener('wheel', follow, { passive: true });
document.addEventListener('mouseup', follow);

// The theme changes the body's class: the colours are read again.
new MutationObserver(() => build()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
new ResizeObserver(() => {
  // A new width: the chart is made again for it (its overview keeps its first size otherwise).
  if (chart && canvas.clientWidth !== document.body.clientWidth) {
    build();
    showSession();
  }
}).observe(document.body);

/** For the end-to-end test: where step n's operation is drawn on the canvas (brought into view). */
(window as unknown as { interleaveTimeline: unknown }).interleaveTimeline = {
  pointOf(n: number): { x: number; y: number } | undefined {
    if (model === undefined || chart === undefined || n < 1 || n > model.steps) {
      return undefined;
    }
    setView(revealRange(view[0], view[1], n, model.steps));
    chart.render();
    const g = model.ops[n - 1].g;
    const plugin = chart.plugins.find((p) => p.name === `G${g}`);
    const engine = plugin?.renderEngine as unknown as { timeToPosition(t: number): number; position: number } | undefined;
    if (engine === undefined) {
      return undefined;
    }
    return { x: engine.timeToPosition(n - 0.5), y: engine.position + blockHeight / 2 };
  },
};

vscode.postMessage({ ready: true });
