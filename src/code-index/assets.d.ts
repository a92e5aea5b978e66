// Grammars (.wasm, imported `with { type: "file" }` as a path) and their tags queries (.scm, imported
// `with { type: "text" }`) are embedded by `bun build --compile`.
declare module "*.wasm" {
  const path: string;
  export default path;
}
declare module "*.scm" {
  const text: string;
  export default text;
}
