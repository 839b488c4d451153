/**
 * How dependency-cruiser (.dependency-cruiser.cjs) reads TypeScript. Its own TypeScript support
 * needs TypeScript < 7 (this repository builds with 7, which has no JavaScript API), so babel strips
 * the types. A type-only import crosses a package boundary as surely as a value import does, so
 * before stripping, `import type` / `export type … from` and inline `type` specifiers are turned
 * into plain ones: the layering rules then see every import the type checker sees.
 */
function keepTypeImports() {
  const keep = (node) => {
    if (node.importKind === "type" || node.importKind === "typeof") node.importKind = "value";
    if (node.exportKind === "type") node.exportKind = "value";
    for (const specifier of node.specifiers ?? []) {
      if (specifier.importKind === "type") specifier.importKind = "value";
      if (specifier.exportKind === "type") specifier.exportKind = "value";
    }
  };
  // On entering the program, before the TypeScript preset's own Program visitor elides them.
  return {
    name: "keep-type-imports",
    visitor: {
      Program: {
        enter(program) {
          for (const statement of program.node.body) {
            if (statement.type === "ImportDeclaration" || statement.type === "ExportAllDeclaration") keep(statement);
            else if (statement.type === "ExportNamedDeclaration" && statement.source) keep(statement);
          }
        },
      },
    },
  };
}

module.exports = {
  babelrc: false,
  configFile: false,
  plugins: [keepTypeImports],
  presets: [[require.resolve("@babel/preset-typescript"), { onlyRemoveTypeImports: true }]],
};
