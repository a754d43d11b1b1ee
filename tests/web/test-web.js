// SPDX-License-Identifier: MIT
// The playground in a real browser: serves $BUILD/web on 127.0.0.1, drives
// Debian's headless chromium with puppeteer-core, and compares what the
// page shows with the native command line ($BUILD/hardsoft).
//   BUILD=build node tests/web/test-web.js
// HS_WEB_SCREENSHOT: where to save the screenshot (default
// $BUILD/web-test/playground.png). Prints the page's size and the time
// from navigation to the first decisions; exits 1 on any failure.
'use strict';
const assert = require('node:assert/strict');
const {execFileSync} = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');

const BUILD = path.resolve(process.env.BUILD || 'build');
const SITE = path.join(BUILD, 'web');
const CLI = path.join(BUILD, 'hardsoft');
const OUT = path.join(BUILD, 'web-test');
const SHOT = process.env.HS_WEB_SCREENSHOT || path.join(OUT, 'playground.png');
const puppeteer = require(path.join(BUILD, 'node-web', 'node_modules', 'puppeteer-core'));

const PROGRAMS = {
  dyck1: 'C_open = # "("\nC_close = # ")"\nV = C_open < C_close\nCV = # V\n' +
         'M = (CV == 0)\nB = (C_open == C_close)\nD = M && B',
  astarbstar: 'a = token "a"\nb = token "b"\nb_before = rightmost j < i : b ? true : false\n' +
              'bad = !a & !b | a & b_before\never_bad = rightmost j <= i : bad ? true : false\n' +
              'ok = !ever_bad',
};

// Views opened by fragment: formulas and programs in pe, temp and hard.
const VIEWS = [
  {lang: 'ltl', f: 'a S b', mode: 'pe', mu: 8, s: 'aabaa', expect: '00111'},
  {lang: 'ltl', f: 'a U b', mode: 'temp', mu: 2.2, s: 'aaabcab'}, // not a step of the slider
  {lang: 'ltl', f: 'Y a | X b', mode: 'hard', mu: 4, s: 'abbaab'},
  {lang: 'ltl', f: '#<(a) > #<(b)', mode: 'pe', mu: 4, s: 'aabbbaab'},
  {lang: 'ltl', f: 'G (a -> F b)', mode: 'rel', mu: 6, s: 'abaacb'},
  {lang: 'crasp', f: PROGRAMS.dyck1, mode: 'pe', mu: 8, s: '( ( ) ) ( ) )'},
  {lang: 'crasp', f: PROGRAMS.dyck1, mode: 'temp', mu: 4, s: '( ) ( ( )'},
  {lang: 'brasp', f: PROGRAMS.astarbstar, mode: 'hard', mu: 4, s: 'a a b b a'},
  {lang: 'brasp', f: PROGRAMS.astarbstar, mode: 'temp', mu: 4, s: 'a b b'},
  {lang: 'regex', f: 'a+ b+ a+', mode: 'pe', mu: 8, s: 'a a b a a', expect: '00011'},
  {lang: 'regex', f: '(aa)*', mode: 'rel', mu: 8, s: 'a a a a a', expect: '01010'},
];

const fragment = (v) => '#' + ['lang', 'f', 'mode', 'mu', 's']
  .map((k) => `${k}=${encodeURIComponent(String(v[k]))}`).join('&');

function cli(v, mode) {
  const args = ['eval', '--lang', v.lang, v.f, '--mode', mode, '--quiet'];
  if (mode !== 'hard' && mode !== 'truth') args.push('--scale', String(v.mu));
  // (a byte no atom names is the page's note and the command line's warning)
  return execFileSync(CLI, [...args, '--', v.s], {encoding: 'utf8', stdio: 'pipe'}).trim();
}

function cliError(text, args = [], s = 'ab') {
  try {
    execFileSync(CLI, ['eval', ...args, text, '--quiet', '--', s], {encoding: 'utf8', stdio: 'pipe'});
  } catch (e) {
    return e.stderr.trim();
  }
  throw new Error(`the command line accepted '${text}' on '${s}'`);
}

const MIME = {'.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
              '.wasm': 'application/wasm'};

