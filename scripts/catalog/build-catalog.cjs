// Builds vocab/models.json: hand-kept model facts + prices from
// @pydantic/genai-prices. Usage: node build-catalog.cjs IN OUT DATE
// Prices are per million tokens, read from each model's price data (findProvider):
// the set in force on DATE, the base tier of a tiered price (with a note).
const fs = require('fs');
const path = require('path');
const g = require('@pydantic/genai-prices');
const [inPath, outPath, date] = process.argv.slice(2);
const pkgDir = path.dirname(path.dirname(require.resolve('@pydantic/genai-prices')));
const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
const source = `npm @pydantic/genai-prices ${pkg.version}`;
const when = new Date(`${date}T12:00:00Z`);
const hand = JSON.parse(fs.readFileSync(inPath, 'utf8'));

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
// Per-million price of one unit; a tiered price gives its base tier.
function unit(prices, key) {
  const v = prices[key];
  if (v === undefined) return undefined;
  return typeof v === 'number' ? v : v.base;
}
const out = { schema: 1, generated_by: 'scripts/update-prices', prices_source: source,
  prices_read: date, license_of_price_data: 'MIT (pydantic/genai-prices)', models: [] };
for (const m of hand.models) {
  const [prov, mid] = m.prices_from;
  const p = g.findProvider({ providerId: prov });
  const info = p && p.models.find((x) => x.id === mid);
  if (!info) throw new Error(`${m.id}: ${prov}/${mid} not in ${source}`);
  const e = { ...m };
  delete e.prices_from;
  const prices = prices_on(info.prices);
  const input = unit(prices, 'input_mtok');
  const output = unit(prices, 'output_mtok');
  if (input === undefined || output === undefined) throw new Error(`${m.id}: ${prov}/${mid} lacks input/output prices`);
  const cached = unit(prices, 'cache_read_mtok');
  e.price = { input, cached_input: cached === undefined ? input : cached, output, date, source: `${source} (${prov}/${mid})` };
  if (cached === undefined) e.price.note = 'no cached-input price listed: cached input billed as input';
  if (JSON.stringify(prices).includes('tiers')) e.price.note = 'tiered: higher rates above a long-context threshold; base tier shown';
  if (!e.context_window) {
    if (!info.context_window) throw new Error(`${m.id}: no context window in hand file or ${source}`);
    e.context_window = info.context_window;
    e.context_window_source = source;
  }
  out.models.push(e);
}
fs.writeFileSync(outPath + '.tmp', JSON.stringify(out, null, 1) + '\n');
fs.renameSync(outPath + '.tmp', outPath);
console.error(`wrote ${path.relative(process.cwd(), outPath)}: ${out.models.length} models, prices from ${source} read ${date}`);
