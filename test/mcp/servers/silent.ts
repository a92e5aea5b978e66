/** A process that reads its stdin and never answers: an MCP server stuck before its handshake. */
process.stdin.on("data", () => {});
console.error("silent: reading stdin, answering nothing");
