// The report site in a real browser: Debian's Chromium, headless, driven by playwright-core.
//
//   node tests/browser/site.test.mjs [COORDSIM_BINARY]
//
// Runs `coordsim report --out TMP` from the repository, opens TMP/index.html from disk
// (file://, no server) and checks: the index's totals equal the line `report` printed; every
// page reachable from the index loads with no console error, no failed request and no
// request off the disk; every link resolves (the file exists inside the site, and its
// #fragment is an id of the page); every image loads with a non-zero natural size; a
// lesson's marked number shows its provenance on focus (with JavaScript on and off) and
// leads to the claim and the config line that check it in two clicks; a config whose title
// and claim are markup shows them as text; at 375 and 1280 CSS pixels, on every page: no
// sideways scroll, no visible text under 11 px, no table cut off at the window's edge (it
// fits or scrolls in its box), and every chart readable (on the phone its rendering's
// smallest text, scaled as shown, at least 11 px; on the wide screen shown at its size, and
// a step chart that fits the page's column shown whole, not cut to the text's column, as a
// lesson's 6-step chart checks at 1280 px); live charts: a hover, the keys and a tap on a
// chart's points show the config's results.csv values in the page's numbers, the CSV
// saved is results.csv's, a picked series keeps the keys; the explorer: a claim's deciding
// execution played by the event buttons from the start ends at the trace's last row and an
// outcome of outcomes.csv, a branch reaches another, back restores each state, at 1280 px
// and by taps at 375 px.
// Screenshots of the index, a config page and a lesson page go to $SCREENSHOTS (default
// target/site-screenshots/).
//
// Environment: CHROMIUM (default /usr/bin/chromium), SCREENSHOTS.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';
import { expected, localized, playClaim, readCsv } from './play.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..', '..');
const binary = path.resolve(process.argv[2] ?? path.join(repo, 'target', 'release', 'coordsim'));
const shots = path.resolve(process.env.SCREENSHOTS ?? path.join(repo, 'target', 'site-screenshots'));
const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';

const problems = [];
const problem = (text) => {
  problems.push(text);
  console.log(`FAIL ${text}`);
};