function serve() {
  const server = http.createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    const file = path.join(SITE, name || 'index.html');
    if (!file.startsWith(SITE + path.sep) || !fs.existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, {'Content-Type': MIME[path.extname(file)] || 'application/octet-stream'});
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// Waits until the page has drawn the view its address names.
async function shown(page) {
  await page.waitForFunction(() => window.hardsoft && window.hardsoft.shownFor === location.hash,
                             {timeout: 15000});
}

async function open(page, base, v) {
  await page.goto(base + fragment(v));
  await shown(page);
}

const text = (page, id) => page.$eval('#' + id, (e) => e.textContent);

async function targetWeight(page, layer, head) {
  return page.$eval(`.target-weight[data-layer="${layer}"][data-head="${head}"]`,
                    (e) => Number(e.dataset.min));
}

async function main() {
  fs.mkdirSync(OUT, {recursive: true});
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'hs-chromium-'));
  const server = await serve();
  const base = `http://127.0.0.1:${server.address().port}/index.html`;
  const browser = await puppeteer.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync',
           `--user-data-dir=${profile}`],
  });
  let failures = 0;
  const step = async (name, fn) => {
    try {
      await fn();
      console.log(`ok   ${name}`);
    } catch (e) {
      failures++;
      console.log(`FAIL ${name}: ${e.message}`);
    }
  };
  try {
    const page = await browser.newPage();
    await page.setViewport({width: 1100, height: 1400});
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    // Any request off 127.0.0.1 fails the test: the page runs offline.
    page.on('request', (r) => {
      if (!r.url().startsWith(`http://127.0.0.1:${server.address().port}/`)) errors.push('request ' + r.url());
    });

    await step('time to first decisions', async () => {
      await open(page, base, VIEWS[0]);
      const ms = await page.evaluate(() => window.hardsoft.firstDecisionsMs);
      assert.ok(ms > 0);
      const files = fs.readdirSync(SITE);
      const size = (f) => fs.statSync(path.join(SITE, f)).size;
      const load = {bytes: files.reduce((t, f) => t + size(f), 0), files: files.length,
                    wasm_bytes: files.filter((f) => f.endsWith('.wasm')).reduce((t, f) => t + size(f), 0),
                    first_decisions_ms: ms, browser: await browser.version()};
      fs.writeFileSync(path.join(OUT, 'load.json'), JSON.stringify(load, null, 1) + '\n');
      console.log(`     page ${(load.bytes / 1024).toFixed(0)} KiB in ${load.files} files; ` +
                  `first decisions ${ms.toFixed(0)} ms after navigation`);
    });

    await step('chromium runs SIMD128: the page loaded the wasm128 kernels', async () => {
      await open(page, base, VIEWS[0]);
      assert.equal(await page.evaluate(() => window.hardsoft.isa), 'wasm128');
      assert.equal(await text(page, 'isa'), 'wasm128');
    });

    // An engine without SIMD128 (the probe module fails validation) gets
    // the plain library and its scalar kernels, with the same decisions.
    await step('without SIMD128 the page loads the plain library', async () => {
      const plain = await browser.newPage();
      plain.on('pageerror', (e) => errors.push(e.message));
      await plain.evaluateOnNewDocument(() => {
        const validate = WebAssembly.validate;
        WebAssembly.validate = (b) => (b.length < 64 ? false : validate(b));
      });
      for (const v of [VIEWS[0], VIEWS[2], VIEWS[5]]) {
        await open(plain, base, v);
        assert.equal(await plain.evaluate(() => window.hardsoft.isa), 'scalar');
        assert.equal(await text(plain, 'decisions'), cli(v, v.mode), `${v.f} ${v.mode}`);
      }
      await plain.close();
    });

    for (const v of VIEWS)
      await step(`${v.lang} ${JSON.stringify(v.f.length > 24 ? v.f.slice(0, 24) + '...' : v.f)} ` +
                 `${v.mode} mu=${v.mu} on "${v.s}"`, async () => {
        await open(page, base, v);
        const dec = await text(page, 'decisions'), truth = await text(page, 'truth');
        assert.equal(dec, cli(v, v.mode), 'decisions differ from hardsoft eval');
        assert.equal(truth, cli(v, 'truth'), 'truth differs from hardsoft eval --mode truth');
        if (v.expect) assert.equal(dec, v.expect);
        const model = await text(page, 'model');
        assert.match(model, new RegExp(`mode: ${v.mode}` + (v.mode === 'hard' ? '' : ` \\(scale mu = ${v.mu}\\)`)));
      });

    await step('every example of the menu against hardsoft eval', async () => {
      await open(page, base, {lang: 'ltl', f: 'a', mode: 'temp', mu: 4, s: 'a'});
      const names = await page.$$eval('#example option', (o) => o.map((e) => e.value).filter(Boolean));
      assert.ok(names.length >= 5);
      for (const name of names) {
        await page.select('#example', name);
        await shown(page);
        const v = await page.evaluate(() => ({lang: document.getElementById('lang').value,
                                               f: document.getElementById('text').value,
                                               s: document.getElementById('s').value, mode: 'temp', mu: 4}));
        const dec = await text(page, 'decisions');
        assert.ok(dec.length > 0, name);
        assert.equal(dec, cli(v, 'temp'), name);
      }
    });

    await step('check on short strings agrees', async () => {
      await open(page, base, VIEWS[0]);
      await page.waitForFunction(() => document.getElementById('check').dataset.positions, {timeout: 15000});
      const c = await page.$eval('#check', (e) => ({a: Number(e.dataset.agree), p: Number(e.dataset.positions)}));
      assert.ok(c.p > 100, `only ${c.p} positions checked`);
      assert.equal(c.a, c.p);
    });

    for (const mode of ['pe', 'temp'])
      await step(`mu slider sharpens the since head (${mode})`, async () => {
        await open(page, base, {lang: 'ltl', f: 'a S b', mode, mu: 0.5, s: 'abaaaaa'});
        // the since head is layer 1's only head
        const weights = [await targetWeight(page, 1, 0)];
        await page.focus('#mu');
        for (let k = 0; k < 4; k++) {
          for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
          await shown(page);
          weights.push(await targetWeight(page, 1, 0));
        }
        const mu = await page.$eval('#mu', (e) => Number(e.value));
        assert.equal(mu, 0.5 + 24 * 0.25);
        assert.match(await page.evaluate(() => location.hash), new RegExp(`&mu=${mu}&`), 'the address follows mu');
        for (let i = 1; i < weights.length; i++)
          assert.ok(weights[i] > weights[i - 1], `weight on the hard target ${weights.join(' -> ')}`);
        assert.ok(weights[weights.length - 1] > 0.75, `weight at mu=${mu}: ${weights[weights.length - 1]}`);
        console.log(`     smallest weight on the hard target: ${weights.map((w) => w.toFixed(3)).join(' -> ')}`);
      });

    await step('a malformed formula shows the library message with its column', async () => {
      const bad = 'a S (b & c';
      await open(page, base, {lang: 'ltl', f: bad, mode: 'pe', mu: 4, s: 'ab'});
      const err = await text(page, 'error');
      const msg = cliError(bad).replace(/^hardsoft: error: /, '');
      assert.ok(err.includes(msg), `page says ${JSON.stringify(err)}, the command line ${JSON.stringify(msg)}`);
      assert.match(err, /column 11/);
      assert.equal(await text(page, 'decisions'), '');
    });

    // a token the program does not name: the command line's message (its
    // --unknown hint is the command line's own)
    for (const s of ['( ( x )', '(()'])
      await step(`an unknown token is an error: "${s}"`, async () => {
        await open(page, base, {lang: 'crasp', f: PROGRAMS.dyck1, mode: 'pe', mu: 4, s});
        const err = await text(page, 'error');
        const msg = cliError(PROGRAMS.dyck1, ['--lang', 'crasp'], s)
          .replace(/^hardsoft: error: /, '').replace(/ \(--unknown other .*\)$/, '');
        assert.ok(msg.startsWith('unknown token'), msg);
        assert.ok(err.includes(msg), `page says ${JSON.stringify(err)}, the command line ${JSON.stringify(msg)}`);
        assert.equal(await text(page, 'decisions'), '');
      });

    await step('a byte no atom names is noted', async () => {
      await open(page, base, {lang: 'ltl', f: 'a S b', mode: 'pe', mu: 4, s: 'abca'});
      assert.match(await text(page, 'input-hint'), /'c' \(position 3\) is a byte no atom names/);
      assert.equal(await text(page, 'decisions'), cli({lang: 'ltl', f: 'a S b', mu: 4, s: 'abca'}, 'pe'));
      await open(page, base, {lang: 'ltl', f: 'a S b', mode: 'pe', mu: 4, s: 'abba'});
      assert.doesNotMatch(await text(page, 'input-hint'), /no atom/);
    });

    await step('a run past the exact region says so', async () => {
      const f = '10000*#<(a) > 9999*#<(b) + #<(c)';
      await open(page, base, {lang: 'ltl', f, mode: 'pe', mu: 4, s: 'abc'.repeat(30)});
      const said = await text(page, 'agreement');
      assert.match(said, /not proven: at n = 90 the counting comparisons pass their exact region in float32 \(n <= 69/);
      await open(page, base, {lang: 'ltl', f, mode: 'pe', mu: 4, s: 'abc'.repeat(20)});
      assert.doesNotMatch(await text(page, 'agreement'), /not proven/);
    });

    // the tie-string scan on the page (its sign is layer norm's): p*#<(a)
    // REL q*#<(b) on the library's tie strings (hs_model_tie_string's
    // families: a prefix that puts p'#a - q'#b at t = 0 or +-1, filler no
    // atom names, then periods (a^q' b^p')* that keep it there), up to the
    // region the page's model text states (and fixed mode's own n <= mu /
    // ln 7): every position agrees with the logic and nothing is unproven
    await step('the tie-string scan inside the stated region', async () => {
      const rels = ['<', '<=', '=', '!=', '>=', '>'];
      const gcd = (x, y) => (y ? gcd(y, x % y) : x);
      const tie = (p, q, t, n) => {
        const g = gcd(p, q), a = p / g, b = q / g;
        let pp = 0;
        while (pp < b && ((a * pp - t) % b + b) % b) pp++;
        let pq = (a * pp - t) / b;
        while (pq < 0) pp += b, pq += a;
        if (pp + pq > n) return null;
        const s = 'a'.repeat(pp) + 'b'.repeat(pq) + 'c'.repeat((n - pp - pq) % (a + b));
        return (s + ('a'.repeat(b) + 'b'.repeat(a)).repeat(Math.ceil(n / (a + b)))).slice(0, n);
      };
      let strings = 0, i = 0;
      for (const [p, q] of [[918, 1530], [40, 41], [3001, 2999], [2999, 3001], [10000, 9999]])
        for (const mode of ['hard', 'pe', 'temp', 'rel', 'fixed']) {
          const f = `${p}*#<(a) ${rels[i++ % 6]} ${q}*#<(b)`, mu = mode === 'fixed' ? 64 : 16;
          await open(page, base, {lang: 'ltl', f, mode, mu, s: 'ab'});
          const stated = (await text(page, 'model')).match(/exact region of the counting comparisons: n <= (\d+) in f32/);
          assert.ok(stated, `${f}: the page states no region`);
          let n = Math.min(Number(stated[1]), 4096);
          if (mode === 'fixed') n = Math.min(n, Math.floor(mu / Math.log(7)));
          for (const t of [0, 1, -1]) {
            const s = tie(p, q, t, n);
            if (!s) continue;
            await open(page, base, {lang: 'ltl', f, mode, mu, s});
            const said = await text(page, 'agreement');
            assert.match(said, new RegExp(`^${n} of ${n} positions agree`), `${f} ${mode} t = ${t} at n = ${n}`);
            assert.doesNotMatch(said, /not proven/, `${f} ${mode} at n = ${n}`);
            strings++;
          }
        }
      assert.ok(strings >= 40, `only ${strings} tie strings inside the stated regions`);
      console.log(`     ${strings} tie strings`);
    });

    // the table of wrong inputs every door runs (tests/wrong-inputs.tsv)
    const table = fs.readFileSync(path.join(__dirname, '..', 'wrong-inputs.tsv'), 'utf8')
      .split('\n').filter((l) => l.trim() && !l.startsWith('#')).map((l) => l.split('\t'))
      .filter(([, doors]) => doors.split(',').includes('web'));
    await step(`the table of wrong inputs (${table.length} rows for the page)`, async () => {
      assert.ok(table.length >= 4);
      for (const [name, , input, want] of table) {
        const [kind, ...rest] = input.split(':');
        let v = {lang: 'ltl', f: rest.join(':'), mode: 'pe', mu: 4, s: 'ab'};
        if (kind === 'text') v.f = fs.readFileSync(path.join(__dirname, '..', '..', rest[0]), 'utf8');
        if (kind === 'tokens')
          v = {lang: {'.cr': 'crasp', '.re': 'regex'}[path.extname(rest[0])] || 'brasp',
               f: fs.readFileSync(path.join(__dirname, '..', '..', rest[0]), 'utf8'),
               mode: 'pe', mu: 4, s: rest.slice(1).join(':')};
        await open(page, base, v);
        const err = await text(page, 'error');
        assert.match(err.split('\n')[0], new RegExp(want), name);
      }
    });

    await step('a malformed program shows line and column', async () => {
      await open(page, base, {lang: 'crasp', f: 'A = # "a"\nB = A <', mode: 'pe', mu: 4, s: 'a'});
      assert.match(await text(page, 'error'), /line 2, column \d+/);
    });

    await step('precision boundary: the grid against hardsoft boundary', async () => {
      const v = {lang: 'ltl', f: 'a S b', mode: 'pe', mu: 8, s: 'ab'};
      await open(page, base, v);
      await page.click('#boundary-run');
      await page.waitForFunction(() => !document.getElementById('boundary-run').disabled &&
                                 document.querySelectorAll('#boundary td[data-n]').length > 0,
                                 {timeout: 40000});
      const cells = await page.$$eval('#boundary td[data-n]',
                                      (t) => t.map((e) => [e.dataset.mode, e.dataset.prec, Number(e.dataset.n), e.textContent]));
      const ns = [...new Set(cells.map((c) => c[2]))];
      assert.equal(cells.length, 2 * 5 * ns.length);
      const rows = {};
      let crossed = 0;
      for (const [mode, prec, n, mark] of cells) {
        rows[`${mode} ${prec}`] = (rows[`${mode} ${prec}`] || '') + mark;
        if (prec === 'f32') assert.equal(mark, '✓', `${mode} f32 at n=${n}`);
      }
      // where the command line's search first fails, the page's grid fails too
      for (const key of Object.keys(rows)) {
        const [mode, prec] = key.split(' ');
        const row = execFileSync(CLI, ['boundary', v.f, '--mode', mode, '--scale', String(v.mu),
                                       '--precision', prec, '--max-n', String(Math.max(...ns)), '--quiet'],
                                 {encoding: 'utf8'}).trim().split(',');
        const first = Number(row[5]);
        const at = cells.find((c) => c[0] === mode && c[1] === prec && c[2] === first);
        if (at) { assert.equal(at[3], '×', `${key} at n=${first}`); crossed++; }
      }
      assert.ok(crossed >= 2, `only ${crossed} failing lengths of hardsoft boundary fall on the grid`);
      console.log(`     n: ${ns.join(' ')}`);
      for (const [k, r] of Object.entries(rows)) console.log(`     ${k.padEnd(11)} ${r}`);
    });

    await step('screenshot', async () => {
      await open(page, base, {lang: 'ltl', f: '(a S b) & X (b U c)', mode: 'pe', mu: 2, s: 'abacbbca'});
      await page.waitForFunction(() => document.getElementById('check').dataset.positions, {timeout: 15000});
      const bottom = await page.$eval('#check-section', (e) => e.getBoundingClientRect().bottom + window.scrollY);
      await page.screenshot({path: SHOT, clip: {x: 0, y: 0, width: 1100, height: Math.ceil(bottom) + 8}});
      assert.ok(fs.statSync(SHOT).size > 10000);
      console.log(`     ${SHOT}`);
    });

    await step('no page errors and no request off 127.0.0.1', async () => {
      assert.deepEqual(errors, []);
    });
  } finally {
    await browser.close();
    server.close();
    fs.rmSync(profile, {recursive: true, force: true});
  }
  if (failures) {
    console.log(`test-web: ${failures} failed`);
    process.exit(1);
  }
  console.log('test-web: all passed');
}

main().catch((e) => {
  console.error('test-web:', e);
  process.exit(1);
});
