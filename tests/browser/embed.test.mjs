// A lesson where a course lives: its fragment pasted into an empty page, its reader's view,
// and a config page's slider, in Debian's Chromium (headless, playwright-core).
//
//   node tests/browser/embed.test.mjs [COORDSIM_BINARY]
//
// Runs `coordsim report --out TMP` from the repository, then checks:
// - lesson 003's fragment (`site/lesson-003-….embed.html`), put alone into an empty HTML
//   page in another folder and opened from file://, draws its charts (inline SVG), shows a
//   point's results.csv values on hover (at 1280 px) and on a tap of the phone's rendering
//   (at 375 px, where nothing overflows the window), shows a value's provenance on focus,
//   makes no request but the page's own and logs no console error; pasted twice beside
//   lesson 004's, every copy's charts work, and the two lessons share no id;
// - the reader's view of lesson 003 shows no check (no badge, no "checked" word, no drift
//   mark) and its provenance on focus, and the author's and reader's pages link each other;
// - the slider of a config page with a swept parameter shows, at each value, the row of
//   results.csv whose parameter has that value;
// - lesson 000's fragment, alone in an empty page from file://, shows its charts and a
//   working explorer (play.mjs's click test: a claim's counterexample by the buttons, its end
//   against the trace CSV and outcomes.csv, back, a branch to another outcome) with no other
//   request and no console error; pasted twice beside lesson 006's (whose explorer draws),
//   each explorer plays on its own; the same click test in the Turkish lesson page and its
//   reader's view at 375 px by taps, nothing past the window's edge;
// - a chart saved from a config page, a lesson's page and reader's view, and a lesson's
//   fragment alone: each of SVG, PNG and CSV (a fragment's step chart: SVG and PNG) makes
//   a download of that type.
//
// Environment: CHROMIUM (default /usr/bin/chromium).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';
import { expected, playClaim } from './play.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const binary = path.resolve(process.argv[2] ?? path.join(repo, 'target', 'release', 'coordsim'));

const failures = [];
const fail = (text) => {
  failures.push(text);
  console.log(`FAIL ${text}`);
};

const out = fs.mkdtempSync(path.join(os.tmpdir(), 'coordsim-embed-'));
const run = spawnSync(binary, ['report', '--out', out, '--quiet'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 });
assert.equal(run.status, 0, `coordsim report exited ${run.status}: ${run.stderr}`);
const site = path.join(out, 'site');

/** results.csv's rows as objects of text cells (no cell of these configs holds a comma). */
function rows(config) {
  const [head, ...lines] = fs.readFileSync(path.join(out, config, 'results.csv'), 'utf8').trimEnd().split('\n');
  const keys = head.split(',');
  return lines.map((line) => Object.fromEntries(line.split(',').map((cell, i) => [keys[i], cell])));
}

/** A number as a Turkish page writes one under 1,000: a decimal comma. */
const turkish = (text) => String(Number(text)).replace('.', ',');

/** A page that fails on a console error, a script error and any request but `allowed`. */
async function watched(context, label, allowed) {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') fail(`${label}: console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => fail(`${label}: script error: ${e.message}`));
  page.on('request', (r) => {
    if (!allowed(r.url())) fail(`${label}: a request for ${r.url()}`);
  });
  return page;
}

/** An empty page holding `fragments`, in a folder of its own (nothing beside it to load). */
function host(fragments) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coordsim-host-'));
  const body = fragments.map((f) => fs.readFileSync(path.join(site, f), 'utf8')).join('\n');
  const file = path.join(dir, 'course.html');
  fs.writeFileSync(
    file,
    `<!DOCTYPE html>\n<html lang="tr"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>course</title></head>\n<body>\n<h1>A course page</h1>\n${body}\n</body></html>\n`,
  );
  return pathToFileURL(file).href;
}

/** Moves to (or taps) point `k` of series `s` of the live chart `chart` (a locator of its
 * figure) and returns the values its tip shows. */