/** Runs coordsim report into a fresh folder; its output folder and its last stdout line. */
function report(args) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'coordsim-site-'));
  const run = spawnSync(binary, ['report', '--out', out, '--quiet', ...args], {
    cwd: repo,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  assert.ok(
    run.status === 0 || run.status === 1,
    `coordsim report exited ${run.status}: ${run.stderr}`,
  );
  const last = run.stdout.trimEnd().split('\n').pop();
  assert.match(last, /^\d+ passed, \d+ failed$/, `report's last line: ${last}`);
  return { out, last };
}

async function launch() {
  // As root on a machine with no network: no sandbox, no GPU, nothing fetched in the
  // background. playwright-core starts it with a fresh profile (--user-data-dir) of its own.
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A page that records console errors, page errors, failed and off-disk requests. */
async function watchedPage(context, label) {
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error') problem(`${label()}: console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problem(`${label()}: script error: ${e.message}`));
  page.on('requestfailed', (r) => problem(`${label()}: failed to load ${r.url()}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) problem(`${label()}: a request off the disk: ${r.url()}`);
  });
  page.on('dialog', async (d) => {
    problem(`${label()}: a dialog opened (${d.message()}): a user string ran as script`);
    await d.dismiss();
  });
  return page;
}

/** Visits every page reachable from the index; checks links, fragments and images. */
async function crawl(context, out) {
  const root = fs.realpathSync(out);
  let current = 'index.html';
  const page = await watchedPage(context, () => current);
  const queue = [path.join(root, 'index.html')];
  const seen = new Set(queue);
  const ids = new Map();
  const fragments = [];
  let links = 0;
  let images = 0;
  while (queue.length > 0) {
    const file = queue.shift();
    current = path.relative(root, file);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    const found = await page.evaluate(() => ({
      ids: [...document.querySelectorAll('[id]')].map((e) => e.id),
      links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
      images: [...document.images].map((i) => ({
        src: i.currentSrc || i.src,
        width: i.naturalWidth,
        height: i.naturalHeight,
      })),
    }));
    ids.set(file, new Set(found.ids));
    for (const img of found.images) {
      images += 1;
      if (!(img.width > 0 && img.height > 0)) problem(`${current}: image ${img.src} did not load`);
    }
    for (const href of found.links) {
      links += 1;
      const url = new URL(href);
      if (url.protocol !== 'file:') {
        console.log(`note: ${current}: ${href} leaves the site (not followed)`);
        continue;
      }
      const target = fileURLToPath(new URL(url.pathname, url));
      if (path.relative(root, target).startsWith('..')) {
        problem(`${current}: ${href} points outside the site`);
        continue;
      }
      if (!fs.existsSync(target) || !fs.statSync(target).isFile()) {
        problem(`${current}: ${href} does not resolve`);
        continue;
      }
      if (url.hash) fragments.push({ from: current, target, id: decodeURIComponent(url.hash.slice(1)) });
      if (target.endsWith('.html') && !seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  for (const f of fragments) {
    if (!ids.get(f.target)?.has(f.id)) {
      problem(`${f.from}: #${f.id} is no id of ${path.relative(root, f.target)}`);
    }
  }
  await page.close();
  console.log(`visited ${seen.size} pages: ${links} links, ${images} images`);
  return [...seen];
}

/** The index's totals equal what `report` printed; a screenshot of it. */
async function index(context, out, last) {
  const page = await watchedPage(context, () => 'index.html');
  await page.goto(pathToFileURL(path.join(out, 'index.html')).href);
  const totals = (await page.locator('#totals').textContent()).trim();
  if (totals !== last) problem(`index totals "${totals}" differ from report's "${last}"`);
  else console.log(`ok: the index says "${totals}", as report printed`);
  await page.screenshot({ path: path.join(shots, 'index.png'), fullPage: true });
  await page.close();
}

/** A marked number of lesson 003 shows its provenance on focus, and two clicks reach the
 * claim and the config line that check it. */
async function provenance(context, out, { screenshot }) {
  const label = screenshot ? 'lesson 003' : 'lesson 003 (JavaScript off)';
  const page = await watchedPage(context, () => label);
  const lesson = path.join(out, 'site', 'lesson-003-dayanikli-durum-nesneleri.html');
  await page.goto(pathToFileURL(lesson).href);
  // The mean wait at eight clients: `queue.mean_wait_ms clients=8`, written 206,5 ms.
  const region = page
    .locator('.cs-r')
    .filter({ has: page.locator('.cs-p', { hasText: 'queue.mean_wait_ms' }) })
    .first();
  const tip = region.locator('.cs-p');
  if (await tip.isVisible()) problem(`${label}: the provenance shows before focus`);
  await region.locator('.cs-v').focus();
  if (!(await tip.isVisible())) {
    problem(`${label}: focusing 206,5 ms does not show its provenance`);
    await page.close();
    return;
  }
  const text = await tip.innerText();
  for (const want of [
    'configs/lessons/single-writer-queue.toml',
    'queue.mean_wait_ms',
    'clients=8',
    '206,5',
    '± 0,05',
    'koşuyla tutuyor',
    'yapılandırma satırı',
  ]) {
    if (!text.includes(want)) problem(`${label}: the provenance lacks "${want}": ${text}`);
  }
  if (screenshot) {
    await region.scrollIntoViewIfNeeded();
    await page.evaluate(() => window.scrollBy(0, 200));
    await page.screenshot({ path: path.join(shots, 'lesson.png') });
    // Escape (site.js) closes it.
    await page.keyboard.press('Escape');
    if (await tip.isVisible()) problem(`${label}: Escape leaves the provenance open`);
  }
  // Click 1: the number (focus, provenance); click 2: the claim. Then, from the number
  // again, click 2: the config line.
  await region.locator('.cs-v').click();
  await tip.locator('a', { hasText: '«' }).first().click();
  await page.waitForLoadState('load');
  const claim = page.locator('tr:target');
  const claimText = (await claim.count()) ? await claim.innerText() : '';
  if (!claimText.includes('206,5') || !claimText.includes('GEÇTİ')) {
    problem(`${label}: the claim link does not land on the claim (${page.url()}: ${claimText})`);
  }
  await page.goBack();
  await region.locator('.cs-v').click();
  await tip.locator('a', { hasText: 'yapılandırma satırı' }).first().click();
  await page.waitForLoadState('load');
  const line = page.locator('.line:target');
  const lineText = (await line.count()) ? await line.innerText() : '';
  if (!lineText.includes('[[claim]]')) {
    problem(`${label}: the line link does not land on the claim's line (${page.url()}: ${lineText})`);
  } else {
    console.log(`ok: ${label}: 206,5 ms → its provenance → claim and ${new URL(page.url()).hash}`);
  }
  if (screenshot) {
    const config = path.join(out, 'site', 'config-single-writer-queue.html');
    await page.goto(pathToFileURL(config).href);
    await page.screenshot({ path: path.join(shots, 'config.png'), fullPage: true });
  }
  await page.close();
}

/** The site's own words on a Turkish page are Turkish: a Turkish config's page (one with
 * claims over executions, one with a text claim) and a Turkish lesson's, each searched for
 * the chrome's English words (which an English page has, checked on one) and for their
 * Turkish. */
async function language(context, out) {
  const pages = [
    {
      file: 'config-single-writer-queue.html',
      lang: 'tr',
      // Its live charts' words (site.js adds them) among them.
      english: ['Claims', 'Parameters', 'Charts', 'Written by', 'claim(s) hold', 'worst at', 'PASS', 'every series', 'arrow keys'],
      turkish: ['İddialar', 'Parametreler', 'Grafikler', 'Yazan:', 'GEÇTİ', 'coordsim raporu', 'ok tuşları', 'tüm seriler'],
    },
    {
      // A claim over executions and a text claim: how they hold, which executions, the test.
      file: 'config-explore-lost-update.html',
      lang: 'tr',
      // Its explorer's words and its data's (explorer.js draws them) among them.
      english: ['sometimes:', 'always:', 'outcome 1 of', '(8 executions)', 'min of 70', 'expected', 'free events', 'start again', 'reads counter', 'write counter', '1 of 2'],
      turkish: ['bazı yürütmelerde:', 'her yürütmede:', '4 sonucun 1. sonucu (8 yürütme)', '70 yürütmenin en küçüğü', 'serbest olaylar', 'baştan başla', 'counter okur', 'yaz: counter'],
    },
    {
      file: 'config-idempotency-key.html',
      lang: 'tr',
      english: ['exact text'],
      turkish: ['"rejected", tam metin'],
    },
    {
      file: 'lesson-003-dayanikli-durum-nesneleri.html',
      lang: 'tr',
      english: ['ALL MATCH', 'marked region(s) checked', 'Configs:', 'matches the run', 'checked by'],
      turkish: ['HEPSİ TUTUYOR', 'işaretli', 'Yapılandırmalar:', 'koşuyla tutuyor', 'denetleyen'],
    },
    {
      file: 'lesson-en--003-single-writer-objects.html',
      lang: 'en',
      english: [],
      turkish: [],
      wants: ['ALL MATCH', 'marked region(s) checked', 'matches the run'],
    },
  ];
  for (const want of pages) {
    const file = path.join(out, 'site', want.file);
    if (!fs.existsSync(file)) {
      problem(`language: no page ${want.file}`);
      continue;
    }
    const page = await watchedPage(context, () => want.file);
    await page.goto(pathToFileURL(file).href);
    const lang = await page.locator('html').getAttribute('lang');
    if (lang !== want.lang) problem(`${want.file}: <html lang="${lang}">, not ${want.lang}`);
    // The whole text, the provenances (hidden until focus) included.
    const text = await page.evaluate(() => document.body.textContent);
    for (const word of want.english) {
      if (text.includes(word)) problem(`${want.file}: the Turkish page says "${word}"`);
    }
    for (const word of [...want.turkish, ...(want.wants ?? [])]) {
      if (!text.includes(word)) problem(`${want.file}: the page lacks "${word}"`);
    }
    await page.close();
  }
  console.log('ok: the site speaks each page\'s language');
}

/** On a narrow or a middling window, every provenance of lesson 003 shows whole when its
 * region has the focus (CSS puts it along the bottom of a phone's screen, or without
 * script under its paragraph; site.js moves one under its value that would pass the edge). */
async function inView(browser, width, javaScriptEnabled) {
  const label = `lesson 003 at ${width} px${javaScriptEnabled ? '' : ' (JavaScript off)'}`;
  const context = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled });
  const page = await watchedPage(context, () => label);
  await page.goto(pathToFileURL(path.join(current.out, 'site', 'lesson-003-dayanikli-durum-nesneleri.html')).href);
  const values = page.locator('.cs-r > .cs-v');
  const n = await values.count();
  let clipped = 0;
  for (let i = 0; i < n; i += 1) {
    await values.nth(i).focus();
    const box = await page.locator('.cs-r').nth(i).locator('.cs-p').boundingBox();
    if (!box || box.x < 0 || box.x + box.width > width + 0.5) {
      clipped += 1;
      if (clipped <= 3) problem(`${label}: provenance ${i + 1} is cut off at the window's edge (${JSON.stringify(box)})`);
    }
  }
  if (clipped === 0) console.log(`ok: ${label}: all ${n} provenances show whole`);
  await context.close();
}

