// Preloaded (node --require) into a child process and, through execArgv, into its worker threads:
// any attempt to open a socket or resolve a name is recorded on stderr and fails. The embedder must
// load its model and embed without either.
const net = require("node:net");
const dns = require("node:dns");
const { isMainThread } = require("node:worker_threads");
const where = isMainThread ? "main" : "worker";
const refuse = (what) =>
  function () {
    process.stderr.write(`NETWORK ATTEMPT (${where}): ${what}\n`);
    throw new Error(`network is cut in this test (${what})`);
  };
net.Socket.prototype.connect = refuse("net.Socket.connect");
net.connect = net.createConnection = refuse("net.connect");
dns.lookup = refuse("dns.lookup");
dns.promises.lookup = refuse("dns.promises.lookup");
if (typeof globalThis.fetch === "function") globalThis.fetch = refuse("fetch");