async function pointValues(page, chart, s, k, tap) {
  const at = await chart.evaluate((figure, [s, k]) => {
    const points = JSON.parse(figure.querySelector('script.chart-points').textContent);
    const narrow = figure.querySelector('.cs-narrow');
    const small = narrow !== null && narrow.getBoundingClientRect().width > 0;
    const svg = small ? narrow : figure.querySelector('.cs-full');
    const box = svg.getBoundingClientRect();
    const size = small ? points.n : points.w;
    const p = points.s[s].p[k];
    const [x, y] = small ? [p[4], p[5]] : [p[2], p[3]];
    return { x: box.left + (x * box.width) / size[0], y: box.top + (y * box.height) / size[1], small };
  }, [s, k]);
  if (tap) await page.touchscreen.tap(at.x, at.y);
  else await page.mouse.move(at.x, at.y);
  const values = await chart.locator('.chart-tip:not([hidden]) .chart-value').allInnerTexts();
  return { values, small: at.small };
}

const shots = process.env.SCREENSHOTS ?? path.join(repo, 'target', 'site-screenshots');
const lesson000 = 'lesson-000-uzak-durum-ve-kilit';
const lesson006 = 'lesson-006-kesin-ortalama-bekleme';
const lesson003 = 'lesson-003-dayanikli-durum-nesneleri';
const lesson004 = 'lesson-004-dagitik-islem';

/** Lesson 003's fragment alone, at `width`: charts, values, provenance, no overflow. */
async function alone(browser, width) {
  const label = `lesson 003's fragment at ${width} px`;
  const phone = width < 720;
  const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: phone, isMobile: phone });
  const url = host([`${lesson003}.embed.html`]);
  const page = await watched(context, label, (u) => u === url);
  await page.goto(url);
  const drawn = await page.locator('.coordsim-lesson svg').evaluateAll((svgs) =>
    svgs.filter((s) => s.getBoundingClientRect().width > 0).map((s) => s.getAttribute('class')));
  const want = phone ? 'cs-narrow' : 'cs-full';
  if (drawn.length !== 2 || drawn.some((c) => c !== want)) {
    fail(`${label}: the charts drawn are ${JSON.stringify(drawn)}, not two ${want}`);
  }
  // The mean wait by offered rate (single-writer-queue, one replication: results.csv's rows).
  const chart = page.locator('.cs-figure.live', { has: page.locator('code', { hasText: 'wait-vs-offered-rate' }) });
  await chart.scrollIntoViewIfNeeded();
  const table = rows('single-writer-queue').sort((a, b) => Number(a.offered_rate_per_s) - Number(b.offered_rate_per_s));
  for (const [k, row] of table.entries()) {
    const shown = await pointValues(page, chart, 0, k, phone);
    const expected = [turkish(row.offered_rate_per_s), turkish(row.mean_wait_ms)];
    if (shown.values.join('|') !== expected.join('|')) {
      fail(`${label}: point ${k + 1} shows ${JSON.stringify(shown.values)}, results.csv has ${JSON.stringify(expected)}`);
    }
  }
  // The provenance of the mean wait at eight clients, on focus.
  const region = page.locator('.cs-r').filter({ has: page.locator('.cs-p', { hasText: 'queue.mean_wait_ms' }) }).first();
  await region.locator('.cs-v').focus();
  const tip = region.locator('.cs-p');
  const text = (await tip.isVisible()) ? await tip.innerText() : '';
  for (const part of ['configs/lessons/single-writer-queue.toml', 'clients=8', '206,5']) {
    if (!text.includes(part)) fail(`${label}: the provenance lacks "${part}": ${text}`);
  }
  const box = await tip.boundingBox();
  if (box && box.x + box.width > width + 0.5) fail(`${label}: the provenance passes the window's edge`);
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  if (wide > width) fail(`${label}: the page scrolls sideways (${wide} px wide)`);
  if (failures.length === 0) console.log(`ok: ${label}: its charts draw and show results.csv's values; nothing else is loaded`);
  await context.close();
}

