// The explorer's click test, shared by the config page's test (site.test.mjs) and the
// lesson's (embed.test.mjs): inside one explorer element (`box`, a locator), a claim's
// deciding execution played with the event buttons from the start, each button worded as
// the trace's row (explore.md's table in Turkish; trace-N.csv for the time, the actor and
// the number of rows); the state at the end at the trace CSV's last row's time, the end an
// outcome of outcomes.csv with its cells and each claim's truth as play.json has it; back
// (the key b, scoped to the focused explorer) restores every state exactly and forward
// comes back; a branch at an earlier step reaches another listed outcome; nothing inside
// the explorer passes the window's edge.

import fs from 'node:fs';
import path from 'node:path';

/** A CSV file's rows as objects of text cells (no cell of these files holds a comma). */
export function readCsv(file) {
  const [head, ...lines] = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  const keys = head.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [keys[i], cell])));
}

/** A number as the CSV writes it (`1234.5`), as a page in `locale` writes it: `1,234.5` in
 * English, `1.234,5` in Turkish (an integer part of four digits or more grouped). */
export function localized(text, locale) {
  const [dec, grp] = locale === 'tr' ? [',', '.'] : ['.', ','];
  const [, sign, whole, frac] = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  const grouped = whole.length >= 4 ? whole.replace(/\B(?=(\d{3})+(?!\d))/g, grp) : whole;
  return sign + grouped + (frac === undefined ? '' : dec + frac);
}
const turkish = (text) => localized(String(text), 'tr');

/** What the click test compares with: the config's play.json, its claim `c` (from 1; the
 * first claim an outcome decides when not given), its trace's rows in explore.md's Turkish
 * words, its trace CSV and the outcomes of its point. */
export function expected(dir, c) {
  const play = JSON.parse(fs.readFileSync(path.join(dir, 'play.json'), 'utf8'));
  const claim = c === undefined ? play.claims[0] : play.claims.find((x) => x.c === c);
  const csv = readCsv(path.join(dir, `trace-${claim.c}.csv`));
  // explore.md's trace tables, in the order of the claims an outcome decides.
  const tables = fs.readFileSync(path.join(dir, 'explore.md'), 'utf8').split('| adım | zaman (ms) |').slice(1);
  const words = tables[play.claims.indexOf(claim)].split('\n').slice(2).filter((l) => /^\| \d+ \|/.test(l))
    .map((l) => l.slice(2, -2).split(' | '))
    .map(([, , actor, action, choice]) => ({ actor, action, choice: choice.replace(', tek başına: ötekilerle sırası fark etmez', '') }));
  const outcomes = readCsv(path.join(dir, 'outcomes.csv')).filter((o) => Number(o.point) === claim.p);
  return { play, claim, csv, words, outcomes };
}

/** Plays `want.claim`'s execution in the explorer `box` of `page` and checks it; each
 * problem goes to `fail`. Returns the number of events played and the other outcome a
 * branch reached (or null). */
