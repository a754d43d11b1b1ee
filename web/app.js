// SPDX-License-Identifier: MIT
// The playground: the view's state lives in the URL fragment
// (#lang=ltl&f=...&mode=...&mu=...&s=...&prec=...), the library is reached
// through web/hardsoft-web.c and the public calls it exports, and every
// picture is drawn on a canvas. Nothing is fetched but the page's own files.
'use strict';

const EXAMPLES = [
  {name: 'a since b', lang: 'ltl', f: 'a S b', s: 'aabaa'},
  {name: 'a until b', lang: 'ltl', f: 'a U b', s: 'aaabcab'},
  {name: 'yesterday a', lang: 'ltl', f: 'Y a', s: 'abaab'},
  {name: 'more a than b so far', lang: 'ltl', f: '#<(a) > #<(b)', s: 'aabbbaa'},
  {name: 'no b since the last a', lang: 'ltl', f: '!b S a', s: 'abcacb'},
  {name: 'Dyck-1 (C-RASP)', lang: 'crasp', s: '( ( ) ) ( )', f:
    'C_open = # "("\nC_close = # ")"\nV = C_open < C_close\nCV = # V\n' +
    'M = (CV == 0)\nB = (C_open == C_close)\nD = M && B'},
  {name: 'a*b* (B-RASP)', lang: 'brasp', s: 'a a b b a', f:
    'a = token "a"\nb = token "b"\nb_before = rightmost j < i : b ? true : false\n' +
    'bad = !a & !b | a & b_before\never_bad = rightmost j <= i : bad ? true : false\n' +
    'ok = !ever_bad'},
  {name: 'a+ b+ a+: L3 of Knee-Deep (regex)', lang: 'regex', f: 'a+ b+ a+', s: 'a a b a a b'},
  {name: 'Dyck-1 of depth <= 2: D2 of Bhattamishra et al. (regex)', lang: 'regex',
    f: '(a(ab)*b)*', s: 'a a b a b b a b'},
  {name: 'flip-flop: reads return the last write (regex)', lang: 'regex',
    f: '(w0(i(0|1)|r0)*|w1(i(0|1)|r1)*)*', s: 'w 1 i 0 r 1 w 0 r 0 r 1'},
  {name: '(aa)*, through @mod(2, r) (regex)', lang: 'regex', f: '(aa)*', s: 'a a a a a'},
];
const DEFAULTS = {lang: 'ltl', f: 'a S b', mode: 'temp', mu: '4', s: 'aabaa', prec: 'f32'};
const PRECISIONS = ['f32', 'f16', 'bf16', 'f16s', 'bf16s'];
// 2^k + 1: a power of two is often exactly representable where its
// neighbours are not, so the grid shows where the neighbours break
const BOUNDARY_NS = [17, 33, 65, 129, 257, 513, 1025];
const CHECK_MAX_STRINGS = 2000; // the exhaustive check's budget per view
const HEATMAP_MAX_N = 96;       // a longer string's heatmaps are not drawn
const RUN_MAX_N = 4096;         // a longer input is refused (a pass is O(n^2))
const $ = (id) => document.getElementById(id);

let M = null;        // the WebAssembly module
let lib = null;      // its calls, wrapped
let view = null;     // the current compiled program (an hsweb pointer)
let checkTimer = 0;
let generation = 0;  // bumped by every view: a boundary search of an older one stops
window.hardsoft = {firstDecisionsMs: null, isa: null, shownFor: null};

// ------------------------------------------------------------ the fragment

function readFragment() {
  const st = Object.assign({}, DEFAULTS);
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    // decodeURIComponent, not URLSearchParams: '+' is a formula's plus
    try { st[part.slice(0, eq)] = decodeURIComponent(part.slice(eq + 1)); } catch (e) { /* keep the default */ }
  }
  return st;
}

function writeFragment(st) {
  const keys = ['lang', 'f', 'mode', 'mu', 's', 'prec'];
  const frag = '#' + keys.map((k) => k + '=' + encodeURIComponent(st[k])).join('&');
  if (frag !== location.hash) history.replaceState(null, '', frag);
}

