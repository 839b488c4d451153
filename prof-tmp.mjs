import { createWindowFitter } from "@amplifier-ts/window";
const words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"];
const text = (seed, n) => Array.from({ length: n }, (_, i) => words[(seed * 7 + i * 13) % words.length]).join(" ");
const w = (i) => { const t = i >> 2; switch (i & 3) { case 0: return { role: "user", content: `question ${t}: ${text(t, 8)}` }; case 1: return { role: "assistant", content: null, tool_calls: [{ id: `c${t}`, type: "function", function: { name: "read_file", arguments: `{"path":"/f/${t}"}` } }] }; case 2: return { role: "tool", tool_call_id: `c${t}`, content: text(t + 1, 60) }; default: return { role: "assistant", content: `answer ${t}: ${text(t + 2, 12)}` }; } };
const ms = [{ role: "system", content: "x" }]; while (ms.length < 9000) ms.push(w(ms.length - 1));
const f = createWindowFitter({ model: "gpt-4o", budget: 100000 });
f.fit(ms);
const times = [];
for (let c = 0; c < 3000; c++) { ms.push(w(ms.length - 1)); const s = performance.now(); f.fit(ms); times.push(performance.now() - s); }
console.log("P", globalThis.P, "G", globalThis.G, "I", globalThis.I); times.sort((x, y) => x - y); console.log("fitter median", times[1500], "p90", times[2700]);
