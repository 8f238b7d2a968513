// node render_reference.js NPM_DIR TEMPLATE_FILE CONTEXT.json: the template
// rendered by @huggingface/jinja (the reference for tok's chat templates),
// written to stdout as bytes.
const {Template} = require(process.argv[2] + '/node_modules/@huggingface/jinja');
const fs = require('fs');
const tpl = fs.readFileSync(process.argv[3], 'utf8');
const ctx = JSON.parse(fs.readFileSync(process.argv[4], 'utf8'));
process.stdout.write(new Template(tpl).render(ctx));
