// The start-up floor (SPEC §12): a compiled Bun hello-world, built with ion's own flags.
console.log("hello");
