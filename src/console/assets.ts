// The console's only static files: one stylesheet and a few lines of script (progressive
// enhancement: every page works without it). Served from /console/assets/ so the pages can run
// under a Content-Security-Policy that allows no inline script or style.

export const CONSOLE_CSS = `
:root{--fg:#1a1a1a;--muted:#4a4a4a;--bg:#fff;--panel:#f4f5f7;--line:#c9ccd1;--accent:#0b5cad;--danger:#a4161a;--ok:#1e6b34;--add:#e6f4ea;--del:#fce8e6;--focus:#f5a623;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg);line-height:1.45}
*{box-sizing:border-box}body{margin:0}
a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,textarea:focus-visible,summary:focus-visible{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--bg);padding:.5rem}.skip:focus{left:.5rem}
header.top{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;justify-content:space-between;padding:.6rem 1rem;background:#16202c;color:#fff}
header.top a{color:#fff}header.top .brand{font-weight:700;text-decoration:none;font-size:1.1rem}
header.top form{margin:0}header.top button{background:transparent;color:#fff;border:1px solid #fff}
nav.project{display:flex;flex-wrap:wrap;gap:.25rem;padding:.5rem 1rem;background:var(--panel);border-bottom:1px solid var(--line)}
nav.project a{padding:.35rem .6rem;border-radius:4px;text-decoration:none}nav.project a[aria-current=page]{background:var(--accent);color:#fff}
main{padding:1rem;max-width:72rem;margin:0 auto}
h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.2rem;margin:1.5rem 0 .5rem}h3{font-size:1rem;margin:1rem 0 .4rem}
.muted{color:var(--muted)}.small{font-size:.875rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.4rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}.table-wrap{overflow-x:auto}
form.inline{display:inline}
form.filters{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end;margin:.5rem 0 1rem}
label{display:block;font-weight:600;margin:.3rem 0 .2rem}
.field{display:flex;flex-direction:column;min-width:0;max-width:100%}
input[type=text],input[type=password],input[type=search],input[type=number],select,textarea{font:inherit;padding:.45rem .5rem;border:1px solid #767676;border-radius:4px;max-width:100%;background:#fff;color:var(--fg)}
textarea{width:100%;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9rem}
input[type=text].wide,input[type=search].wide{width:100%}
button,.button{font:inherit;padding:.45rem .9rem;border-radius:4px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--danger);border-color:var(--danger)}
.notice{padding:.6rem .8rem;border-radius:4px;margin:.5rem 0 1rem;border:1px solid var(--line);background:var(--panel)}
.notice.error{border-color:var(--danger);background:#fdecea;color:#5c0b0e}.notice.ok{border-color:var(--ok);background:#e7f5ea;color:#133f20}
.empty{padding:1.5rem;text-align:center;border:1px dashed var(--line);border-radius:6px;color:var(--muted)}
pre.text{white-space:pre-wrap;word-break:break-word;background:var(--panel);padding:.75rem;border-radius:4px;border:1px solid var(--line);font-size:.875rem;max-height:40rem;overflow:auto}
.badge{display:inline-block;padding:0 .4rem;border-radius:3px;background:#e1e4e8;color:#1a1a1a;font-size:.8rem}
.badge.bad{background:#fdecea;color:#5c0b0e}.badge.good{background:#e7f5ea;color:#133f20}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));gap:1rem}
.card{border:1px solid var(--line);border-radius:6px;padding:.75rem}
.stats{display:flex;flex-wrap:wrap;gap:1rem;margin:.5rem 0}.stats div{background:var(--panel);padding:.4rem .7rem;border-radius:4px}
table.diff{table-layout:fixed;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.8rem}
table.diff td{white-space:pre-wrap;word-break:break-word;border-bottom:none;padding:.1rem .4rem}table.diff td.no{width:2.5rem;color:var(--muted);text-align:right}
table.diff td.del{background:var(--del)}table.diff td.add{background:var(--add)}table.diff del,table.diff ins{text-decoration:none}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.75rem 0}
.signin{max-width:26rem;margin:3rem auto}.signin input{width:100%}
.grow{flex:1 1 16rem}fieldset.plain{border:none;padding:0;margin:.5rem 0}.legend{font-weight:600}label.check{display:inline-block;font-weight:400;margin-right:1rem}
ul.cards{list-style:none;padding:0}.card-title{margin-top:0}caption{text-align:left}header.top nav{margin:0}
@media (max-width:40rem){main{padding:.75rem}th,td{padding:.35rem}.hide-narrow{display:none}table.diff td.no{width:1.8rem}}
`;

export const CONSOLE_JS = `
document.addEventListener("submit", function (e) {
	var form = e.target;
	var message = form && form.getAttribute && form.getAttribute("data-confirm");
	if (message && !window.confirm(message)) e.preventDefault();
});
`;
