#!/usr/bin/env node
// verify-bundle.mjs: an independent verifier of a baton audit bundle
// (format baton-audit-bundle/3), written from the public standards alone
// and using nothing but Node's standard library:
//
//   - RFC 8785 (JSON Canonicalization Scheme) for the bytes of an action;
//   - RFC 6962 / RFC 9162 for leaf hashes, the Merkle tree hash and the
//     consistency proofs (RFC 9162, 2.1.4.2);
//   - C2SP signed-note (Ed25519 signatures, verifier keys, key IDs) and
//     C2SP tlog-checkpoint for the signed checkpoints;
//   - JavaScript's own JSON.stringify for thought records, and the
//     pairwise SHA-256 tree (odd node promoted) for session roots.
//
// Usage: node verify-bundle.mjs BUNDLE.json PUBLIC_KEY
//   PUBLIC_KEY is the log's note verifier key (name+hash+base64), as its
//   operator publishes it. Exit 0: everything verifies; 1: something does
//   not (the reasons are printed); 2: usage or unreadable input.

import { createHash, createPublicKey, verify as edVerify } from 'node:crypto';
import { readFileSync } from 'node:fs';
import process from 'node:process';

const FORMAT = 'baton-audit-bundle/3';
const ZERO_HASH = '0'.repeat(64);
const MAX_NOTE = 16 << 10;

const failures = [];
const fail = (msg) => failures.push(msg);

// ---------------------------------------------------------------- helpers

const sha256 = (...parts) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

const isHex32 = (s) => typeof s === 'string' && /^[0-9a-f]{64}$/.test(s);

// Strict standard base64 (RFC 4648, section 4, with padding): Buffer.from
// ignores bad characters, so the text must also round-trip.
function b64decode(s) {
  if (typeof s !== 'string' || s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) return null;
  const b = Buffer.from(s, 'base64');
  return b.toString('base64') === s ? b : null;
}

// A string is I-JSON (RFC 7493) only without lone surrogates; RFC 8785
// works on I-JSON.
function wellFormed(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      return false;
    }
  }
  return true;
}

// ------------------------------------------------------------ RFC 8785 JCS

// jcs is the RFC 8785 canonical form of a JSON value: literals and
// strings as ECMAScript's JSON.stringify writes them (section 3.2.2.2),
// numbers in ECMAScript's Number-to-String form (3.2.2.3, which
// JSON.stringify also uses), object members sorted by the UTF-16 code
// units of their names (3.2.3; the default Array.prototype.sort compares
// exactly those), no white space.
function jcs(v) {
  if (v === null || typeof v === 'boolean') return JSON.stringify(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error('RFC 8785: NaN and infinities have no JSON form');
    return JSON.stringify(v);
  }
  if (typeof v === 'string') {
    if (!wellFormed(v)) throw new Error('RFC 8785: a string holds a lone surrogate (not I-JSON)');
    return JSON.stringify(v);
  }
  if (Array.isArray(v)) return '[' + v.map(jcs).join(',') + ']';
  if (typeof v === 'object') {
    const keys = Object.keys(v).sort();
    return '{' + keys.map((k) => jcs(k) + ':' + jcs(v[k])).join(',') + '}';
  }
  throw new Error(`RFC 8785: ${typeof v} is no JSON value`);
}

// ------------------------------------------------------- RFC 6962 / 9162

const leafHash = (data) => sha256(Buffer.from([0x00]), data);
const nodeHash = (l, r) => sha256(Buffer.from([0x01]), l, r);

// mth is the Merkle Tree Hash of leaf hashes (RFC 6962, 2.1): split at the
// largest power of two smaller than n.
function mth(leaves, lo = 0, hi = leaves.length) {
  const n = hi - lo;
  if (n === 0) return sha256(Buffer.alloc(0));
  if (n === 1) return leaves[lo];
  let k = 1;
  while (k * 2 < n) k *= 2;
  return nodeHash(mth(leaves, lo, lo + k), mth(leaves, lo + k, hi));
}

