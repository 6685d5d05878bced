import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { marked, Token } from 'marked';
import { codeBlock, codeSpan, escapeMarkdown, inertMessage } from '../src/markdown';
import { scheduleTooltip } from '../src/schedules/tooltip';
import { parseSchedule } from '../src/store/store';
import { buildModel, timelineOf } from '../src/timeline/model';

// What a crafted results store puts in its strings: a line that ends a code fence, then a
// command link, raw HTML, a link reference definition and its use, an autolink, a bare URL.
const hostile = 'boom\n```\n[x](command:workbench.action.terminal.new)\n<img src=x onerror=alert(1)>\n\n' +
  '[ref]: command:workbench.action.terminal.new\n[ref] <https://evil.example/> www.evil.example `code` **bold**\n````';
const hostileLine = hostile.replace(/\n/g, ' ');

/** Every link, image and piece of raw HTML Markdown md holds, as marked (VS Code's renderer) reads it. */
function live(md: string): string[] {
  const out: string[] = [];
  const walk = (tokens: Token[]): void => {
    for (const t of tokens) {
      if (t.type === 'link' || t.type === 'image' || t.type === 'html') {
        out.push(`${t.type}: ${t.raw}`);
      }
      const children = t as { tokens?: Token[]; items?: Token[] };
      walk(children.tokens ?? []);
      walk(children.items ?? []);
    }
  };
  walk(marked.lexer(md));
  return out;
}

/** The text md shows: its HTML without tags, entities decoded. */
function shown(md: string): string {
  const html = marked.parse(md, { async: false });
  return html.replace(/<[^>]*>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
}

test('store strings are text in Markdown: escaped, in a code span or in a fence', () => {
  for (const [name, md, text] of [
    ['escaped', escapeMarkdown(hostile), hostileLine],
    ['code span', codeSpan(hostile), hostileLine],
    ['code block', codeBlock(hostile), hostile],
  ]) {
    assert.deepEqual(live(md), [], name);
    assert.equal(shown(md).trim(), text.trim(), name);
  }
  assert.equal(codeSpan('c.n'), '`c.n`');
  assert.equal(codeSpan('`x'), '`` `x ``');
});

test('the Schedules view tooltip shows a hostile schedule as text', () => {
  const doc = {
    format: 'interleave-schedule', version: 1,
    test: { package: 'p', name: `TestA/${hostileLine}` },
    result: { steps: 3, preemptions: 1 },
    bug: { kind: `deadlock${hostileLine}`, message: hostile },
  };
  const s = parseSchedule(`/m/.interleave/schedules/${hostileLine}.json`, JSON.stringify(doc));
  assert.ok(s !== undefined);
  const md = scheduleTooltip(s);
  assert.deepEqual(live(md), []);
  const text = shown(md);
  for (const want of [`TestA/${hostileLine}`, `deadlock${hostileLine}`, '[x](command:workbench.action.terminal.new)\n<img src=x onerror=alert(1)>', `/m/.interleave/schedules/${hostileLine}.json`]) {
    assert.ok(text.includes(want), `the tooltip does not show ${JSON.stringify(want)}:\n${text}`);
  }
});

test('a hostile schedule reaches the timeline as data: its strings as they are, nothing else', () => {
  // The page holds no text of the schedule (panel.ts sends the model as a message) and the
  // webview draws strings on a canvas or as textContent: what matters is that the model keeps
  // only the fields it knows, with the types it expects.
  const doc = {
    test: { name: `</text><script>alert(1)</script>${hostileLine}` },
    bug: { kind: `<img src=x onerror=alert(1)>'"`, step: 2 },
    steps: [
      { g: 0, op: '"><script>alert(1)</script>', pos: `' onmouseover='alert(1)`, onclick: 'x' },
      { g: 1, op: 'lock', pos: '"><img src=x onerror=alert(1)>:1:1', name: { toString: 1 }, enabled: ['<b>'] },
    ],
  };
  const m = buildModel(timelineOf(JSON.parse(JSON.stringify(doc))));
  assert.equal(m.test, doc.test.name);
  assert.equal(m.bugKind, doc.bug.kind);
  assert.deepEqual(m.ops.map((o) => [o.label, o.pos]), [[doc.steps[0].op, doc.steps[0].pos], ['lock', doc.steps[1].pos]]);
  assert.deepEqual(Object.keys(m.ops[0]).sort(), ['family', 'g', 'label', 'op', 'pos', 'preempt', 'step']);
  assert.equal(m.enabledKnown, false);
});

test('a schedule field of another type than the format says is taken as absent', () => {
  const t = timelineOf({ test: { name: { toString: 1 } }, bug: { kind: ['<b>'], step: '2" onload="x' }, steps: [{ g: '1', op: 7, pos: null, obj: 1.5 }] });
  assert.equal(t.test, '');
  assert.equal(t.title, 'schedule: 1 steps');
  assert.equal(t.bugKind, '');
  assert.equal(t.bugStep, 0);
  assert.deepEqual(t.steps, [{ g: 0, op: '', pos: '' }]);
  assert.deepEqual(timelineOf(null).steps, []);
});

test('a notification of store text has no link VS Code would make of it', () => {
  // The links VS Code finds in a notification's text: [label](https://... | command:... | file:...).
  const link = /\[[^\]]+\]\((?:https?:\/\/|command:|file:)[^)\s]+\)/i;
  assert.match(hostile, link);
  assert.doesNotMatch(inertMessage(hostile), link);
  assert.equal(inertMessage('minimized 12 steps to 4: a.json'), 'minimized 12 steps to 4: a.json');
});