function controlsToState() {
  return {lang: $('lang').value, f: $('text').value, mode: $('mode').value,
          mu: $('mu-num').value, s: $('s').value, prec: $('prec').value};
}

function stateToControls(st) {
  $('lang').value = ['ltl', 'crasp', 'brasp', 'regex'].includes(st.lang) ? st.lang : 'ltl';
  $('text').value = st.f;
  $('mode').value = ['hard', 'pe', 'temp', 'fixed', 'rel'].includes(st.mode) ? st.mode : 'temp';
  // the number holds the exact mu of the address, the slider its nearest step
  $('mu-num').value = st.mu;
  $('mu').value = st.mu;
  $('s').value = st.s;
  $('prec').value = ['f32', 'f64', ...PRECISIONS].includes(st.prec) ? st.prec : 'f32';
}

// ------------------------------------------------------------ the library

function bindLibrary() {
  const n = 'number', s = 'string';
  lib = {
    newView: M.cwrap('hsweb_new', n, [s, s, s, n]),
    free: M._hsweb_free,
    run: M.cwrap('hsweb_run', n, [n, n, n, s, n, n, n, n]),
    headDesc: (h, l, k) => M.UTF8ToString(M._hsweb_head_desc(h, l, k)),
    unproven: M.cwrap('hsweb_unproven', s, [n, n, s]),
    describe: (h) => M.UTF8ToString(M._hsweb_describe(h)),
    // the library names a limit "(limit NAME)"; the page cannot raise it
    error: () => ({msg: (M.UTF8ToString(M._hsweb_error_msg()) + M.UTF8ToString(M._hsweb_error_hint()))
                     .replace(/\(limit (\w+)\)/, '(the page\'s $1 limit)'),
                   line: M._hsweb_error_line(), column: M._hsweb_error_column()}),
  };
}

// A block of wasm memory for the duration of fn.
function withMem(bytes, fn) {
  const p = M._malloc(Math.max(bytes, 8));
  try { return fn(p); } finally { M._free(p); }
}

// The positions a view reads from the input line: bytes for a formula,
// the program's token bytes for a program; labels to show for each. A
// token the program does not name is an error (as on the command line);
// a byte no atom of a formula names gets a note (every atom is false
// there).
function tokenize(h, lang, line) {
  const utf8 = new TextEncoder().encode(line);
  if (lang === 'ltl') {
    const labels = Array.from(utf8, (b) => String.fromCharCode(b));
    const named = alphabet(h);
    const i = named.length ? utf8.findIndex((b) => !named.includes(b)) : -1;
    const note = i < 0 ? '' : `'${labels[i]}' (position ${i + 1}) is a byte no atom names: ` +
      'every atom is false there';
    return {bytes: utf8, labels, note};
  }
  return withMem(utf8.length + 8, (p) => {
    M.HEAPU8.set(utf8, p);
    const np = p + utf8.length + 4 - (p + utf8.length) % 4;
    if (M._hs_program_encode(M._hsweb_program(h), p, utf8.length, 0, p, np,
                             M._hsweb_error()) !== 0)
      return {error: lib.error()};
    const n = M.HEAPU32[np >> 2];
    return {bytes: M.HEAPU8.slice(p, p + n), labels: line.trim() ? line.trim().split(/\s+/) : []};
  });
}

// Model decisions and the logic's answer over bytes w; null on error.
function run(h, w, prec) {
  const n = w.length;
  return withMem(3 * n + 8 * n + 16, (p) => {
    const bits = p + n, truth = p + 2 * n;
    const vals = (p + 3 * n + 7) & ~7, err = vals + 8 * n;
    M.HEAPU8.set(w, p);
    if (lib.run(h, p, n, prec, bits, vals, truth, err) !== 0) return null;
    return {bits: M.HEAPU8.slice(bits, bits + n), truth: M.HEAPU8.slice(truth, truth + n),
            values: M.HEAPF64.slice(vals >> 3, (vals >> 3) + n),
            attnError: M.HEAPF64[err >> 3]};
  });
}