// verifyConsistency follows RFC 9162, 2.1.4.2, and returns null or why the
// proof fails.
function verifyConsistency(first, second, path, firstHash, secondHash) {
  first = BigInt(first);
  second = BigInt(second);
  if (first > second) return `the earlier tree (${first}) is larger than the later (${second})`;
  if (first === second) {
    if (path.length !== 0) return 'a proof between equal sizes must be empty';
    return firstHash.equals(secondHash) ? null : 'two different roots for the same size';
  }
  if (first === 0n) {
    // Every tree extends the empty one, whose hash is SHA-256 of nothing.
    if (path.length !== 0) return 'a proof from the empty tree must be empty';
    return firstHash.equals(sha256(Buffer.alloc(0))) ? null : 'the empty tree has another root';
  }
  if (path.length === 0) return 'the proof is empty';
  path = path.slice();
  // 1. If first is an exact power of 2, prepend first_hash.
  if ((first & (first - 1n)) === 0n) path.unshift(firstHash);
  // 2.
  let fn = first - 1n;
  let sn = second - 1n;
  // 3.
  if (fn & 1n) {
    while (fn & 1n) {
      fn >>= 1n;
      sn >>= 1n;
    }
  }
  // 4.
  let fr = path[0];
  let sr = path[0];
  // 5.
  for (const c of path.slice(1)) {
    if (sn === 0n) return 'the proof is too long';
    if ((fn & 1n) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!(fn & 1n)) {
        while (!(fn & 1n) && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  // 6.
  if (!fr.equals(firstHash)) return 'it does not give the earlier root';
  if (!sr.equals(secondHash)) return 'it does not give the later root';
  if (sn !== 0n) return 'the proof is too short';
  return null;
}

// ------------------------------------------------------ C2SP signed-note

// A key name is non-empty UTF-8 with no Unicode white space and no '+'.
const validName = (name) => name.length > 0 && !/[\s+]/u.test(name) && wellFormed(name);

// parseVerifierKey reads name+hexkeyid+base64(0x01 || Ed25519 public key)
// and checks the key ID: the first 4 bytes of SHA-256(name || 0x0A ||
// 0x01 || public key).
function parseVerifierKey(vkey) {
  // The name holds no '+', but the base64 may: cut at the first two.
  const text = vkey.trim();
  const i = text.indexOf('+');
  const j = i < 0 ? -1 : text.indexOf('+', i + 1);
  if (j < 0) throw new Error('the key is not name+hash+base64');
  const [name, idHex, b64] = [text.slice(0, i), text.slice(i + 1, j), text.slice(j + 1)];
  if (!validName(name)) throw new Error(`the key name ${JSON.stringify(name)} is not a valid note key name`);
  if (!/^[0-9a-f]{8}$/.test(idHex)) throw new Error('the key hash is not 8 lowercase hex digits');
  const raw = b64decode(b64);
  if (!raw || raw.length !== 33 || raw[0] !== 0x01) throw new Error('the key is not an Ed25519 (type 0x01) public key');
  const pub = raw.subarray(1);
  const id = sha256(Buffer.from(name + '\n', 'utf8'), raw).subarray(0, 4);
  if (id.toString('hex') !== idHex) throw new Error(`the key hash ${idHex} is not that of the key (${id.toString('hex')})`);
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pub.toString('base64url') }, format: 'jwk' });
  return { name, id, key, text };
}

// openNote checks a signed note's signature by vk and returns its text
// (the signed part, ending in a newline). A signature line by the key
// that does not verify rejects the note; lines by other keys are ignored.
function openNote(note, vk) {
  if (typeof note !== 'string') throw new Error('the note is not a string');
  if (Buffer.byteLength(note, 'utf8') > MAX_NOTE) throw new Error('the note is too large');
  if (!wellFormed(note)) throw new Error('the note is not valid UTF-8');
  // The text ends with a newline, then a blank line, then signature lines;
  // the last blank line separates them (the text holds none).
  const cut = note.lastIndexOf('\n\n');
  if (cut < 0) throw new Error('not a signed note: no blank line before the signatures');
  const text = note.slice(0, cut + 1);
  if (/[\x00-\x09\x0b-\x1f]/.test(text)) throw new Error('the note text holds control characters');
  const sigBlock = note.slice(cut + 2);
  if (!sigBlock.endsWith('\n')) throw new Error('the signature lines do not end with a newline');
  const lines = sigBlock.slice(0, -1).split('\n');
  if (lines.length > 100) throw new Error('too many signatures');
  let verified = false;
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/u.exec(line);
    if (!m) throw new Error(`malformed signature line ${JSON.stringify(line)}`);
    const [, name, b64] = m;
    const sig = b64decode(b64);
    if (!validName(name) || !sig || sig.length < 5) throw new Error(`malformed signature line ${JSON.stringify(line)}`);
    if (name !== vk.name || !sig.subarray(0, 4).equals(vk.id)) continue; // another key's
    if (sig.length !== 4 + 64 || !edVerify(null, Buffer.from(text, 'utf8'), vk.key, sig.subarray(4))) {
      throw new Error(`the signature by ${vk.name} does not verify`);
    }
    verified = true;
  }
  if (!verified) throw new Error(`the note is not signed by the key ${vk.text}`);
  return text;
}

// ----------------------------------------------------- C2SP tlog-checkpoint

