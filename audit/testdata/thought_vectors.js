// Generates thought_vectors.json: Colibri's thought_record hash as a
// JavaScript client computes it. Run: node audit/testdata/thought_vectors.js > audit/testdata/thought_vectors.json
// Go's tests read the JSON file, so they need no node.
const crypto = require("crypto");
const prev = "5a2b" + "0".repeat(56) + "11cc";
const contents = [
  "Decided to use Zod for input validation.",
  "",
  "quotes \" and backslash \\ and slash /",
  "html <script>alert('x')</script> & &amp;",
  "line\nbreak\ttab\rcarriage\bbackspace\fformfeed",
  "C0 \u0000 \u0001 \u0007 \u000b \u000e \u001b[32mAPPROVED\u001b[0m \u001f",
  "DEL \u007f and C1 \u0080 \u009b \u009f",
  "separators \u2028 and \u2029",
  "bidi \u202e override \u2066 isolate \u2069",
  "emoji 🚀🎉 and 👩‍💻 and flags 🇩🇪",
  "non-ASCII Θ-0047 ü ß 漢字 עברית",
  "BOM \ufeff and replacement \ufffd",
  "astral 𝄞 𐍈",
  "json-ish {\"a\":[1,2]} \\u0041 literal",
];
const out = [];
for (const [i, content] of contents.entries()) {
  for (const previous_hash of [null, prev]) {
    const rec = {
      task_id: i % 2 ? "T-0042" : "COL-7",
      type: ["reflection", "decision", "discovery", "risk", "blockers"][i % 5],
      content,
      previous_hash,
      recorded_at: "2026-04-08T23:15:00.123Z",
      recorded_by: i % 3 ? "agent-bob" : "agent <alice> & co",
    };
    const json = JSON.stringify(rec);
    out.push({ ...rec, json, hash: crypto.createHash("sha256").update(json).digest("hex") });
  }
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
