// llama.cpp (node-llama-cpp prebuilt) as a peer: greedy-generates from the
// given prompt ids and prints one JSON line {ids, ttft_ms, prefill/decode tok/s}.
// usage: node llama_peer.mjs MODEL.gguf '[ids]' N_GEN THREADS CTX
// Needs TOK_NPM_DIR (scripts/peers prints it).
import path from "node:path";

const [modelPath, idsJson, nGen, threads, ctx] = process.argv.slice(2);
const dir = process.env.TOK_NPM_DIR;
const {getLlama, LlamaLogLevel} = await import(path.join(dir, "node_modules/node-llama-cpp/dist/index.js"));
const llama = await getLlama({gpu: false, build: "never", maxThreads: +threads, logLevel: LlamaLogLevel.warn});
const model = await llama.loadModel({modelPath});
const context = await model.createContext({contextSize: +ctx, batchSize: 512, threads: +threads});
const seq = context.getSequence();
const ids = JSON.parse(idsJson);
const out = [];
const t0 = performance.now();
let tFirst = null;
for await (const tok of seq.evaluate(ids, {temperature: 0})) {
  if (tFirst === null) tFirst = performance.now();
  out.push(tok);
  if (out.length >= +nGen) break;
}
const t1 = performance.now();
console.log(JSON.stringify({
  ids: out,
  ttft_ms: tFirst - t0,
  prefill_tokens_per_s: ids.length * 1000 / (tFirst - t0),
  decode_tokens_per_s: out.length > 1 ? (out.length - 1) * 1000 / (t1 - tFirst) : 0,
}));
await context.dispose();
await model.dispose();