/** Every page of the site at `width` CSS pixels: the page never scrolls sideways (its
 * scroll width is the window's); every visible text is at least 11 px; every table fits or
 * scrolls in a box of its own (no column cut off at the window's edge); and every chart is
 * readable: at a phone's width its text (`data-smallest-text-px` of the SVG shown, scaled by
 * how wide it is shown) is at least 11 px, and on a wide screen it is shown at its own size,
 * never shrunk. */
async function layout(browser, out, pages, width) {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  let current = '';
  const page = await watchedPage(context, () => `${current} at ${width} px`);
  const smallest = new Map();
  const smallestOf = (src) => {
    if (!smallest.has(src)) {
      const text = src.startsWith('file:') ? fs.readFileSync(fileURLToPath(src), 'utf8') : '';
      const at = text.match(/<svg[^>]*\bwidth="(\d+)"[^>]*\bdata-smallest-text-px="(\d+)"/);
      smallest.set(src, at ? { width: Number(at[1]), px: Number(at[2]) } : null);
    }
    return smallest.get(src);
  };
  let charts = 0;
  let before = problems.length;
  for (const file of pages) {
    current = path.relative(out, file);
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    const found = await page.evaluate(() => {
      const visible = (e) => {
        for (let x = e; x; x = x.parentElement) {
          const st = getComputedStyle(x);
          if (st.display === 'none' || st.visibility === 'hidden') return false;
        }
        return e.getClientRects().length > 0;
      };
      const small = [];
      const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        const text = n.textContent.trim();
        if (!text || !n.parentElement || !visible(n.parentElement)) continue;
        const size = parseFloat(getComputedStyle(n.parentElement).fontSize);
        if (size < 11) small.push(`"${text.slice(0, 40)}" at ${size} px`);
      }
      const cut = [];
      for (const t of document.querySelectorAll('table')) {
        if (!visible(t)) continue;
        let box = null;
        for (let x = t.parentElement; x; x = x.parentElement) {
          const o = getComputedStyle(x).overflowX;
          if (o === 'auto' || o === 'scroll') { box = x; break; }
        }
        const right = t.getBoundingClientRect().right + window.scrollX;
        if (!box && right > document.documentElement.clientWidth + 0.5) {
          cut.push(`a table reaches ${Math.round(right)} px`);
        }
      }
      // The page's column: what a chart may take past a lesson's text.
      const main = document.querySelector('main');
      const style = main && getComputedStyle(main);
      const column = main
        ? main.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
        : document.documentElement.clientWidth;
      const images = [...document.images].filter(visible).map((i) => {
        let box = null;
        for (let x = i.parentElement; x; x = x.parentElement) {
          const o = getComputedStyle(x).overflowX;
          if (o === 'auto' || o === 'scroll') { box = x; break; }
        }
        return {
          src: i.currentSrc || i.src,
          shown: i.getBoundingClientRect().width,
          // The width a box that scrolls shows of it, when it is in one.
          seen: box ? box.clientWidth : null,
        };
      });
      return { scroll: document.documentElement.scrollWidth, small, cut, images, column };
    });
    if (found.scroll > width) problem(`${current} at ${width} px: the page is ${found.scroll} px wide: it scrolls sideways`);
    for (const s of found.small.slice(0, 3)) problem(`${current} at ${width} px: text under 11 px: ${s}`);
    for (const c of found.cut) problem(`${current} at ${width} px: ${c}, past the window, in no box that scrolls`);
    for (const img of found.images) {
      const chart = smallestOf(img.src);
      if (!chart) continue;
      charts += 1;
      const scale = img.shown / chart.width;
      const name = path.basename(fileURLToPath(img.src));
      if (width < 720 && chart.px * scale < 11) {
        problem(`${current} at ${width} px: chart ${name} shows its smallest text at ${(chart.px * scale).toFixed(1)} px`);
      }
      if (width >= 1000 && scale < 0.999) {
        problem(`${current} at ${width} px: chart ${name} is shrunk to ${Math.round(100 * scale)}% of its size`);
      }
      // A chart in a box that scrolls (a step chart) is cut only when the page's column
      // has no room for it: one that fits is shown whole, as a line chart is.
      if (width >= 1000 && img.seen !== null && img.seen < img.shown - 0.5 && img.shown <= found.column) {
        problem(`${current} at ${width} px: chart ${name} (${Math.round(img.shown)} px) is cut to ${img.seen} px and scrolls, though the page's column has ${Math.round(found.column)} px`);
      }
    }
  }
  await context.close();
  if (problems.length === before) {
    console.log(`ok: ${pages.length} pages at ${width} px: no sideways scroll, text ≥ 11 px, tables whole or scrolling, ${charts} charts readable`);
  }
}

