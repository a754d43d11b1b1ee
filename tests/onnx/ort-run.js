#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Runs ONNX graphs written by `hardsoft export` / `hardsoft compile -o
// FILE.onnx` in ONNX Runtime (npm package onnxruntime-node, CPU, one
// intra-op thread), independently of hardsoft's own forward pass.
//
//   ort-run.js [--ort DIR] [--dump] MODEL.onnx... < STRINGS
//     every string (one per line of standard input, bytes) through every
//     model, in order: one line per (model, string) of 0/1 per position
//     1..n (an empty line for the empty string), or with --dump the output
//     values at positions 1..n, separated by spaces (shortest round-trip
//     decimals of the float32 values).
//   ort-run.js [--ort DIR] --time R --input FILE MODEL.onnx
//     the benchmark peer (hardsoft bench --isas ort): one untimed warm-up
//     run, then R timed session.run calls on the string of FILE's first
//     line; prints {"seconds": [...], "peak_bytes": N, "bits": "0101..."}
//     like bench/peers/forward.py. peak_bytes: the growth of the process's
//     peak resident set (VmHWM) over its resident set before the warm-up
//     run, an approximation of what ONNX Runtime allocates for the run (0
//     where /proc is missing).
// --ort DIR: the onnxruntime-node package directory (default: the one
// `make` installs, build/node/node_modules/onnxruntime-node under the
// current directory, else under this checkout, else whatever require()
// finds). Errors: one line on standard error, exit 2.
'use strict';
const fs = require('fs');
const path = require('path');

function fail(msg) {
  process.stderr.write('ort-run.js: ' + msg + '\n');
  process.exit(2);
}

function parseArgs(argv) {
  const a = { ort: null, dump: false, time: null, input: null, models: [] };
  for (let k = 0; k < argv.length; k++) {
    const s = argv[k];
    const next = () => (k + 1 < argv.length ? argv[++k] : fail(s + ' needs a value'));
    if (s === '--ort') a.ort = next();
    else if (s === '--dump') a.dump = true;
    else if (s === '--time') a.time = Number(next());
    else if (s === '--input') a.input = next();
    else if (s.startsWith('--')) fail('unknown option ' + s);
    else a.models.push(s);
  }
  if (a.models.length === 0) fail('no MODEL.onnx given');
  if (a.time !== null && !(Number.isInteger(a.time) && a.time >= 1 && a.time <= 1000 &&
                           a.input !== null && a.models.length === 1))
    fail('--time R needs 1 <= R <= 1000, --input FILE and one model');
  return a;
}

function loadOrt(dir) {
  const sub = path.join('build', 'node', 'node_modules', 'onnxruntime-node');
  const tries = dir ? [path.resolve(dir)]
    : [path.resolve(sub), path.join(__dirname, '..', '..', sub), 'onnxruntime-node'];
  for (const t of tries) {
    try { return require(t); } catch (e) { if (dir) fail('cannot load ' + t + ': ' + e.message); }
  }
  fail('cannot load onnxruntime-node (make build/node/node_modules/onnxruntime-node installs it)');
}

// The graph's input: BOS (256), then the bytes.
function idsOf(ort, bytes) {
  const ids = new BigInt64Array(bytes.length + 1);
  ids[0] = 256n;
  for (let i = 0; i < bytes.length; i++) ids[i + 1] = BigInt(bytes[i]);
  return new ort.Tensor('int64', ids, [ids.length]);
}

async function session(ort, file) {
  try {
    return await ort.InferenceSession.create(file, {
      intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    });
  } catch (e) {
    fail(file + ': ' + String(e.message).split('\n')[0]);
  }
}

// Values at positions 1..n (out[0] is BOS's).
async function run(ort, sess, bytes) {
  const r = await sess.run({ ids: idsOf(ort, bytes) });
  return r.out.data.subarray(1);
}

function splitLines(buf) {
  const lines = [];
  let start = 0;
  for (let i = 0; i < buf.length; i++)
    if (buf[i] === 10) { lines.push(buf.subarray(start, i)); start = i + 1; }
  if (start < buf.length) lines.push(buf.subarray(start));
  return lines;
}

function bits(vals) {
  let s = '';
  for (const v of vals) s += v > 0.5 ? '1' : '0';
  return s;
}

function memKiB(field) {
  try {
    const m = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(field + ':\\s*(\\d+)'));
    return m ? Number(m[1]) : null;
  } catch (e) { return null; }
}

async function timed(ort, a) {
  let line;
  try { line = splitLines(fs.readFileSync(a.input))[0] || Buffer.alloc(0); }
  catch (e) { fail(a.input + ': ' + e.message); }
  const sess = await session(ort, a.models[0]);
  const rss0 = memKiB('VmRSS');
  const vals = await run(ort, sess, line);
  const hwm = memKiB('VmHWM');
  const peak = rss0 !== null && hwm !== null ? Math.max(0, hwm - rss0) * 1024 : 0;
  const secs = [];
  const feeds = { ids: idsOf(ort, line) };
  for (let k = 0; k < a.time; k++) {
    const t0 = process.hrtime.bigint();
    await sess.run(feeds);
    secs.push(Number(process.hrtime.bigint() - t0) / 1e9);
  }
  process.stdout.write(JSON.stringify({ seconds: secs, peak_bytes: peak, bits: bits(vals) }) + '\n');
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const ort = loadOrt(a.ort);
  if (a.time !== null) return timed(ort, a);
  const strings = splitLines(fs.readFileSync(0));
  const out = [];
  for (const file of a.models) {
    const sess = await session(ort, file);
    for (const s of strings) {
      const vals = await run(ort, sess, s);
      out.push(a.dump ? Array.from(vals, (v) => String(v)).join(' ') : bits(vals));
    }
    if (sess.release) await sess.release();
  }
  process.stdout.write(out.length ? out.join('\n') + '\n' : '');
}

main().catch((e) => fail(String(e && e.message ? e.message : e).split('\n')[0]));