// Symbols the text names plus one it does not (as hardsoft check).
function symbols(h, lang) {
  const p = M._hsweb_program(h);
  if (lang !== 'ltl') {
    const syms = [];
    for (let k = 0; k < M._hs_program_vocab_size(p); k++)
      syms.push({byte: M._hs_program_token_byte(p, k), label: M.UTF8ToString(M._hs_program_token(p, k))});
    syms.push({byte: M._hs_program_other_byte(p), label: '?'});
    return syms;
  }
  const named = alphabet(h);
  const syms = named.map((b) => ({byte: b, label: String.fromCharCode(b)}));
  for (const c of '#_.xyz0123456789')
    if (!named.includes(c.charCodeAt(0))) { syms.push({byte: c.charCodeAt(0), label: c}); break; }
  return syms;
}

// The bytes some atom of the view's formula names.
function alphabet(h) {
  return withMem(256, (set) => {
    M._hs_program_alphabet(M._hsweb_program(h), set);
    const named = [];
    for (let b = 0; b < 256; b++) if (M.HEAPU8[set + b]) named.push(b);
    return named;
  });
}

// ------------------------------------------------------------ the view

function showError(text, e) {
  const box = $('error');
  let out = 'error: ' + e.msg;
  if (e.column > 0) {
    const lines = text.split('\n');
    const line = lines[Math.max(e.line, 1) - 1];
    if (line !== undefined) out += '\n' + line + '\n' + ' '.repeat(e.column - 1) + '^';
  }
  box.textContent = out;
  box.hidden = false;
}

function clearResults() {
  for (const id of ['decisions', 'truth', 'agreement', 'check', 'model']) $(id).textContent = '';
  $('positions').replaceChildren();
  $('heatmaps').replaceChildren();
  $('boundary').replaceChildren();
}

// Draws the view the controls describe; window.hardsoft.shownFor then
// names the fragment it shows (for scripts that wait on it).
function update() {
  try { show(); } finally { window.hardsoft.shownFor = location.hash; }
}

function show() {
  const st = controlsToState();
  generation++;
  clearTimeout(checkTimer);
  writeFragment(st);
  $('mu').disabled = $('mu-num').disabled = st.mode === 'hard';
  $('input-hint').textContent = st.lang === 'ltl' ? '(one position per character)'
                                                 : '(tokens separated by spaces)';
  if (view) lib.free(view);
  view = lib.newView(st.lang, st.f, st.mode, Number(st.mu));
  $('boundary').replaceChildren();
  if (!view) {
    clearResults();
    showError(st.f, lib.error());
    return;
  }
  $('error').hidden = true;
  $('model').textContent = lib.describe(view);
  const {bytes, labels, note, error} = tokenize(view, st.lang, st.s);
  if (error) {
    clearResults();
    $('model').textContent = lib.describe(view);
    showError('', error);
    return;
  }
  if (note) $('input-hint').textContent = `(one position per character; ${note})`;
  if (bytes.length > RUN_MAX_N) {
    clearResults();
    $('model').textContent = lib.describe(view);
    showError('', {msg: `the input has ${bytes.length} positions; the page runs at most ${RUN_MAX_N}`,
                   line: 0, column: 0});
    return;
  }
  const r = run(view, bytes, st.prec);
  if (!r) {
    clearResults();
    showError('', lib.error());
    return;
  }
  showDecisions(labels, r);
  // a run outside what the construction proves exact says so (as the
  // command line's warning does)
  const why = lib.unproven(view, bytes.length, st.prec);
  if (why) $('agreement').textContent += `; not proven: ${why}`;
  if (window.hardsoft.firstDecisionsMs === null) window.hardsoft.firstDecisionsMs = performance.now();
  drawHeatmaps(view, bytes, labels);
  $('check').textContent = 'checking...';
  $('check').className = '';
  delete $('check').dataset.positions;
  checkTimer = setTimeout(() => runCheck(st), 120);
}