/** A config whose title, claim name and label are markup: shown as text, nothing runs. */
async function markup(browser) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coordsim-markup-'));
  fs.mkdirSync(path.join(dir, 'configs'));
  fs.writeFileSync(
    path.join(dir, 'configs', 'x.toml'),
    [
      'model = "single_writer_queue"',
      'title = "<script>alert(1)</script>"',
      '[params]',
      'requests_per_client = 5',
      '[labels]',
      'mean_wait_ms = "<img src=x onerror=alert(2)>"',
      '[[claim]]',
      'name = "<b onmouseover=alert(3)>claim</b>"',
      'metric = "lost_updates"',
      'expect = 0',
      '',
    ].join('\n'),
  );
  const { out } = report(['--configs', path.join(dir, 'configs'), '--lessons', path.join(dir, 'none')]);
  const context = await browser.newContext();
  const page = await watchedPage(context, () => 'markup config');
  for (const file of ['index.html', path.join('site', 'config-x.html')]) {
    await page.goto(pathToFileURL(path.join(out, file)).href);
    await page.mouse.move(10, 10);
    // A chart's points are a data block (application/json), which no browser runs.
    const scripts = await page.evaluate(() =>
      [...document.scripts].filter((s) => s.type !== 'application/json').map((s) => s.src),
    );
    if (scripts.length !== 1 || !scripts[0].endsWith('/site.js')) {
      problem(`${file}: scripts other than site.js: ${scripts}`);
    }
  }
  // The label in markup is in a live chart's points: focusing the chart shows it as text.
  const live = page.locator('figure.live img').first();
  if ((await live.count()) === 0) problem('the markup config has no live chart to focus');
  else await live.focus();
  const h1 = await page.locator('h1').textContent();
  if (h1 !== '<script>alert(1)</script>') problem(`the title shows as "${h1}", not as its text`);
  if ((await page.locator('img[src="x"], b[onmouseover]').count()) > 0) {
    problem('a label or claim name became an element');
  }
  const claim = await page.locator('#claim-1').innerText();
  if (!claim.includes('<b onmouseover=alert(3)>claim</b>')) problem(`the claim name: ${claim}`);
  else console.log('ok: markup in a title, a label and a claim name shows as text');
  await context.close();
}

