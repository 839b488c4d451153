// The kind of an exported value, as the surface snapshot records it: a class and a plain function
// are told apart (a class moved behind a factory would break `new`), objects and primitives by typeof.
export function kindOf(value) {
  if (typeof value === "function") return /^class[\s{]/.test(Function.prototype.toString.call(value)) ? "class" : "function";
  if (value === null) return "null";
  return typeof value;
}