function showDecisions(labels, r) {
  const n = r.bits.length;
  $('decisions').textContent = Array.from(r.bits).join('');
  $('truth').textContent = Array.from(r.truth).join('');
  const rows = [['position', (i) => String(i + 1)], ['input', (i) => labels[i] ?? ''],
                ['model', (i) => String(r.bits[i])], ['logic', (i) => String(r.truth[i])],
                ['value', (i) => r.values[i].toPrecision(3)]];
  const table = $('positions');
  table.replaceChildren();
  for (const [head, cell] of rows) {
    const tr = table.insertRow();
    const th = document.createElement('th');
    th.textContent = head;
    tr.appendChild(th);
    for (let i = 0; i < n; i++) {
      const td = tr.insertCell();
      td.textContent = cell(i);
      if (r.bits[i] !== r.truth[i]) td.className = 'bad';
    }
  }
  let agree = 0;
  for (let i = 0; i < n; i++) agree += r.bits[i] === r.truth[i];
  $('agreement').textContent = `${agree} of ${n} positions agree; largest weight off a hard ` +
    `target ${r.attnError.toPrecision(3)}`;
}

// ------------------------------------------------------------ heatmaps

function drawHeatmaps(h, w, labels) {
  const box = $('heatmaps');
  box.replaceChildren();
  const n = w.length, m = M._hsweb_model(h), N = n + 1;
  if (n > HEATMAP_MAX_N) {
    box.textContent = `(heatmaps are drawn for strings of at most ${HEATMAP_MAX_N} positions)`;
    return;
  }
  for (let l = 0; ; l++) {
    const nh = M._hs_model_layer_nheads(m, l);
    if (nh < 0) break;
    if (nh === 0) continue;
    withMem(n + 8 * 2 * nh * N * N + 4 * nh * N + 16, (p) => {
      const weights = (p + n + 7) & ~7, hard = weights + 8 * nh * N * N;
      const target = hard + 8 * nh * N * N;
      M.HEAPU8.set(w, p);
      if (M._hs_attention(m, p, n, 0, l, weights, hard, target, M._hsweb_error()) !== 0) {
        box.appendChild(document.createTextNode('attention: ' + lib.error().msg));
        return;
      }
      for (let k = 0; k < nh; k++) {
        const W = M.HEAPF64.subarray((weights >> 3) + k * N * N, (weights >> 3) + (k + 1) * N * N);
        const H = M.HEAPF64.subarray((hard >> 3) + k * N * N, (hard >> 3) + (k + 1) * N * N);
        box.appendChild(heatmap(l, k, lib.headDesc(h, l, k), W, H, N, labels));
      }
    });
  }
}

// The weight each query row puts on the keys its hard attention picks.
function hardMass(W, H, N) {
  let min = Infinity, sum = 0, rows = 0;
  for (let i = 0; i < N; i++) {
    let mass = 0, any = false;
    for (let j = 0; j < N; j++) if (H[i * N + j] > 0) { mass += W[i * N + j]; any = true; }
    if (!any) continue;
    min = Math.min(min, mass);
    sum += mass;
    rows++;
  }
  return rows ? {min, mean: sum / rows} : null;
}