/** Lesson 003's fragment twice and lesson 004's once on one page. */
async function together(browser) {
  const label = 'two fragments, one of them twice';
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const url = host([`${lesson003}.embed.html`, `${lesson004}.embed.html`, `${lesson003}.embed.html`]);
  const page = await watched(context, label, (u) => u === url);
  await page.goto(url);
  const roots = page.locator('.coordsim-lesson');
  if ((await roots.count()) !== 3) fail(`${label}: ${await roots.count()} fragments on the page`);
  // Every copy's live charts work: the last copy's first point.
  for (let i = 0; i < 3; i += 1) {
    const chart = roots.nth(i).locator('.cs-figure.live').first();
    await chart.scrollIntoViewIfNeeded();
    const shown = await pointValues(page, chart, 0, 0, false);
    if (shown.values.length < 2) fail(`${label}: fragment ${i + 1}'s first chart shows no value on hover`);
    await page.mouse.move(0, 0);
  }
  const [a, b] = await Promise.all([0, 1].map((i) => roots.nth(i).evaluate((r) =>
    [r.id, ...[...r.querySelectorAll('[id]')].map((e) => e.id)])));
  const shared = a.filter((id) => b.includes(id));
  if (shared.length > 0) fail(`${label}: lessons 003 and 004 share ids ${shared.slice(0, 5).join(', ')}`);
  // The page's own globals: nothing but what a page has.
  const globals = await page.evaluate(() => Object.keys(window).filter((k) => /^(words|setUp|number|chart|root|coordsim)/i.test(k)));
  if (globals.length > 0) fail(`${label}: the fragments left globals ${globals.join(', ')}`);
  console.log(`ok: ${label}: every copy's charts work; ${a.length} and ${b.length} ids, none shared`);
  await context.close();
}

/** The reader's view of lesson 003 and the links between the two views. */
async function reader(browser) {
  const label = "lesson 003's reader's view";
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await watched(context, label, (u) => u.startsWith('file:'));
  await page.goto(pathToFileURL(path.join(site, `${lesson003}.reader.html`)).href);
  // The lesson and what the page says of it (the site's footer says how the site is made).
  const text = await page.evaluate(() => document.querySelector('main').textContent);
  for (const word of ['denetlendi', 'HEPSİ TUTUYOR', 'koşuyla tutuyor', 'kaydı', 'denetleyen']) {
    if (text.includes(word)) fail(`${label}: the page says "${word}"`);
  }
  const marks = await page.locator('.badge, .cs-tag, .cs-flag, .cs-r.pass, .cs-b.pass').count();
  if (marks > 0) fail(`${label}: ${marks} check marks`);
  const region = page.locator('.cs-r').filter({ has: page.locator('.cs-p', { hasText: 'queue.mean_wait_ms' }) }).first();
  await region.locator('.cs-v').focus();
  if (!(await region.locator('.cs-p').isVisible())) fail(`${label}: focusing 206,5 ms shows no provenance`);
  const toAuthor = await page.locator(`a[href="${lesson003}.html"]`).count();
  await page.goto(pathToFileURL(path.join(site, `${lesson003}.html`)).href);
  const toReader = await page.locator(`a[href="${lesson003}.reader.html"]`).count();
  if (toAuthor !== 1 || toReader !== 1) fail(`${label}: the views link each other ${toAuthor} and ${toReader} times, not once`);
  console.log(`ok: ${label}: no check shown, the provenance on focus, the views linked`);
  await context.close();
}

/** single-writer-queue's slider over `clients`: at each value the row shown is results.csv's
 * row of that value; without script the section stays hidden. */
async function slider(browser) {
  const label = "single-writer-queue's slider";
  for (const javaScriptEnabled of [true, false]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled });
    const page = await watched(context, label, (u) => u.startsWith('file:'));
    await page.goto(pathToFileURL(path.join(site, 'config-single-writer-queue.html')).href);
    const section = page.locator('#slider');
    if (!javaScriptEnabled) {
      if (await section.isVisible()) fail(`${label}: shown without JavaScript`);
      await context.close();
      continue;
    }
    const input = section.locator('input[type=range]');
    const table = rows('single-writer-queue');
    if ((await input.count()) !== 1) fail(`${label}: ${await input.count()} sliders, not 1`);
    await input.focus();
    await page.keyboard.press('Home');
    for (let k = 0; k < table.length; k += 1) {
      if (k > 0) await page.keyboard.press('ArrowRight');
      const value = await section.locator('output').innerText();
      const shown = section.locator('.slider-point:visible');
      if ((await shown.count()) !== 1) {
        fail(`${label}: ${await shown.count()} points shown at ${value}`);
        continue;
      }
      const cells = await shown.locator('.slider-row table').evaluate((t) => {
        const head = [...t.querySelectorAll('th')].map((c) => c.textContent.trim());
        const row = [...t.querySelectorAll('tbody tr')].map((r) => [...r.cells].map((c) => c.textContent.trim()));
        return { head, row };
      });
      const row = table.find((r) => turkish(r.clients) === value);
      const at = (name) => cells.row[0]?.[cells.head.indexOf(name)];
      if (!row || cells.row.length !== 1 || at('istemci') !== value || at('ort. bekleme (ms)') !== turkish(row.mean_wait_ms)) {
        fail(`${label}: at ${value} the row shown is ${JSON.stringify(cells)}; results.csv's: ${JSON.stringify(row)}`);
      }
    }
    console.log(`ok: ${label}: each of ${table.length} values shows results.csv's row; hidden without JavaScript`);
    await context.close();
  }
}

