// Watching one directory of a results store (.interleave/runs, .interleave/schedules) with the
// operating system's own watch on that directory.
//
// The editor's workspace watcher is recursive: on Linux it adds an inotify watch to each new
// directory after it is reported, so a directory made inside one just made (os.MkdirAll of
// .interleave/runs) can be missed, and then so is every file written into it for the rest of
// the session. A watch on the directory itself, set when the directory is known to exist and
// followed by a listing of what it already holds, misses nothing.

import * as fs from 'node:fs';
import * as path from 'node:path';

/** A file of the store written (created, replaced, changed) or deleted; or the directory deleted. */
export interface StoreFileEvent {
  file: string;
  deleted: boolean;
}

/** Whether name is a store document: a JSON file, not the temporary file it is written from. */
export function isStoreDocument(name: string): boolean {
  return name.endsWith('.json') && !name.startsWith('.');
}

/**
 * DirWatcher keeps a watch on each directory it is given. Files written since `since` (ms since
 * the epoch) are reported once a directory is watched — those it already holds, then each event.
 */
export class DirWatcher {
  private readonly watchers = new Map<string, fs.FSWatcher>();

  constructor(
    private readonly since: number,
    private readonly report: (e: StoreFileEvent) => void,
  ) {}

  /** The directories watched. */
  get dirs(): string[] {
    return [...this.watchers.keys()];
  }

  /**
   * Watches dir if it exists and is not watched yet, and reports its documents written since
   * the watcher's start. Returns whether dir is watched.
   */
  watch(dir: string): boolean {
    if (this.watchers.has(dir)) {
      return true;
    }
    let w: fs.FSWatcher;
    try {
      w = fs.watch(dir, { persistent: false }, (_event, name) => {
        if (this.watchers.get(dir) !== w) {
          return; // an event queued before the watch ended
        }
        if (!fs.existsSync(dir)) {
          // Removed (the store deleted): reported as the directory's deletion, and watched
          // again when it is made again.
          this.unwatch(dir);
          this.report({ file: dir, deleted: true });
          return;
        }
        if (name !== null && isStoreDocument(name)) {
          const file = path.join(dir, name);
          this.report({ file, deleted: !fs.existsSync(file) });
        }
      });
    } catch {
      return false; // not there (yet)
    }
    w.on('error', () => this.unwatch(dir));
    this.watchers.set(dir, w);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return true;
    }
    for (const name of names.filter(isStoreDocument).sort()) {
      const file = path.join(dir, name);
      try {
        if (fs.statSync(file).mtimeMs >= this.since) {
          this.report({ file, deleted: false });
        }
      } catch {
        // removed meanwhile
      }
    }
    return true;
  }

  private unwatch(dir: string): void {
    this.watchers.get(dir)?.close();
    this.watchers.delete(dir);
  }

  dispose(): void {
    for (const dir of this.dirs) {
      this.unwatch(dir);
    }
  }
}
