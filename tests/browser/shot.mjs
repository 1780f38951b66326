import { chromium } from 'playwright-core';
const files = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const page = await browser.newPage({ viewport: { width: 360, height: 700 }, deviceScaleFactor: 2 });
for (const f of files) {
  await page.goto('file://' + f, { waitUntil: 'load' });
  await page.screenshot({ path: '/tmp/shot-' + f.split('/').slice(-2).join('-') + '.png', fullPage: true });
}
await browser.close();