/** Lesson 000's explorer (explore-lost-update at guard = "none"), its claim's execution. */
const lostUpdate = () => expected(path.join(out, 'explore-lost-update', 'explore'));

/** Lesson 000's fragment alone in an empty page: its charts drawn, its explorer played. */
async function explorerAlone(browser) {
  const label = "lesson 000's fragment, its explorer";
  const before = failures.length;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const url = host([`${lesson000}.embed.html`]);
  const page = await watched(context, label, (u) => u === url);
  await page.goto(url);
  const charts = await page.locator('.coordsim-lesson .cs-figure svg.cs-full').evaluateAll((svgs) =>
    svgs.filter((s) => s.getBoundingClientRect().width > 0).length);
  if (charts < 1) fail(`${label}: no chart drawn`);
  const box = page.locator('.coordsim-lesson .explorer');
  if ((await box.count()) !== 1 || !(await box.isVisible())) fail(`${label}: ${await box.count()} explorer(s), visible: ${await box.first().isVisible()}`);
  const played = await playClaim(page, box, lostUpdate(), { label, fail, touch: false, width: 1280 });
  await box.screenshot({ path: path.join(shots, 'lesson-explorer-fragment-1280.png') });
  if (failures.length === before) console.log(`ok: ${label}: ${charts} chart(s) drawn; the claim's execution played (${played.events} events), a branch reached outcome ${played.other}; no other request`);
  await context.close();
}

/** Lesson 000's fragment twice and lesson 006's once: each explorer plays on its own. */
async function explorersTogether(browser) {
  const label = 'three fragments with explorers on one page';
  const before = failures.length;
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const url = host([`${lesson000}.embed.html`, `${lesson006}.embed.html`, `${lesson000}.embed.html`]);
  const page = await watched(context, label, (u) => u === url);
  await page.goto(url);
  const boxes = page.locator('.explorer');
  if ((await boxes.count()) !== 3) fail(`${label}: ${await boxes.count()} explorers, not 3`);
  const states = () => boxes.evaluateAll((all) => all.map((b) => b.querySelector('.explorer-state')?.innerHTML ?? ''));
  const start = await states();
  // The second copy of lesson 000 played: the first copy and lesson 006's stay at their start.
  const played = await playClaim(page, boxes.nth(2), lostUpdate(), { label, fail, touch: false, width: 1280 });
  const after = await states();
  if (after[0] !== start[0] || after[1] !== start[1]) fail(`${label}: playing the third explorer moved another`);
  // The key b goes to the focused explorer alone.
  await boxes.nth(0).locator('.explorer-event').first().click();
  const moved = await states();
  await page.keyboard.press('b');
  const back = await states();
  if (back[0] !== start[0] || back[2] !== moved[2]) fail(`${label}: b went back in another explorer than the focused one`);
  // Lesson 006's draws: each of the two ways with its probability in its button.
  const draws = await boxes.nth(1).locator('.explorer-event').allInnerTexts();
  if (draws.length !== 2 || !draws.every((d) => /0,2|0,8/.test(d))) fail(`${label}: lesson 006's first draws are ${JSON.stringify(draws)}`);
  if (failures.length === before) console.log(`ok: ${label}: each plays on its own (${played.events} events in the third), keys go to the focused one, lesson 006's draws say their probabilities`);
  await context.close();
}

