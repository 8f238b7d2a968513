// Builds vocab/models.json: every model with a token price in
// @pydantic/genai-prices, plus the hand-kept facts of scripts/catalog/models.in.json.
// Usage: node build-catalog.cjs IN OUT DATE
//
// Prices are per million tokens, the set in force on DATE, with every
// long-context tier (a tier reprices the whole request once its input tokens
// pass the threshold, as genai-prices' calcPrice does) and a batch discount
// where one is known (see batch_of). Each model gets its tokenizer by name
// (tokenizer_of): exact where its vocabulary is known, else o200k_base marked
// as an estimate, with the provider's published tokenizer where there is one
// (published_of).
const fs = require('fs');
const path = require('path');
const g = require('@pydantic/genai-prices');
const [inPath, outPath, date] = process.argv.slice(2);
const mainFile = require.resolve('@pydantic/genai-prices');
const pkgDir = path.dirname(path.dirname(mainFile));
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const source = `npm @pydantic/genai-prices ${pkg.version}`;
const when = new Date(`${date}T12:00:00Z`);
const hand = JSON.parse(fs.readFileSync(inPath, 'utf8'));

// The package exports findProvider(id) but no list of providers: the ids are
// read from its bundled data, and each must then be found through the API.
function provider_ids() {
  const src = fs.readFileSync(mainFile, 'utf8');
  const ids = [...new Set([...src.matchAll(/\{id:"([A-Za-z0-9_.-]+)",name:"[^"]*",pricing_urls/g)].map((m) => m[1]))];
  const found = ids.filter((id) => g.findProvider({ providerId: id }));
  if (found.length < 10) throw new Error(`${source}: only ${found.length} providers found; has the bundle changed?`);
  // Model makers first, so a bare model id names the maker's own price; hosts after.
  const first = hand.provider_order;
  return [...first.filter((p) => found.includes(p)), ...found.filter((p) => !first.includes(p)).sort()];
}

// The price set in force on `when`: a list holds an unconstrained default and
// entries with a start_date or a time_of_date window (12:00 UTC is used).
function prices_on(prices) {
  if (!Array.isArray(prices)) return prices;
  let chosen = prices.find((x) => !x.constraint).prices;
  for (const x of prices) {
    const c = x.constraint;
    if (!c) continue;
    if (c.type === 'start_date' && new Date(c.start_date) <= when) chosen = x.prices;
    if (c.type === 'time_of_date' && c.start_time <= '12:00:00Z' && '12:00:00Z' < c.end_time) chosen = x.prices;
  }
  return chosen;
}

const base = (v) => (v === undefined ? undefined : typeof v === 'number' ? v : v.base);
// The rate of one unit for a request of more than `above` input tokens.
function rate_above(v, above) {
  if (typeof v === 'number') return v;
  let r = v.base;
  for (const t of v.tiers) if (above >= t.start) r = t.price;
  return r;
}

// {input, cached_input, output, tiers: [{above, input, cached_input, output}]}
// from one price set; undefined without a text input price.
function price_of(prices) {
  const input = prices.input_mtok, output = prices.output_mtok, cached = prices.cache_read_mtok;
  if (base(input) === undefined) return undefined;
  const p = { input: base(input), cached_input: base(cached ?? input), output: base(output) ?? 0 };
  const starts = new Set();
  for (const v of [input, output, cached]) if (v && typeof v === 'object') for (const t of v.tiers) starts.add(t.start);
  const tiers = [...starts].sort((a, b) => a - b).map((above) => ({
    above, input: rate_above(input, above), cached_input: rate_above(cached ?? input, above),
    output: output === undefined ? 0 : rate_above(output, above),
  }));
  if (tiers.length) p.tiers = tiers;
  if (cached === undefined) p.note = 'no cached-input price listed: cached input billed as input';
  return p;
}

// Batch API discount: from the model's own price comments in the data
// ("Batch API offers 50% discount"), else the provider's documented rate
// kept in models.in.json (the data has no batch rates for those providers).
function batch_of(prov, info) {
  const text = `${info.price_comments || ''} ${g.findProvider({ providerId: prov }).price_comments || ''}`;
  const m = text.match(/Batch[^.]*?(\d+)% discount/i);
  if (m) return { factor: Math.round(1000 - Number(m[1]) * 10) / 1000, source: `${source} (${prov}/${info.id} price_comments)` };
  const h = hand.batch_discounts[prov];
  return h ? { factor: h.factor, source: h.source } : undefined;
}

// The model's tokenizer, from its name: [tokenizer, exact?, chat family].
function tokenizer_of(id) {
  const s = id.toLowerCase();
  const b = '(^|[/.:_ -])';
  const rules = [
    // o200k_harmony = o200k_base + chat special tokens: text counts are identical.
    [/gpt-oss/, 'o200k_base', true, 'none'],
    [/deepseek-r1-distill-llama/, 'llama3', true, 'llama3'],
    [/deepseek-r1-distill-qwen/, 'qwen3', true, 'qwen'],
    [/deepseek[-_.]?(v3|r1|chat|reasoner)/, 'deepseek-v3', true, 'deepseek'],
    [/deepseek/, 'deepseek-v3', false, 'deepseek'],
    [/llama[-_. ]?(guard[-_])?3/, 'llama3', true, 'llama3'],
    [/qwen[-_.]?(3\.[1-9]|[4-9])/, 'qwen3', false, 'qwen'],
    [/qwen|qwq/, 'qwen3', true, 'qwen'],
    [/mistral-7b|mixtral-8x7b/, 'mistral', true, 'mistral'],
    [/mistral|mixtral|ministral|codestral|devstral|magistral|pixtral|voxtral/, 'mistral', false, 'mistral'],
    [/gemma[-_.]?3/, 'gemma3', true, 'gemma'],
    [/gemma/, 'gemma3', false, 'gemma'],
    [new RegExp(`${b}(gpt-4o|chatgpt-4o|gpt-4\\.1|gpt-4\\.5|gpt-5|o1|o3|o4|codex-mini|computer-use-preview)($|[-.:_])`), 'o200k_base', true, 'openai'],
    [new RegExp(`${b}(gpt-4|gpt-4-turbo|gpt-3\\.5-turbo|text-embedding-3-(small|large)|text-embedding-ada-002)($|[-.:_])`), 'cl100k_base', true, 'openai'],
  ];
  for (const [re, tk, exact, chat] of rules) if (re.test(s)) return [tk, exact, chat];
  return ['o200k_base', false, 'openai'];
}

// A tokenizer the model's provider published that tok can fetch (tok vocab
// fetch NAME): the model counts with it once it is on the machine, with the
// proxy from tokenizer_of until then.
function published_of(id) {
  return /gemini/i.test(id) ? 'gemini' : undefined;
}

// Exact names a model's match rule accepts, kept as aliases.
function equals_of(match, out = []) {
  if (!match || typeof match !== 'object') return out;
  if (typeof match.equals === 'string') out.push(match.equals);
  for (const k of ['or', 'and']) if (Array.isArray(match[k])) for (const x of match[k]) equals_of(x, out);
  return out;
}

// A maker's "claude-3-5-sonnet" is also "claude-3.5-sonnet" (as hosts spell
// it), and the reverse.
function respell(names) {
  const out = [];
  for (const n of names) {
    const dot = n.replace(/(\d)-(\d)(?!\d)/g, '$1.$2'), dash = n.replace(/(\d)\.(\d)(?!\d)/g, '$1-$2');
    for (const v of [dot, dash]) if (v !== n) out.push(v);
  }
  return out;
}

const out = { schema: 2, generated_by: 'scripts/update-prices', prices_source: source,
  prices_read: date, license_of_price_data: 'MIT (pydantic/genai-prices)', models: [] };
const taken = new Set();  // lower-case ids and aliases already used
const claim = (names) => names.filter((n) => {
  const k = n.toLowerCase();
  if (taken.has(k)) return false;
  taken.add(k);
  return true;
});
const from_hand = new Map();  // "prov/mid" -> hand entry

function priced(prov, info) {
  const p = price_of(prices_on(info.prices));
  if (!p) return undefined;
  const batch = batch_of(prov, info);
  if (batch) p.batch = batch;
  return { ...p, date, source: `${source} (${prov}/${info.id})` };
}

for (const m of hand.models) {
  const [prov, mid] = m.prices_from;
  const p = g.findProvider({ providerId: prov });
  const info = p && p.models.find((x) => x.id === mid);
  if (!info) throw new Error(`${m.id}: ${prov}/${mid} not in ${source}`);
  const e = { ...m };
  delete e.prices_from;
  e.price = priced(prov, info);
  if (!e.price) throw new Error(`${m.id}: ${prov}/${mid} lacks a text input price`);
  if (!e.context_window) {
    if (!info.context_window) throw new Error(`${m.id}: no context window in hand file or ${source}`);
    e.context_window = info.context_window;
  }
  const own = [m.id, ...(m.aliases || []), mid];
  e.aliases = claim([...own, `${prov}/${mid}`, ...respell(own)]).filter((a) => a !== m.id);
  if (!e.aliases.length) delete e.aliases;
  from_hand.set(`${prov}/${mid}`, e);
  out.models.push(e);
}

let skipped = 0;
for (const prov of provider_ids()) {
  for (const info of g.findProvider({ providerId: prov }).models) {
    if (from_hand.has(`${prov}/${info.id}`)) continue;
    const price = priced(prov, info);
    if (!price) {
      ++skipped;  // priced per request, image, audio second...: not a token model
      continue;
    }
    const qualified = info.id.startsWith(`${prov}/`) ? info.id : `${prov}/${info.id}`;
    // Only makers' models get the other spelling of their names.
    const respelled = hand.provider_order.includes(prov) ? respell([info.id, ...equals_of(info.match)]) : [];
    const names = claim([info.id, qualified, ...equals_of(info.match), ...respelled]);
    if (!names.length) continue;  // the same model twice in one provider
    const [tokenizer, exact, chat] = tokenizer_of(info.id);
    const e = { id: names[0], provider: prov, tokenizer };
    if (names.length > 1) e.aliases = names.slice(1);
    if (!exact) e.estimate = true;
    const published = published_of(info.id);
    if (published) e.published_tokenizer = published;
    e.chat = chat;
    if (info.context_window) e.context_window = info.context_window;
    if (info.deprecated) e.deprecated = true;
    e.price = price;
    out.models.push(e);
  }
}

// One model per line: a readable diff when prices change, a small file.
const text = `{\n${Object.entries(out).filter(([k]) => k !== 'models')
  .map(([k, v]) => ` ${JSON.stringify(k)}: ${JSON.stringify(v)},`).join('\n')}\n "models": [\n${
  out.models.map((m) => `  ${JSON.stringify(m)}`).join(',\n')}\n ]\n}\n`;
fs.writeFileSync(outPath + '.tmp', text);
fs.renameSync(outPath + '.tmp', outPath);
const est = out.models.filter((m) => m.estimate).length;
console.error(`wrote ${path.relative(process.cwd(), outPath)}: ${out.models.length} models ` +
  `(${out.models.length - est} with their own tokenizer, ${est} estimates; ${skipped} without a token price left out), ` +
  `prices from ${source} read ${date}`);
