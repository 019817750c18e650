/// The page's one stylesheet and one script, served by the page itself (no fonts, scripts or styles from anywhere
/// else; the Content-Security-Policy allows only these).
enum WebAssets {
    static let stylesheet = """
        *{box-sizing:border-box}
        body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1f24;background:#f6f7f9}
        header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;background:#1f2933;color:#fff}
        header a{color:#fff}
        header form,header .sign-in{margin-left:auto}
        main{padding:1rem;max-width:72rem;margin:0 auto}
        a{color:#0b57d0}
        a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #f0a30a;outline-offset:1px}
        h1{font-size:1.35rem;margin:.2rem 0 .8rem;overflow-wrap:anywhere}
        h2{font-size:1.1rem;margin:1.4rem 0 .5rem}
        h3{font-size:1rem;margin:1rem 0 .4rem;overflow-wrap:anywhere}
        p code,li{overflow-wrap:anywhere}
        .scroll{overflow-x:auto;max-width:100%}
        table{border-collapse:collapse;width:100%;background:#fff}
        th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #e3e6ea;vertical-align:top;overflow-wrap:anywhere}
        code,pre{font:13px/1.4 ui-monospace,Menlo,monospace}
        pre{background:#111;color:#e6e6e6;padding:.6rem;white-space:pre-wrap;overflow-wrap:anywhere;max-height:70vh;overflow-y:auto}
        .passed,.signed-off,.passes{color:#137333}
        .failed,.tests-failed,.build-failed,.rejected,.fails,.timeout{color:#b3261e}
        .pending,.awaiting-signoff,.pending-signoff,.running,.queued{color:#8a5a00}
        .could-not-judge,.cancelled,.interrupted,.infrastructure,.host-config{color:#5f6368}
        dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}
        dt{font-weight:600}
        dd{margin:0;overflow-wrap:anywhere}
        form.filter{display:flex;flex-wrap:wrap;gap:.5rem;margin-bottom:1rem}
        label{display:block;font-weight:600;margin-top:.6rem}
        input,select,textarea,button{font:inherit;max-width:100%}
        input[type=text],input[type=password],textarea{width:100%;padding:.35rem}
        button{padding:.4rem .9rem;background:#0b57d0;color:#fff;border:0;border-radius:4px;cursor:pointer}
        .refusal{background:#fde7e9;border-left:4px solid #b3261e;padding:.5rem .8rem}
        .notice{background:#e6f4ea;border-left:4px solid #137333;padding:.5rem .8rem}
        img.shot{display:block;max-width:min(100%,20rem);height:auto;border:1px solid #ccc}
        ol.items li{margin:.3rem 0}
        """

    /// Live updates and nothing else: the runs list and a followed log, over server-sent events. The page works
    /// without it.
    static let script = """
        "use strict";
        (function () {
          var rows = document.getElementById("live-runs");
          if (rows && window.EventSource) {
            var runs = new EventSource(rows.getAttribute("data-events"));
            runs.addEventListener("rows", function (event) {
              var template = document.createElement("template");
              template.innerHTML = JSON.parse(event.data).html;
              rows.replaceChildren(template.content);
            });
          }
          var log = document.getElementById("live-log");
          if (log && window.EventSource) {
            var source = new EventSource(log.getAttribute("data-events"));
            var state = document.getElementById("log-state");
            source.addEventListener("output", function (event) {
              log.appendChild(document.createTextNode(JSON.parse(event.data).text));
              log.scrollTop = log.scrollHeight;
            });
            source.addEventListener("end", function (event) {
              if (state) { state.textContent = JSON.parse(event.data).status; }
              source.close();
            });
          }
        })();
        """
}