/** The explorer in lesson 000's Turkish page and reader's view at 375 px, by taps. */
async function explorerOnPhone(browser) {
  for (const view of [`${lesson000}.html`, `${lesson000}.reader.html`]) {
    const label = `${view}'s explorer at 375 px`;
    const before = failures.length;
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, hasTouch: true, isMobile: true });
    const page = await watched(context, label, (u) => u.startsWith('file:'));
    await page.goto(pathToFileURL(path.join(site, view)).href);
    const box = page.locator('.explorer');
    await box.scrollIntoViewIfNeeded();
    const played = await playClaim(page, box, lostUpdate(), { label, fail, touch: true, width: 375 });
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    if (wide > 375) fail(`${label}: the page scrolls sideways (${wide} px wide)`);
    await box.screenshot({ path: path.join(shots, `lesson-explorer-${view.includes('reader') ? 'reader' : 'author'}-375.png`) });
    if (failures.length === before) console.log(`ok: ${label}: played by taps (${played.events} events), a branch reached outcome ${played.other}; nothing past the edge`);
    await context.close();
  }
}

/** What a saved file is: an SVG, a PNG or a CSV, by its bytes. */
function kind(bytes) {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  const text = bytes.toString('utf8');
  if (/^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(text) && text.trimEnd().endsWith('</svg>')) return 'svg';
  // A header and rows, each of as many fields (a quoted field may hold a comma).
  const fields = (line) => 1 + line.replace(/"([^"]|"")*"/g, '').split('').filter((c) => c === ',').length;
  const lines = text.trimEnd().split('\n');
  if (lines.length > 1 && lines.every((l) => fields(l) === fields(lines[0]))) return 'csv';
  return 'unknown';
}

/** Each chart's SVG, PNG and CSV saved from a config page, a lesson's page and reader's
 * view, and a lesson's fragment alone: each click makes a download of its type. */
async function saves(browser) {
  // The site served over HTTP, as a course publishes it: a browser saves a linked file of
  // the page's own site (its `download` link); from file:// Chromium opens it instead.
  const types = { html: 'text/html', js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml', png: 'image/png', csv: 'text/csv' };
  const server = http.createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = path.join(out, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!file.startsWith(out) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[path.extname(file).slice(1)] ?? 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const served = (file) => `http://127.0.0.1:${server.address().port}/site/${file}`;
  const cases = [
    { label: 'a config page', url: served('config-single-writer-queue.html'), figure: '#chart-wait-vs-offered-rate' },
    { label: "lesson 003's page", url: served(`${lesson003}.html`), figure: '.cs-figure.live' },
    { label: "lesson 003's reader's view", url: served(`${lesson003}.reader.html`), figure: '.cs-figure.live' },
    { label: "lesson 000's reader's view, a step chart", url: served(`${lesson000}.reader.html`), figure: '.cs-figure[data-name^="trace-"]' },
    { label: "lesson 003's fragment alone", url: host([`${lesson003}.embed.html`]), figure: '.cs-figure.live' },
    { label: "lesson 000's fragment alone, a step chart", url: host([`${lesson000}.embed.html`]), figure: '.cs-figure[data-name^="trace-"]' },
  ];
  for (const c of cases) {
    const label = `saving from ${c.label}`;
    const before = failures.length;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await watched(context, label, (u) => /^(file|blob|http):/.test(u));
    await page.goto(c.url);
    const figure = page.locator(c.figure).first();
    const saved = [];
    for (const type of c.label.includes('fragment') && c.label.includes('step') ? ['SVG', 'PNG'] : ['SVG', 'PNG', 'CSV']) {
      const control = figure.locator('a, button', { hasText: new RegExp(`^${type}$`) });
      if ((await control.count()) !== 1) {
        fail(`${label}: ${await control.count()} ${type} controls`);
        continue;
      }
      const [download] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), control.click()]);
      const bytes = fs.readFileSync(await download.path());
      const got = kind(bytes);
      const name = download.suggestedFilename();
      if (got !== type.toLowerCase() || !name.endsWith(`.${type.toLowerCase()}`)) fail(`${label}: ${type} saved ${name}, a file of type ${got} (${bytes.length} bytes)`);
      saved.push(`${name} (${bytes.length} B)`);
    }
    if (failures.length === before) console.log(`ok: ${label}: ${saved.join(', ')}`);
    await context.close();
  }
  server.close();
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
});
try {
  await alone(browser, 1280);
  await alone(browser, 375);
  await together(browser);
  await reader(browser);
  await slider(browser);
  fs.mkdirSync(shots, { recursive: true });
  await explorerAlone(browser);
  await explorersTogether(browser);
  await explorerOnPhone(browser);
  await saves(browser);
} finally {
  await browser.close();
  fs.rmSync(out, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.log(`${failures.length} failure(s)`);
  process.exit(1);
}
console.log('embed: all passed');
