export function mount() {
  return {
    definition: {
      type: "function",
      function: { name: "read_file", description: "Reads a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } },
    },
    execute: ({ path }) => ({ output: path === "package.json" ? '{ "scripts": {} }' : "no such file" }),
  };
}