/** A lesson with a 6-step chart (an explored execution, about 990 px wide): at 1280 px its
 * box extends past the text's column, as a line chart does, and shows every step; at 375 px
 * the page does not scroll sideways (the box does). */
async function stepsInLesson(browser) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coordsim-steps-'));
  fs.mkdirSync(path.join(dir, 'configs'));
  fs.mkdirSync(path.join(dir, 'lessons', 'img'), { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'configs', 'cta.toml'),
    [
      'model = "scenario"',
      'title = "Check then act"',
      '[[resource]]',
      'name = "names"',
      'kind = "keys"',
      '[[resource]]',
      'name = "accounts"',
      'kind = "keys"',
      '[[actor]]',
      'name = "svc"',
      'names = ["A", "B"]',
      'steps = [{ lookup = "names", key = 7 }, { if = "found", then = [{ end = "gave_up" }] },',
      '  { set = "names", key = 7, value = 1 }, { insert = "accounts", key = "i" }]',
      '[[claim]]',
      'name = "two accounts"',
      'over = "executions"',
      'holds = "sometimes"',
      'metric = "accounts.size"',
      'expect = 2',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'lessons', 's.md'),
    [
      '<!-- coordsim use cta = "../configs/cta.toml" -->',
      '# Steps',
      '',
      'Both look before either sets:',
      '',
      '<!-- coordsim chart cta trace-1 -->',
      '![the shortest execution](img/steps.svg)',
      '<!-- /coordsim -->',
      '',
    ].join('\n'),
  );
  const fill = spawnSync(binary, ['lesson', 'fill', 'lessons/s.md'], { cwd: dir, encoding: 'utf8' });
  assert.equal(fill.status, 0, `lesson fill: ${fill.stderr}`);
  const { out } = report(['--configs', path.join(dir, 'configs'), '--lessons', path.join(dir, 'lessons')]);
  const before = problems.length;
  for (const width of [1280, 375]) {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    const page = await watchedPage(context, () => `the step chart at ${width} px`);
    await page.goto(pathToFileURL(path.join(out, 'site', 'lesson-s.html')).href, { waitUntil: 'load' });
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    const found = await page.evaluate(() => {
      const box = document.querySelector('.cs-b.steps');
      const img = box && box.querySelector('img');
      return box && img && {
        seen: box.clientWidth,
        shown: img.getBoundingClientRect().width,
        right: box.getBoundingClientRect().right,
        scroll: document.documentElement.scrollWidth,
      };
    });
    if (!found) {
      problem(`the step chart at ${width} px: no step chart block in the lesson`);
    } else {
      if (width >= 1000 && (found.shown < 900 || found.seen < found.shown - 0.5)) {
        problem(`the step chart at ${width} px: ${Math.round(found.shown)} px of chart shown in ${found.seen} px: its last steps are hidden`);
      }
      if (found.scroll > width || found.right > width) {
        problem(`the step chart at ${width} px: the page is ${found.scroll} px wide, the box reaches ${Math.round(found.right)} px`);
      }
    }
    await page.locator('.cs-b.steps').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(shots, `lesson-steps-${width}.png`) });
    await context.close();
  }
  if (problems.length === before) {
    console.log('ok: a 6-step chart in a lesson shows every step at 1280 px and keeps the page at 375 px');
  }
}