export async function playClaim(page, box, want, { label, fail, touch, width }) {
  const { play, claim, csv, words, outcomes } = want;
  if (words.length !== csv.length) fail(`${label}: explore.md's trace has ${words.length} rows, trace-${claim.c}.csv ${csv.length}`);
  const press = (locator) => (touch ? locator.tap() : locator.click());
  const shown = () => box.evaluate((root) => {
    const rows = (b) => [...b.querySelectorAll('.explorer-row')].map((r) => ({
      actor: r.querySelector('.explorer-actor').textContent,
      action: r.querySelector('.explorer-action').textContent,
      choice: r.querySelector('.explorer-choice')?.textContent ?? '',
    }));
    return {
      state: root.querySelector('.explorer-state').innerHTML,
      free: root.querySelector('.explorer-free').innerHTML,
      events: [...root.querySelectorAll('.explorer-event')].map(rows),
    };
  });
  const same = (a, b) => a.actor === b.actor && a.action === b.action && a.choice === b.choice;
  // The claim's execution, button by button; the state after each event kept.
  const states = [await shown()];
  const picks = [];
  let at = 0;
  while (at < words.length) {
    const now = states[states.length - 1];
    const k = now.events.findIndex((rows) => rows.every((r, i) => words[at + i] && same(r, words[at + i])));
    if (k < 0) {
      fail(`${label}: no button says row ${at + 1} of the trace (${JSON.stringify(words[at])}); free: ${JSON.stringify(now.events)}`);
      return { events: 0, other: null };
    }
    await press(box.locator('.explorer-event').nth(k));
    picks.push(k);
    at += now.events[k].length;
    states.push(await shown());
  }
  const last = csv[csv.length - 1];
  const end = await box.evaluate((root) => ({
    time: root.querySelector('.explorer-time').textContent,
    end: root.querySelector('.explorer-end')?.textContent ?? '',
    cells: [...root.querySelectorAll('.explorer-free .explorer-cells li')].map((li) => li.textContent),
    current: root.querySelector('.explorer-history [aria-current] .explorer-row:last-child')?.textContent ?? '',
    truth: [...root.querySelectorAll('.explorer-truth li')].map((li) => li.textContent),
  }));
  const outcome = outcomes[claim.o];
  const cells = play.metrics.map((m) => `${m} = ${turkish(outcome[m])}`);
  if (end.time !== `zaman ${turkish(last.time_ms)} ms`) fail(`${label}: the end shows "${end.time}", the trace's last row is at ${last.time_ms} ms`);
  if (!end.current.startsWith(last.actor) || !end.current.includes(words[words.length - 1].action)) fail(`${label}: the last step shown is "${end.current}", the trace's last row ${JSON.stringify(last)}`);
  if (end.end !== `Yürütme bitti: ${claim.o + 1}. sonuç.` || JSON.stringify(end.cells) !== JSON.stringify(cells)) {
    fail(`${label}: the end says "${end.end}" ${JSON.stringify(end.cells)}, outcomes.csv's outcome ${claim.o + 1} is ${JSON.stringify(cells)}`);
  }
  // Each claim judged outcome by outcome says whether this end meets its test, as
  // play.json's truth has it (claim number, 1 or 0).
  const truth = ((play.truth || [])[claim.p] || [])[claim.o] || [];
  const truthWords = truth.map(([c, m]) => `${c}. iddia: bu son, sınamasını ${m ? 'karşılıyor' : 'karşılamıyor'}`);
  if (truth.length === 0 || JSON.stringify(end.truth) !== JSON.stringify(truthWords)) {
    fail(`${label}: the end says ${JSON.stringify(end.truth)} of the claims, play.json's truth ${JSON.stringify(truth)}`);
  }
  // Back restores each state exactly, to the start; forward comes back to the end (the
  // keys go to the explorer that has the focus: the one just played).
  for (let k = states.length - 2; k >= 0; k--) {
    await page.keyboard.press('b');
    const back = await shown();
    if (back.state !== states[k].state || back.free !== states[k].free) fail(`${label}: back to step ${k} does not show the state it showed`);
  }
  for (let k = 1; k < states.length; k++) await page.keyboard.press('f');
  if ((await shown()).state !== states[states.length - 1].state) fail(`${label}: forward does not come back to the end`);
  // A branch at an earlier step: another free event there, then the first one each time.
  let other = null;
  for (let k = states.length - 2; k >= 0 && other === null; k--) {
    if (states[k].events.length < 2) continue;
    await press(box.locator('.explorer-history .explorer-step').nth(k));
    await press(box.locator('.explorer-event').nth((picks[k] + 1) % states[k].events.length));
    while (await box.locator('.explorer-event').count() > 0) await press(box.locator('.explorer-event').first());
    const said = await box.locator('.explorer-end').textContent();
    const reached = Number(/(\d+)\. sonuç/.exec(said)?.[1]);
    if (!(reached >= 1 && reached <= outcomes.length)) fail(`${label}: a branch ends at "${said}", not a listed outcome`);
    if (reached !== claim.o + 1) other = reached;
  }
  if (other === null) fail(`${label}: no branch at an earlier step reaches another outcome`);
  const overflow = await box.evaluate((root, w) => {
    const past = [...root.querySelectorAll('*')].filter((e) => {
      const b = e.getBoundingClientRect();
      return b.width > 0 && (b.left < 0 || b.right > w + 0.5);
    });
    return { scroll: document.documentElement.scrollWidth, past: past.length };
  }, width);
  if (overflow.scroll > width || overflow.past > 0) fail(`${label}: ${overflow.past} element(s) pass the window's edge (page ${overflow.scroll} px wide)`);
  return { events: states.length - 1, other };
}
