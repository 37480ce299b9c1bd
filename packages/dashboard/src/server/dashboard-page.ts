// The page: one HTML document with its styles and its script inline (served with a nonce-based CSP), so it
// works offline and needs no second authenticated request.

/** The HTML of the dashboard page, with `script` (the bundled client) inline. */
export function dashboardPageHtml(options: { script: string; nonce: string; title?: string }): string {
  const title = escapeHtml(options.title ?? 'Troupe dashboard');
  // `</script` inside the bundle would end the element early; `<\/` means the same in JS strings and regexes.
  const script = options.script.replace(/<\/(script)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${title}</title>
<link rel="icon" href="data:,">
<style nonce="${options.nonce}">${DASHBOARD_CSS}</style>
</head>
<body>
<div id="app"></div>
<noscript>The Troupe dashboard needs JavaScript.</noscript>
<script nonce="${options.nonce}">${script}</script>
</body>
</html>
`;
}

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

const DASHBOARD_CSS = `
:root{--bg:#0f1216;--panel:#171b21;--line:#2a303a;--text:#e6e9ef;--muted:#8b94a3;--ok:#3fb27f;--bad:#e5534b;--warn:#d29922;--run:#4c8dff;--plan:#a371f7;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--text)}
header{display:flex;gap:12px;align-items:center;padding:10px 16px;border-bottom:1px solid var(--line);position:sticky;top:0;background:var(--bg);z-index:1}
header h1{font-size:16px;margin:0}main{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px;padding:12px}
section{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 12px;min-width:0}
section.wide{grid-column:1/-1}h2{font-size:13px;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:0 0 8px}
.muted{color:var(--muted)}.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:var(--line)}
.s-RUNNING,.s-running,.s-executing,.s-planning,.s-forking{background:var(--run);color:#fff}.s-IDLE,.s-idle{background:var(--line)}
.s-success,.s-completed,.s-executed,.s-planned,.s-terminate{background:var(--ok);color:#fff}.s-failed,.s-error,.s-timed-out{background:var(--bad);color:#fff}
.s-canceled,.s-terminated,.s-stopped{background:var(--warn);color:#111}.s-continue{background:var(--run);color:#fff}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}.kv dt{color:var(--muted)}.kv dd{margin:0;overflow-wrap:anywhere}
form.controls{display:flex;gap:6px;margin:8px 0}form.controls input{flex:1;min-width:0;background:var(--bg);color:var(--text);border:1px solid var(--line);border-radius:6px;padding:5px 8px}
button{background:var(--run);color:#fff;border:0;border-radius:6px;padding:5px 12px;cursor:pointer;font:inherit}button.stop{background:var(--bad)}button:disabled{opacity:.45;cursor:default}
ol,ul{margin:0;padding-left:20px}li{margin:2px 0;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:3px 6px;border-bottom:1px solid var(--line);font-variant-numeric:tabular-nums}th{color:var(--muted);font-weight:500}td.n,th.n{text-align:right}
.timeline .row{display:grid;grid-template-columns:70px 1fr;gap:8px;padding:4px 0;border-bottom:1px solid var(--line)}
.steps{display:flex;gap:4px;flex-wrap:wrap}.step{font-size:12px;padding:2px 8px;border-radius:4px}.task{color:var(--muted);font-size:12px;overflow-wrap:anywhere}
.stream{max-height:320px;overflow:auto;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;white-space:pre-wrap}.stream div{padding:2px 0;border-bottom:1px dashed var(--line)}
.tree ul{list-style:none;padding-left:18px;border-left:1px dashed var(--line)}.tree>ul{padding-left:0;border:0}
.chat{max-height:360px;overflow:auto}.msg{padding:4px 0;border-bottom:1px solid var(--line)}.msg b{margin-right:6px}.msg .body{white-space:pre-wrap;overflow-wrap:anywhere}
.gantt{position:relative}.gantt .lane{display:grid;grid-template-columns:170px 1fr;align-items:center;min-height:24px;white-space:nowrap}.gantt .track{position:relative;height:16px;background:var(--bg);border-radius:3px}
.gantt .bar{position:absolute;top:2px;height:12px;border-radius:3px;min-width:2px}.bar.plan{background:var(--plan)}.bar.exec{background:var(--ok)}.bar.exec.failed{background:var(--bad)}.bar.open{opacity:.6}
.legend{display:flex;gap:12px;font-size:12px;color:var(--muted);margin-top:4px}.legend i{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.reply{font-size:12px;margin-top:4px}.reply.bad{color:var(--bad)}
tr.ws{cursor:pointer}tr.ws:hover,tr.ws.open{background:var(--bg)}.stat{margin-right:10px;white-space:nowrap}.stat.total{color:var(--muted)}
.d-add{color:var(--ok)}.d-del{color:var(--bad)}.d-hunk{color:var(--plan)}.d-file{font-weight:600}.s-finished{background:var(--ok);color:#fff}.s-escaped{background:var(--bad);color:#fff}.s-removed{background:var(--line)}
.s-passed{background:var(--ok);color:#fff}.s-pending,.s-not-started{background:var(--line)}tr.won{outline:1px solid var(--ok)}.why{font-size:12px;white-space:pre-wrap;overflow-wrap:anywhere}
pre.diff{max-height:480px;overflow:auto;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--bg);padding:8px;border-radius:6px;margin:0}
`;
