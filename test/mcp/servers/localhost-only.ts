/**
 * Preloaded into an HTTP server under test (`bun --preload`): a listen on a port alone binds
 * 127.0.0.1 instead of every interface, and the port it got is printed to stderr as
 * `listening on port <n>` (the servers print the port they were asked for, which is 0).
 */
import { Server } from "node:http";

const listen = Server.prototype.listen;
Server.prototype.listen = function (this: Server, ...args: unknown[]) {
  if ((typeof args[0] === "number" || typeof args[0] === "string") && typeof args[1] !== "string")
    args.splice(1, 0, "127.0.0.1");
  this.once("listening", () => {
    const address = this.address();
    if (address !== null && typeof address === "object") console.error(`listening on port ${address.port}`);
  });
  return listen.apply(this, args as Parameters<typeof listen>);
} as typeof listen;
