// What a code lens, a code action or a hover link may pass to interleave.explore beside the
// test: the launch attributes of the exploration. Pure (no vscode), for the unit tests.

/** Options of an exploration that a code action or lens may give (the launch attributes). */
export interface ExploreOptions {
  points?: string;
  races?: string;
  strategy?: string;
  schedules?: number;
}

/** The launch attributes among a command's options argument; anything else is left out. */
export function exploreOptions(arg: unknown): ExploreOptions {
  const out: ExploreOptions = {};
  if (arg === null || typeof arg !== 'object') {
    return out;
  }
  const o = arg as Record<string, unknown>;
  for (const k of ['points', 'races', 'strategy'] as const) {
    if (typeof o[k] === 'string') {
      out[k] = o[k];
    }
  }
  if (typeof o.schedules === 'number' && o.schedules >= 0) {
    out.schedules = o.schedules;
  }
  return out;
}