function heatmap(l, k, desc, W, H, N, labels) {
  const fig = document.createElement('figure');
  fig.className = 'head';
  const cap = document.createElement('figcaption');
  cap.textContent = `layer ${l}, head ${k}: ${desc}`;
  const mass = hardMass(W, H, N);
  const tw = document.createElement('div');
  tw.className = 'target-weight';
  tw.dataset.layer = l;
  tw.dataset.head = k;
  if (mass) {
    tw.dataset.min = mass.min;
    tw.dataset.mean = mass.mean;
    tw.textContent = `weight on the hard target: smallest ${mass.min.toFixed(4)}, ` +
                     `mean ${mass.mean.toFixed(4)}`;
  } else tw.textContent = 'no hard counterpart';
  const cell = Math.max(6, Math.min(26, Math.floor(360 / N)));
  const margin = cell >= 12 ? 16 : 0;
  const cv = document.createElement('canvas');
  cv.width = margin + N * cell + 1;
  cv.height = margin + N * cell + 1;
  const g = cv.getContext('2d');
  g.font = `${Math.min(12, cell)}px monospace`;
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.fillStyle = '#000';
  const label = (i) => (i === 0 ? '⊥' : (labels[i - 1] ?? '').slice(0, 2));
  if (margin)
    for (let i = 0; i < N; i++) {
      g.fillText(label(i), margin + i * cell + cell / 2, margin / 2);
      g.fillText(label(i), margin / 2, margin + i * cell + cell / 2);
    }
  for (let i = 0; i < N; i++)
    for (let j = 0; j < N; j++) {
      const v = Math.max(0, Math.min(1, W[i * N + j]));
      // white to deep blue by weight
      g.fillStyle = `rgb(${Math.round(255 - 225 * v)},${Math.round(255 - 185 * v)},${Math.round(255 - 80 * v)})`;
      g.fillRect(margin + j * cell, margin + i * cell, cell, cell);
    }
  g.strokeStyle = '#e4572e';
  g.lineWidth = Math.max(1.5, cell / 8);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < N; j++)
      if (H[i * N + j] > 0)
        g.strokeRect(margin + j * cell + 1, margin + i * cell + 1, cell - 2, cell - 2);
  fig.append(cap, cv, tw);
  return fig;
}

// ------------------------------------------------------------ check

// Every string up to the longest length whose strings fit the budget.
function runCheck(st) {
  if (!view) return;
  const syms = symbols(view, st.lang), k = syms.length;
  let L = 0, total = 1;
  while (L < 10 && total + Math.pow(k, L + 1) <= CHECK_MAX_STRINGS) total += Math.pow(k, ++L);
  let positions = 0, agree = 0, strings = 0, first = null;
  for (let len = 0; len <= L; len++) {
    const idx = new Array(len).fill(0);
    for (;;) {
      const w = Uint8Array.from(idx, (i) => syms[i].byte);
      const r = run(view, w, st.prec);
      if (!r) { $('check').textContent = 'check: ' + lib.error().msg; return; }
      strings++;
      for (let i = 0; i < len; i++) {
        positions++;
        if (r.bits[i] === r.truth[i]) agree++;
        else if (!first) first = {s: idx.map((x) => syms[x].label).join(st.lang === 'ltl' ? '' : ' '),
                                  pos: i + 1, model: r.bits[i], logic: r.truth[i]};
      }
      let i = 0;
      while (i < len && ++idx[i] === k) idx[i++] = 0;
      if (i === len) break;
    }
  }
  const el = $('check');
  el.dataset.agree = agree;
  el.dataset.positions = positions;
  el.textContent = `${agree} of ${positions} positions agree (${strings} strings up to length ` +
    `${L} over ${syms.map((s) => s.label).join(' ')}, ${st.prec})` +
    (first ? `; first disagreement: "${first.s}" at ${first.pos}, model ${first.model}, ` +
             `logic ${first.logic}` : '');
  el.className = agree === positions ? 'ok' : 'bad';
}

// ------------------------------------------------------------ precision boundary

// y^n with one x at position at (0-based): the boundary search's strings.
function adversarial(syms, n) {
  const out = [];
  for (const x of syms)
    for (const y of syms) {
      if (x === y && n > 1) continue;
      const seen = new Set();
      for (const at of [0, 1, 2, n - 3, n - 2, n - 1]) {
        if (at < 0 || at >= n || seen.has(at)) continue;
        seen.add(at);
        const w = new Uint8Array(n).fill(y.byte);
        w[at] = x.byte;
        out.push(w);
      }
    }
  return out;
}

function exactAt(h, syms, n, prec) {
  for (const w of adversarial(syms, n)) {
    const r = run(h, w, prec);
    if (!r) return null;
    for (let i = 0; i < n; i++) if (r.bits[i] !== r.truth[i]) return false;
  }
  return true;
}