/** The first series' markers of a line chart's SVG file, in x order: its `<circle>`s of
 * radius 8 (plotters draws the first series' markers 8 pixels wide, the legend's 6). */
function markers(svgFile) {
  const text = fs.readFileSync(svgFile, 'utf8');
  return [...text.matchAll(/<circle cx="(\d+)" cy="(\d+)" r="8"/g)]
    .map((m) => ({ x: Number(m[1]), y: Number(m[2]) }))
    .sort((a, b) => a.x - b.x);
}

/** Live charts (site.js reads each chart's points beside its image): a hover on a point,
 * found in the chart's own SVG file, shows its x and y as the config's results.csv has
 * them, in the page's number format; keyboard focus and the arrow keys show the same; a
 * tap does on a phone's screen, where the tip stays inside the window; the CSV button
 * saves the points as results.csv has them; the series control keeps the pointer and the
 * keys on the series picked, whose values are summary.csv's means. */
async function liveCharts(browser, out) {
  const before = problems.length;
  const values = async (page) =>
    page.locator('figure.live .chart-tip:not([hidden]) .chart-value').allInnerTexts();
  // Where a point of the SVG file is on the screen, the image as shown.
  const onScreen = async (img, svgFile, p) => {
    const box = await img.boundingBox();
    const width = Number(/<svg[^>]*\bwidth="(\d+)"/.exec(fs.readFileSync(svgFile, 'utf8'))[1]);
    const scale = box.width / width;
    return { x: box.x + p.x * scale, y: box.y + p.y * scale, px: { x: p.x * scale, y: p.y * scale } };
  };

  // English, 1280 px: saga-window, one replication, y = inconsistency_window_ms by step_ms.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    const page = await watchedPage(context, () => 'saga-window live chart');
    await page.goto(pathToFileURL(path.join(out, 'site', 'config-saga-window.html')).href);
    const rows = readCsv(path.join(out, 'saga-window', 'results.csv'))
      .sort((a, b) => Number(a.step_ms) - Number(b.step_ms));
    const svg = path.join(out, 'saga-window', 'window-vs-step.svg');
    const points = markers(svg);
    if (points.length !== rows.length) problem(`saga-window: ${points.length} markers for ${rows.length} rows`);
    const img = page.locator('#chart-window-vs-step img');
    await img.scrollIntoViewIfNeeded();
    for (const [k, row] of rows.entries()) {
      const at = await onScreen(img, svg, points[k]);
      await page.mouse.move(at.x, at.y);
      const shown = await values(page);
      const want = [localized(row.step_ms, 'en'), localized(row.inconsistency_window_ms, 'en')];
      if (shown.join('|') !== want.join('|')) {
        problem(`saga-window: hovering point ${k + 1} shows ${JSON.stringify(shown)}, results.csv has ${JSON.stringify(want)}`);
      }
    }
    await page.mouse.move(5, 5);
    if ((await values(page)).length > 0) problem('saga-window: the values stay shown after the pointer left');
    await img.focus();
    for (const [k, row] of rows.entries()) {
      if (k > 0) await page.keyboard.press('ArrowRight');
      const shown = await values(page);
      const want = [localized(row.step_ms, 'en'), localized(row.inconsistency_window_ms, 'en')];
      if (shown.join('|') !== want.join('|')) {
        problem(`saga-window: the keys at point ${k + 1} show ${JSON.stringify(shown)}, results.csv has ${JSON.stringify(want)}`);
      }
    }
    for (const [key, row] of [['Home', rows[0]], ['End', rows[rows.length - 1]]]) {
      await page.keyboard.press(key);
      const shown = (await values(page))[0];
      if (shown !== localized(row.step_ms, 'en')) problem(`saga-window: ${key} shows x = ${shown}, not ${row.step_ms}`);
    }
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#chart-window-vs-step .chart-csv').click(),
    ]);
    const saved = fs.readFileSync(await download.path(), 'utf8').trimEnd().split('\n');
    const want = rows.map((r) => `${r.step_ms},${saved[1]?.split(',')[1]},${r.inconsistency_window_ms}`);
    if (download.suggestedFilename() !== 'window-vs-step.csv' || saved.length !== rows.length + 1 ||
        saved.slice(1).join('\n') !== want.join('\n')) {
      problem(`saga-window: the saved CSV (${download.suggestedFilename()}) is ${JSON.stringify(saved)}`);
    }
    await context.close();
  }

  // Turkish, 375 px, touch: single-writer-queue's phone rendering; mean_wait_ms by offered rate.
  {
    const context = await browser.newContext({ viewport: { width: 375, height: 800 }, hasTouch: true, isMobile: true });
    const page = await watchedPage(context, () => 'single-writer-queue live chart at 375 px');
    await page.goto(pathToFileURL(path.join(out, 'site', 'config-single-writer-queue.html')).href);
    await page.waitForFunction(() => [...document.images].every((i) => i.complete));
    const rows = readCsv(path.join(out, 'single-writer-queue', 'results.csv'))
      .sort((a, b) => Number(a.offered_rate_per_s) - Number(b.offered_rate_per_s));
    const svg = path.join(out, 'single-writer-queue', 'wait-vs-offered-rate.narrow.svg');
    const points = markers(svg);
    const img = page.locator('#chart-wait-vs-offered-rate img');
    await img.scrollIntoViewIfNeeded();
    if (!(await img.evaluate((i) => i.currentSrc.endsWith('.narrow.svg')))) {
      problem('single-writer-queue at 375 px: the phone rendering is not the one shown');
    }
    for (const [k, row] of rows.entries()) {
      const at = await onScreen(img, svg, points[k]);
      await img.tap({ position: at.px });
      const shown = await values(page);
      const want = [localized(row.offered_rate_per_s, 'tr'), localized(row.mean_wait_ms, 'tr')];
      if (shown.join('|') !== want.join('|')) {
        problem(`single-writer-queue at 375 px: tapping point ${k + 1} shows ${JSON.stringify(shown)}, results.csv has ${JSON.stringify(want)}`);
      }
      const tip = await page.locator('#chart-wait-vs-offered-rate .chart-tip').boundingBox();
      const scroll = await page.evaluate(() => document.documentElement.scrollWidth);
      if (!tip || tip.x < 0 || tip.x + tip.width > 375 || scroll > 375) {
        problem(`single-writer-queue at 375 px: point ${k + 1}'s values reach past the window (${JSON.stringify(tip)}, page ${scroll} px wide)`);
      }
    }
    const title = await page.locator('#chart-wait-vs-offered-rate .chart-csv').getAttribute('title');
    if (title !== 'noktalarını CSV olarak kaydet') problem(`single-writer-queue: the CSV button's title is "${title}"`);
    await page.screenshot({ path: path.join(shots, 'live-chart-375.png') });
    await context.close();
  }

  // The series control: mg1-service-variability's wait-vs-rho, one line per service cv.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await watchedPage(context, () => 'mg1-service-variability series control');
    await page.goto(pathToFileURL(path.join(out, 'site', 'config-mg1-service-variability.html')).href);
    const figure = page.locator('#chart-wait-vs-rho');
    const select = figure.locator('select');
    const option = (await select.locator('option').allInnerTexts())[3];
    await select.selectOption({ index: 3 });
    const img = figure.locator('img');
    await img.focus();
    const summary = readCsv(path.join(out, 'mg1-service-variability', 'summary.csv'));
    const cv = option.replace(/^.*= /, '');
    const first = summary
      .filter((r) => r.service_cv === cv)
      .sort((a, b) => Number(a.rho) - Number(b.rho))[0];
    for (const key of ['ArrowDown', 'ArrowUp']) {
      const series = await figure.locator('.chart-tip .chart-series').innerText();
      const shown = await values(page);
      if (series !== option || shown[1] !== localized(first.mean_wait_ms_mean, 'en')) {
        problem(`mg1: with "${option}" picked, the chart shows ${series}: ${JSON.stringify(shown)}, not summary.csv's ${first.mean_wait_ms_mean}`);
      }
      await page.keyboard.press(key);
    }
    await page.screenshot({ path: path.join(shots, 'live-chart-series.png') });
    await context.close();
  }
  // Without JavaScript the figure is its image, the same file, with its SVG and PNG links.
  {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, javaScriptEnabled: false });
    const page = await watchedPage(context, () => 'saga-window live chart (JavaScript off)');
    await page.goto(pathToFileURL(path.join(out, 'site', 'config-saga-window.html')).href);
    const figure = page.locator('#chart-window-vs-step');
    const src = await figure.locator('img').getAttribute('src');
    const added = await figure.locator('.chart-csv, .chart-tip, select').count();
    const links = await figure.locator('figcaption a').allInnerTexts();
    if (src !== '../saga-window/window-vs-step.svg' || added > 0 || links.join(' ') !== 'SVG PNG') {
      problem(`saga-window without JavaScript: image ${src}, ${added} added controls, links ${links}`);
    }
    await context.close();
  }
  if (problems.length === before) {
    console.log('ok: live charts: hover, keys and tap show results.csv\'s values in the page\'s numbers; CSV saved; one series picked out; without script the image alone');
  }
}