// openCheckpoint checks a checkpoint note and reads its origin, size and
// root; the origin must be the key's name (baton names its log's key
// after the log).
function openCheckpoint(note, vk) {
  const text = openNote(note, vk);
  const lines = text.slice(0, -1).split('\n');
  if (lines.length < 3) throw new Error('a checkpoint has an origin, a size and a root hash');
  const [origin, sizeText, rootText, ...ext] = lines;
  if (origin === '') throw new Error('the checkpoint has an empty origin');
  if (!/^(0|[1-9][0-9]*)$/.test(sizeText)) throw new Error(`the checkpoint size ${JSON.stringify(sizeText)} is not a decimal number`);
  const size = BigInt(sizeText);
  if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('the checkpoint size is out of range');
  const root = b64decode(rootText);
  if (!root || root.length !== 32) throw new Error('the checkpoint root is not a base64 SHA-256 hash');
  if (ext.some((l) => l === '')) throw new Error('the checkpoint has an empty extension line');
  if (origin !== vk.name) throw new Error(`the checkpoint's origin ${JSON.stringify(origin)} is not the key's name ${JSON.stringify(vk.name)}`);
  return { origin, size: Number(size), root };
}

// --------------------------------------------------------------- the bundle

function main() {
  const args = process.argv.slice(2);
  if (args.length !== 2) {
    process.stderr.write('usage: node verify-bundle.mjs BUNDLE.json PUBLIC_KEY\n');
    process.exit(2);
  }
  let bundle;
  let vk;
  try {
    bundle = JSON.parse(readFileSync(args[0], 'utf8'));
  } catch (e) {
    process.stderr.write(`cannot read the bundle ${args[0]}: ${e.message}\n`);
    process.exit(2);
  }
  try {
    vk = parseVerifierKey(args[1]);
  } catch (e) {
    process.stderr.write(`bad PUBLIC_KEY: ${e.message}\n`);
    process.exit(2);
  }
  if (bundle === null || typeof bundle !== 'object' || Array.isArray(bundle)) {
    process.stderr.write('the bundle is not a JSON object\n');
    process.exit(2);
  }

  if (bundle.format !== FORMAT) fail(`format is ${JSON.stringify(bundle.format)}, not ${FORMAT}`);
  if (bundle.origin !== vk.name) fail(`the bundle's origin ${JSON.stringify(bundle.origin)} is not the key's name ${JSON.stringify(vk.name)}`);
  const arr = (name) => {
    if (!Array.isArray(bundle[name])) {
      fail(`${name} is not an array`);
      return [];
    }
    return bundle[name];
  };
  const actions = arr('actions');
  const thoughts = arr('thoughts');
  const sessions = arr('sessions');
  const consistency = arr('consistency');
  const known = new Set();

  // 1. Actions: leaf hash of the JCS bytes, one chain by position.
  const leaves = [];
  let prev = ZERO_HASH;
  actions.forEach((a, i) => {
    const where = `action ${i + 1}`;
    if (a === null || typeof a !== 'object' || Array.isArray(a)) {
      fail(`${where} is not an object`);
      leaves.push(Buffer.alloc(32));
      return;
    }
    const fields = { ...a };
    delete fields.hash;
    for (const [k, v] of Object.entries(fields)) {
      if (k === 'position' ? !Number.isSafeInteger(v) : typeof v !== 'string') fail(`${where}: ${k} is not a ${k === 'position' ? 'integer' : 'string'}`);
    }
    for (const k of ['position', 'agent', 'source', 'tool', 'subject', 'input_digest', 'result_digest', 'at', 'previous_hash']) {
      if (!(k in fields)) fail(`${where}: no ${k}`);
    }
    if (a.position !== i + 1) fail(`${where}: position is ${a.position}, not ${i + 1}`);
    if (a.previous_hash !== prev) fail(`${where}: previous_hash ${a.previous_hash} is not the hash before it (${prev})`);
    let lh;
    try {
      lh = leafHash(Buffer.from(jcs(fields), 'utf8'));
    } catch (e) {
      fail(`${where}: ${e.message}`);
      lh = Buffer.alloc(32);
    }
    if (!isHex32(a.hash)) fail(`${where}: hash is not 64 lowercase hex digits`);
    else if (lh.toString('hex') !== a.hash) fail(`${where}: its fields give leaf hash ${lh.toString('hex')}, not the stored ${a.hash}`);
    leaves.push(lh);
    prev = a.hash;
    known.add(a.hash);
  });

  // 2-3. The checkpoint signs exactly these records.
  const n = leaves.length;
  const root = mth(leaves);
  let cp = null;
  try {
    cp = openCheckpoint(bundle.checkpoint, vk);
    if (cp.size !== n) fail(`the checkpoint signs ${cp.size} records, the bundle holds ${n}`);
    else if (!cp.root.equals(root)) fail(`the checkpoint's root ${cp.root.toString('hex')} is not the records' Merkle tree hash ${root.toString('hex')}`);
  } catch (e) {
    fail(`checkpoint: ${e.message}`);
  }

  // 4. Consistency with every earlier checkpoint.
  consistency.forEach((c, i) => {
    const where = `consistency ${i + 1}`;
    try {
      if (c === null || typeof c !== 'object') throw new Error('not an object');
      const early = openCheckpoint(c.checkpoint, vk);
      if (!Array.isArray(c.proof) || !c.proof.every(isHex32)) throw new Error('the proof is not a list of hex SHA-256 hashes');
      const why = verifyConsistency(early.size, n, c.proof.map((h) => Buffer.from(h, 'hex')), early.root, root);
      if (why) throw new Error(`the proof from size ${early.size} to ${n} fails: ${why}`);
    } catch (e) {
      fail(`${where}: ${e.message}`);
    }
  });

  // 5. Thoughts: one chain per task, by position.
  const chains = new Map();
  thoughts.forEach((t, i) => {
    if (t === null || typeof t !== 'object') {
      fail(`thought ${i + 1} is not an object`);
      return;
    }
    const { task_id, type, content, previous_hash, recorded_at, recorded_by } = t;
    for (const [k, v] of Object.entries({ task_id, type, content, recorded_at, recorded_by })) {
      if (typeof v !== 'string') fail(`thought ${t.id ?? i + 1}: ${k} is not a string`);
    }
    if (previous_hash !== null && typeof previous_hash !== 'string') fail(`thought ${t.id ?? i + 1}: previous_hash is neither null nor a string`);
    const computed = sha256(Buffer.from(JSON.stringify({ task_id, type, content, previous_hash, recorded_at, recorded_by }), 'utf8')).toString('hex');
    if (computed !== t.hash) fail(`thought ${t.id ?? i + 1}: its fields give ${computed}, not the stored ${t.hash}`);
    known.add(t.hash);
    if (!chains.has(task_id)) chains.set(task_id, []);
    chains.get(task_id).push(t);
  });
  for (const [task, chain] of chains) {
    chain.sort((a, b) => a.position - b.position);
    let p = null;
    chain.forEach((t, i) => {
      if (t.position !== i + 1) fail(`thought chain of ${task}: position ${t.position} where ${i + 1} should be`);
      if (t.previous_hash !== p) fail(`thought chain of ${task}: ${t.id} has previous_hash ${t.previous_hash}, not ${p}`);
      p = t.hash;
    });
  }

  // 6. Sessions: Colibri's root over the leaves, each leaf a record here.
  sessions.forEach((s, i) => {
    const where = `session ${s?.id ?? i + 1}`;
    if (s === null || typeof s !== 'object' || !Array.isArray(s.leaves)) {
      fail(`${where}: no leaves`);
      return;
    }
    if (!s.leaves.every(isHex32)) {
      fail(`${where}: a leaf is not a hex SHA-256 hash`);
      return;
    }
    let level = s.leaves.map((h) => Buffer.from(h, 'hex'));
    let r;
    if (level.length === 0) {
      r = sha256(Buffer.alloc(0));
    } else {
      while (level.length > 1) {
        const next = [];
        for (let j = 0; j < level.length; j += 2) next.push(j + 1 < level.length ? sha256(level[j], level[j + 1]) : level[j]);
        level = next;
      }
      r = level[0];
    }
    if (r.toString('hex') !== s.merkle_root) fail(`${where}: the leaves give root ${r.toString('hex')}, not the frozen ${s.merkle_root}`);
    s.leaves.forEach((l, j) => {
      if (!known.has(l)) fail(`${where}: leaf ${j} (${l}) is no record of the bundle`);
    });
  });

  const out = [
    `bundle ${args[0]}`,
    `log    ${vk.name}`,
    `actions ${n}, Merkle root ${root.toString('hex')}`,
    `checkpoint ${cp ? `size ${cp.size}, signature verified` : 'NOT verified'}`,
    `consistency proofs ${consistency.length}`,
    `thoughts ${thoughts.length} in ${chains.size} chain(s)`,
    `sessions ${sessions.length}`,
  ];
  process.stdout.write(out.join('\n') + '\n');
  if (failures.length > 0) {
    process.stdout.write(`FAILED: ${failures.length} problem(s)\n`);
    for (const f of failures) process.stdout.write(`  - ${f}\n`);
    process.exit(1);
  }
  process.stdout.write('OK: the bundle verifies\n');
  process.exit(0);
}

main();