async function boundary() {
  const st = controlsToState(), gen = generation;
  const base = ['pe', 'temp', 'fixed'].includes(st.mode) ? st.mode : 'pe';
  const table = $('boundary');
  table.replaceChildren();
  const head = table.insertRow();
  for (const t of ['mode', 'precision', ...BOUNDARY_NS.map((n) => 'n=' + n)]) {
    const th = document.createElement('th');
    th.textContent = t;
    head.appendChild(th);
  }
  $('boundary-run').disabled = true;
  try {
    for (const mode of [base, 'rel']) {
      const h = lib.newView(st.lang, st.f, mode, Number(st.mu));
      if (!h) {
        const tr = table.insertRow();
        tr.insertCell().textContent = mode;
        const td = tr.insertCell();
        td.colSpan = 1 + BOUNDARY_NS.length;
        td.textContent = lib.error().msg;
        continue;
      }
      try {
        const syms = symbols(h, st.lang);
        for (const prec of PRECISIONS) {
          const tr = table.insertRow();
          tr.insertCell().textContent = mode;
          tr.insertCell().textContent = prec;
          for (const n of BOUNDARY_NS) {
            const ok = exactAt(h, syms, n, prec);
            const td = tr.insertCell();
            td.textContent = ok === null ? '!' : ok ? '✓' : '×';
            td.className = ok ? 'ok' : 'bad';
            td.dataset.mode = mode;
            td.dataset.prec = prec;
            td.dataset.n = n;
            await new Promise((res) => setTimeout(res, 0)); // let the page draw
            if (gen !== generation) return; // the view changed
          }
        }
      } finally {
        lib.free(h);
      }
    }
  } finally {
    $('boundary-run').disabled = false;
  }
}

// ------------------------------------------------------------ start

function wire() {
  for (const ex of EXAMPLES) {
    const o = document.createElement('option');
    o.value = ex.name;
    o.textContent = ex.name;
    $('example').appendChild(o);
  }
  $('example').addEventListener('change', () => {
    const ex = EXAMPLES.find((e) => e.name === $('example').value);
    if (!ex) return;
    stateToControls(Object.assign(controlsToState(), {lang: ex.lang, f: ex.f, s: ex.s}));
    update();
  });
  for (const id of ['lang', 'mode', 'prec']) $(id).addEventListener('change', update);
  for (const id of ['text', 's', 'mu-num']) $(id).addEventListener('input', update);
  $('mu').addEventListener('input', () => { $('mu-num').value = $('mu').value; update(); });
  $('boundary-run').addEventListener('click', boundary);
  window.addEventListener('hashchange', () => { stateToControls(readFragment()); update(); });
}

// Whether this engine runs WebAssembly SIMD128: it validates a module
// whose one function returns a v128.const (an engine without SIMD128
// rejects the v128 type).
const SIMD128_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0,                 // magic, version
  1, 5, 1, 96, 0, 1, 123,                      // type: () -> v128
  3, 2, 1, 0,                                  // one function of that type
  10, 22, 1, 20, 0, 253, 12, ...new Array(16).fill(0), 11]); // v128.const 0; end

// The library built with SIMD128 where the engine runs it (its kernel
// table then picks the wasm128 kernels as the best ISA), else the plain
// one: a module with SIMD128 instructions would not even load there.
function loadLibrary() {
  const simd = WebAssembly.validate(SIMD128_PROBE);
  return new Promise((resolve, reject) => {
    const s = document.createElement('script');
    s.src = simd ? 'hardsoft-simd128.js' : 'hardsoft.js';
    s.onload = () => resolve(createHardsoft());
    s.onerror = () => reject(new Error(`${s.src} did not load`));
    document.head.appendChild(s);
  });
}

async function start() {
  M = await loadLibrary();
  bindLibrary();
  $('version').textContent = 'version ' + M.UTF8ToString(M._hs_version());
  window.hardsoft.isa = M.UTF8ToString(M._hs_isa_name(M._hs_isa_best()));
  $('isa').textContent = window.hardsoft.isa;
  wire();
  stateToControls(readFragment());
  update();
}

start().catch((e) => {
  const box = $('error');
  box.textContent = 'the library did not load: ' + e;
  box.hidden = false;
});
