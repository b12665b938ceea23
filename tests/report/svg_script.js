// SPDX-License-Identifier: GPL-2.0-only
/*
 * svg_script.js SVG - run the flame graph's script (zoom, search) on a small
 * stand-in for the DOM, and print what it did, for report_test.sh.
 */
'use strict';
const fs = require('fs');
const svg = fs.readFileSync(process.argv[2], 'utf8');
const js = svg.split('<![CDATA[')[1].split(']]>')[0];
function el(attrs, kids, text) {
  return { a: Object.assign({}, attrs), kids: kids || [], textContent: text || '', style: {},
    getAttribute(n) { return this.a[n] === undefined ? null : String(this.a[n]); },
    setAttribute(n, v) { this.a[n] = v; },
    getElementsByTagName(t) { return this.kids.filter(k => k.tag === t); } };
}
const gs = [];
const re = /<g class="f" data-x="([^"]*)" data-w="([^"]*)" data-d="([^"]*)"><title>([^<]*)<\/title><rect ([^>]*)\/><text[^>]*><\/text><\/g>/g;
let m;
while ((m = re.exec(svg))) {
  const fill = /fill="([^"]*)"/.exec(m[5])[1];
  const r = el({ fill: fill, 'data-c': fill }); r.tag = 'rect';
  const t = el({}); t.tag = 'text';
  const ti = el({}, [], m[4].replace(/&lt;/g,'<').replace(/&gt;/g,'>').replace(/&amp;/g,'&')); ti.tag = 'title';
  const g = el({ 'data-x': m[1], 'data-w': m[2], 'data-d': m[3] }, [ti, r, t]); g.tag = 'g';
  gs.push(g);
}
const ids = { frames: { getElementsByTagName: () => gs }, details: el({}), reset: el({}), matched: el({}), search: el({}) };
global.document = { documentElement: el({ width: 1200 }), getElementById: id => ids[id] };
global.window = { addEventListener() {} };
global.prompt = () => 'main';
eval(js + '; global.api = { init, zoom, unzoom, search, clear_search };');
api.init({});
console.log('frames', gs.length, 'text of first:', gs[0].kids[2].textContent);
const c = gs.find(g => g.kids[0].textContent.startsWith('c ('));
api.zoom(c);
console.log('zoomed c: width', c.kids[1].a.width, 'hidden', gs.filter(g => g.style.display === 'none').length, 'reset shown', ids.reset.style.display === '');
api.unzoom();
api.search('^(a|b)$');
console.log(ids.matched.textContent, gs.filter(g => g.kids[1].a.fill === 'rgb(230,0,230)').length);
api.clear_search();
console.log('cleared', gs.filter(g => g.kids[1].a.fill === 'rgb(230,0,230)').length);