/** The explorer on explore-lost-update's page (Turkish), from file://: the click test of
 * play.mjs (claim 1's deciding execution by its buttons, its end against the trace CSV and
 * outcomes.csv, back, a branch to another outcome), at 1280 px by clicks and at 375 px by
 * taps with nothing past the window's edge. */
async function explorer(browser, out) {
  const stem = 'explore-lost-update';
  const want = expected(path.join(out, stem, 'explore'));
  const file = pathToFileURL(path.join(out, 'site', `config-${stem}.html`)).href;
  for (const width of [1280, 375]) {
    const touch = width === 375;
    const context = await browser.newContext({ viewport: { width, height: 900 }, hasTouch: touch, isMobile: touch });
    const label = `explorer at ${width} px`;
    const before = problems.length;
    const page = await watchedPage(context, () => label);
    await page.goto(file);
    if (await page.locator('.explorer-point').count() > 0) await page.selectOption('.explorer-point', String(want.claim.p));
    const played = await playClaim(page, page.locator('.explorer'), want, { label, fail: problem, touch, width });
    await page.locator('.explorer').screenshot({ path: path.join(shots, `explorer-${width}.png`) });
    await context.close();
    if (problems.length === before) console.log(`ok: ${label}: claim ${want.claim.c}'s execution played by its buttons (${played.events} events) to outcome ${want.claim.o + 1} of outcomes.csv; a branch reached outcome ${played.other}; back restores each state`);
  }
}

fs.mkdirSync(shots, { recursive: true });
const current = report([]);
const { out, last } = current;
console.log(`report: ${last} (site in ${out})`);
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const pages = await crawl(context, out);
  await index(context, out, last);
  await provenance(context, out, { screenshot: true });
  await language(context, out);
  await context.close();
  await liveCharts(browser, out);
  const noScript = await browser.newContext({ javaScriptEnabled: false });
  await provenance(noScript, out, { screenshot: false });
  await noScript.close();
  await layout(browser, out, pages, 375);
  await layout(browser, out, pages, 1280);
  await inView(browser, 390, false);
  await inView(browser, 390, true);
  await inView(browser, 900, false);
  await inView(browser, 900, true);
  await markup(browser);
  await stepsInLesson(browser);
  await explorer(browser, out);
} finally {
  await browser.close();
}
console.log(`screenshots: ${shots}`);
if (problems.length > 0) {
  console.log(`${problems.length} problem(s)`);
  process.exit(1);
}
console.log('site: every check passed');
